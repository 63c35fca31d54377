import type { StatementLine } from './statements.ledger.ts';

/**
 * How a statement line is coded: its BAI2 detail type code and its ISO 20022 bank transaction code
 * (domain, family, sub-family), from what caused it (docs/guide/statements.md has the table).
 */
export interface LineCode {
  bai: string;
  domain: string;
  family: string;
  subFamily: string;
  /** What the line is, in words: the text of a BAI2 detail and a camt entry's information. */
  label: string;
}

const code = (bai: string, btc: string, label: string): LineCode => {
  const [domain = '', family = '', subFamily = ''] = btc.split('/');
  return { bai, domain, family, subFamily, label };
};

const ACH_RAILS = new Set(['ach', 'same_day_ach']);
const INSTANT_RAILS = new Set(['rtp', 'fednow']);

/** Money the merchant's bank moved on a rail for the merchant: a transfer or a payout. */
function originated(line: StatementLine, credit: boolean): LineCode {
  const rail = line.rail ?? '';
  const returned = line.type.endsWith('_return');
  const dishonored = line.type.endsWith('_return_dishonored');
  if (ACH_RAILS.has(rail)) {
    if (dishonored)
      return credit
        ? code('258', 'PMNT/RCDT/AREV', 'ACH return dishonored')
        : code('558', 'PMNT/ICDT/AREV', 'ACH return dishonored');
    if (returned)
      return credit
        ? code('257', 'PMNT/ICDT/ARET', 'ACH return of an originated credit')
        : code('557', 'PMNT/IDDT/UPDD', 'ACH return of an originated debit');
    return credit
      ? code('166', 'PMNT/RCDT/ASET', 'ACH settlement of an originated debit')
      : code('466', 'PMNT/ICDT/ASET', 'ACH settlement of an originated credit');
  }
  if (INSTANT_RAILS.has(rail)) {
    const name = rail === 'rtp' ? 'RTP' : 'FedNow';
    return credit
      ? code(
          '195',
          returned ? 'PMNT/IRCT/RRTN' : 'PMNT/RRCT/DMCT',
          `${name} ${returned ? 'return' : 'credit'}`,
        )
      : code('495', 'PMNT/IRCT/DMCT', `${name} credit sent`);
  }
  if (rail === 'wire')
    return credit
      ? code('195', 'PMNT/ICDT/RRTN', 'Wire returned')
      : code('495', 'PMNT/ICDT/DMCT', 'Outgoing wire');
  return credit ? code('399', 'PMNT/MCOP/OTHR', 'Credit') : code('699', 'PMNT/MDOP/OTHR', 'Debit');
}

/** Money an outside originator moved: an inbound transfer, or the merchant's return of one. */
function received(line: StatementLine, credit: boolean): LineCode {
  const rail = line.rail ?? '';
  if (line.type === 'inbound_transfer_return')
    return credit
      ? code('257', 'PMNT/RDDT/UPDD', 'Return of a received ACH debit')
      : code('557', 'PMNT/RCDT/ARET', 'Return of a received ACH credit');
  if (ACH_RAILS.has(rail))
    return credit
      ? code('142', 'PMNT/RCDT/ACDT', 'ACH credit received')
      : code('451', 'PMNT/RDDT/PMDD', 'ACH debit received');
  if (INSTANT_RAILS.has(rail))
    return code('195', 'PMNT/RRCT/DMCT', `${rail === 'rtp' ? 'RTP' : 'FedNow'} credit received`);
  if (rail === 'wire') return code('195', 'PMNT/RCDT/DMCT', 'Incoming wire');
  return credit ? code('399', 'PMNT/MCOP/OTHR', 'Credit') : code('699', 'PMNT/MDOP/OTHR', 'Debit');
}

const BY_TYPE: Record<string, (credit: boolean) => LineCode> = {
  card_payment: () => code('147', 'PMNT/MCRD/POSP', 'Card settlement'),
  refund: () => code('552', 'PMNT/MCRD/OTHR', 'Card refund'),
  dispute: () => code('555', 'PMNT/MCRD/UPCT', 'Card chargeback'),
  dispute_won: () => code('252', 'PMNT/MCRD/OTHR', 'Chargeback reversed (dispute won)'),
  dispute_fee: () => code('698', 'ACMT/MDOP/FEES', 'Dispute fee'),
  dispute_fee_returned: () => code('398', 'ACMT/MCOP/FEES', 'Dispute fee refunded'),
  issuing_capture: () => code('699', 'PMNT/CCRD/POSD', 'Virtual card purchase'),
  issuing_refund: () => code('399', 'PMNT/CCRD/OTHR', 'Virtual card refund'),
  fx_conversion: (credit) =>
    credit
      ? code('214', 'FORX/SPOT/OTHR', 'Foreign exchange credit')
      : code('514', 'FORX/SPOT/OTHR', 'Foreign exchange debit'),
  top_up: () => code('206', 'PMNT/RCDT/BOOK', 'Sandbox top-up'),
};

/** The codes of a statement line. */
export function lineCode(line: StatementLine): LineCode {
  const credit = line.amount > 0n;
  if (line.sourceType === 'transfer' || line.sourceType === 'payout') return originated(line, credit);
  if (line.sourceType === 'inbound_transfer') return received(line, credit);
  if (line.sourceType === 'fx_settlement')
    return credit
      ? code('214', 'FORX/SPOT/OTHR', 'Foreign exchange credit')
      : code('514', 'FORX/SPOT/OTHR', 'Settlement abroad');
  const byType = BY_TYPE[line.type];
  if (byType) return byType(credit);
  if (line.type === 'reversal')
    return credit ? code('252', 'PMNT/MCOP/OTHR', 'Reversal') : code('552', 'PMNT/MDOP/OTHR', 'Reversal');
  return credit ? code('399', 'PMNT/MCOP/OTHR', 'Credit') : code('699', 'PMNT/MDOP/OTHR', 'Debit');
}
