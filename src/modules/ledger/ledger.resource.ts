import { z } from 'zod';
import { CURRENCY_CODES, type CurrencyCode } from '../../kernel/currency.ts';
import { defineObject, field, type ObjectDecl, withWire } from '../../kernel/declare.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import { type Wire, wireAnswer, wireCurrency, wireDecimal } from '../../kernel/wire-resources.ts';
import { holdMachine, postingMachine } from './ledger.machine.ts';
import type { Balance } from './ledger.queries.ts';
import type { PostingRow } from './ledger.rows.ts';

/** What a posting records, by the `type` its writer gives it. */
export const POSTING_TYPES = {
  top_up: 'a sandbox top-up',
  card_payment: 'a captured card payment, credited to pending',
  refund: 'a card refund, out of available',
  funds_available: 'pending funds becoming available',
  hold: 'a hold on available funds',
  hold_posted: 'a hold sent to its destination',
  hold_voided: 'a hold released back to available',
  reversal: 'the reversal of an earlier posting',
  transfer: "a transfer: a credit's hold, or a debit's funds arriving in pending",
  transfer_return: "a transfer's return (again, when the RDFI contests the return's dishonor)",
  transfer_return_dishonored: "a transfer's return dishonored by the ODFI: the transfer's effect again",
  payout: "a payout's hold",
  payout_return: "a payout's return (again, when the RDFI contests the return's dishonor)",
  payout_return_dishonored: "a payout's return dishonored by the ODFI: the payout's effect again",
  inbound_transfer:
    'an inbound transfer: a credit arriving (pending, or available on the instant rails) or a debit settling out of available',
  inbound_transfer_return: "the merchant's return of an inbound transfer",
  issuing_authorization: "a virtual card authorization's hold",
  issuing_capture: 'a virtual card capture, out of available',
  issuing_refund: 'a virtual card refund, back into available',
  fx_conversion: 'one currency side of a conversion',
  fx_settlement: "a settlement abroad's hold",
  dispute: 'a chargeback: the disputed amount, out of available',
  dispute_fee: "a chargeback's dispute fee, out of available",
  dispute_won: 'a dispute won: the disputed amount, back into available',
  dispute_fee_returned: 'a dispute won: its fee, back into available',
} as const;
export type PostingType = keyof typeof POSTING_TYPES;

/** The kinds of object a posting comes from. */
export const SOURCE_TYPES = [
  'top_up',
  'card_payment',
  'refund',
  'transfer',
  'payout',
  'inbound_transfer',
  'issuing_authorization',
  'fx_conversion',
  'fx_settlement',
  'dispute',
] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const BalanceWire = wireAnswer('balance', {
  currency: wireCurrency,
  available: wireDecimal.meta({
    type: 'number',
    description:
      'What can be spent now: paid out, transferred or converted. It may be negative: a returned ACH debit or a virtual card capture can take it below zero.',
  } as z.GlobalMeta),
  pending: wireDecimal.meta({
    type: 'number',
    description:
      'Received but not yet available (a captured card payment before settlement, an ACH debit before it settles).',
  } as z.GlobalMeta),
  reserved: wireDecimal.meta({
    type: 'number',
    description:
      'Held from available for operations under way: a transfer credit or payout before it leaves, a virtual card authorization before capture, a settlement abroad before it is paid.',
  } as z.GlobalMeta),
}).meta({ id: 'Balance', description: "The merchant's balances in one currency." });

export const BalancesWire = z
  .object({
    data: z.array(BalanceWire).meta({
      description:
        'One balance per currency the merchant has used (USD always), in the order USD, EUR, GBP, JPY.',
    }),
  })
  .meta({ id: 'Balances', description: "The merchant's balances, one per currency." });

/** The merchant's balances as REST answers them: an answer without an id (GraphQL's is a list of Balance). */
export const BalancesAnswer: ObjectDecl<Balance[]> = {
  name: 'Balances',
  object: 'balance',
  description: BalancesWire.description ?? '',
  fields: {},
  wire: BalancesWire,
  render: (balances) => ({ data: balances.map(balanceResource) }) satisfies Wire<typeof BalancesWire>,
};

const signed = (account: string) =>
  `The change of the ${account} balance, signed (negative: it went down; 0 when untouched), in major units with the currency's digits.`;
const delta = (amount: bigint, currency: string) => ({ amount, currency: currency as CurrencyCode });

/** The object a posting comes from: one field on REST, two on GraphQL (sourceType, sourceId). */
export const PostingSourceWire = z
  .object({
    type: z.enum(SOURCE_TYPES).meta({ description: 'The kind of object it comes from.' }),
    id: z
      .string()
      .meta({ description: "The id of the object it comes from (a top-up's is the merchant's)." }),
  })
  .meta({ description: 'The object the posting comes from.' });

export const BalanceTransaction = defineObject<PostingRow>()(
  'BalanceTransaction',
  'balance_transaction',
  'A ledger posting as the merchant sees it: its effect on the available, pending and reserved balances of one currency, and the object it comes from.',
  {
    type: field.enum(
      Object.keys(POSTING_TYPES) as PostingType[],
      `What the posting records: ${Object.entries(POSTING_TYPES)
        .map(([type, meaning]) => `${type} (${meaning})`)
        .join('; ')}.`,
    ),
    state: field.enum(
      [...new Set([...holdMachine.states, ...postingMachine.states])],
      'posted (applied), or reversed (undone by a later reversal); a hold is pending until it is posted to its destination or voided back to available.',
    ),
    currency: withWire(field.enum<PostingRow, typeof CURRENCY_CODES>(CURRENCY_CODES), wireCurrency),
    available: field.money<PostingRow>(signed('available'), (row) => delta(row.availableDelta, row.currency)),
    pending: field.money<PostingRow>(signed('pending'), (row) => delta(row.pendingDelta, row.currency)),
    reserved: field.money<PostingRow>(signed('reserved'), (row) => delta(row.reservedDelta, row.currency)),
    source: field.custom<PostingRow>(PostingSourceWire, (row) => ({
      type: row.sourceType,
      id: row.sourceId,
    })),
    related: field.nullableText<PostingRow>(
      'The id of what this posting follows from: the hold it posts or voids, the pending credit or ACH debit whose funds it makes available, the card payment a refund refunds, the posting it reverses, the hold of a returned transfer credit or payout; null when none.',
      (row) => row.relatedId,
    ),
    description: field.nullableText('A description of the posting, when it has one.'),
    created_at: field.timestamp('When it was posted, clock time.'),
  },
);

export const BalanceTransactionWire = BalanceTransaction.wire;

export function balanceResource(balance: Balance): Wire<typeof BalanceWire> {
  return {
    object: 'balance',
    currency: balance.currency,
    available: WireDecimal.of(balance.available, balance.currency),
    pending: WireDecimal.of(balance.pending, balance.currency),
    reserved: WireDecimal.of(balance.reserved, balance.currency),
  };
}

/** A posting as the merchant sees it: its effect on available, pending and reserved, and its source. */
export function balanceTransactionResource(row: PostingRow): Wire<typeof BalanceTransactionWire> {
  return BalanceTransaction.render(row, { publicUrl: '' });
}
