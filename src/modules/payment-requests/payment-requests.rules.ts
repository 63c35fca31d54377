/**
 * The rules of requests for payment (docs/guide/payment-requests.md): the ISO 20022 reasons a payer
 * rejects with, what a payer's bank does by its magic account, and the expiry bounds. Pure.
 */

/** ExternalStatusReason1Code values a payer's pain.014 rejects a request with. */
export const RFP_REJECT_REASONS = {
  AC03: 'Invalid creditor account number',
  AC04: 'Closed account number',
  AC06: 'Blocked account',
  AM14: 'Amount exceeds the agreed maximum',
  BE05: 'Unrecognised initiating party',
  FRAD: 'Fraudulent origin',
  NARR: 'Declined by the payer',
} as const;
export type RfpRejectReason = keyof typeof RFP_REJECT_REASONS;

/** Seconds after a request is sent that the payer's bank answers it, and then pays an accepted one. */
export const RFP_ANSWER_SECONDS = 60;
export const RFP_PAY_SECONDS = 60;

/** A request's expiry when none is given (7 days), and the longest one allowed (90 days). */
export const RFP_DEFAULT_EXPIRY_SECONDS = 7 * 86_400;
export const RFP_MAX_EXPIRY_SECONDS = 90 * 86_400;

/** What the payer does with an outbound request. */
export type PayerBehavior =
  | { kind: 'pays' }
  | { kind: 'rejects'; code: RfpRejectReason }
  | { kind: 'accepts_only' }
  | { kind: 'ignores' };

/** The magic payer accounts (and the unreachable routing number), in the README's order. */
export const RFP_MAGIC_PAYERS: readonly {
  accountNumber: string;
  outcome: string;
  behavior: PayerBehavior;
}[] = [
  {
    accountNumber: '000444444440',
    outcome: 'rejected AC04 (closed account)',
    behavior: { kind: 'rejects', code: 'AC04' },
  },
  {
    accountNumber: '000555555553',
    outcome: 'rejected AM14 (over the payer’s limit)',
    behavior: { kind: 'rejects', code: 'AM14' },
  },
  {
    accountNumber: '000888888885',
    outcome: 'accepted, never paid: expires',
    behavior: { kind: 'accepts_only' },
  },
  { accountNumber: '000000000009', outcome: 'never answered: expires', behavior: { kind: 'ignores' } },
];

const UNREACHABLE_ROUTING_NUMBER = '790000051';

/** What the payer of an outbound request does: by routing number, magic account, else it pays. */
export function payerBehavior(routingNumber: string, accountNumber: string): PayerBehavior {
  if (routingNumber === UNREACHABLE_ROUTING_NUMBER) return { kind: 'rejects', code: 'AC03' };
  return RFP_MAGIC_PAYERS.find((row) => row.accountNumber === accountNumber)?.behavior ?? { kind: 'pays' };
}

/** A payer behavior as stored (`rejects:AC04`), and back. */
export const encodeBehavior = (b: PayerBehavior) => (b.kind === 'rejects' ? `rejects:${b.code}` : b.kind);
export function decodeBehavior(value: string | null): PayerBehavior {
  if (value?.startsWith('rejects:')) return { kind: 'rejects', code: value.slice(8) as RfpRejectReason };
  return { kind: (value ?? 'pays') as 'pays' | 'accepts_only' | 'ignores' };
}
