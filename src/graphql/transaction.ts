import type { CurrencyCode } from '../kernel/currency.ts';
import { builder } from './builder.ts';
import { describedEnum } from './enums.ts';
import { NodeRef } from './node.ts';
import { MoneyRef } from './scalars.ts';

/** What every transaction object's row has (collections, card payments, transfers, payouts; others later). */
export interface TransactionShape {
  id: string;
  state: string;
  amount: bigint;
  currency: string;
  reference: string | null;
  createdAt: Date;
}

/**
 * The kinds the transactions list spans, in its order. The transactions module owns them
 * (TRANSACTION_KINDS, transactions.service.ts); its GraphQL (transactions.graphql-interface.ts)
 * checks this list against it when the schema is built, so the kit names no module.
 */
export const TRANSACTION_KIND_NAMES = [
  'collection',
  'card_payment',
  'transfer',
  'payout',
  'issuing_authorization',
  'fx_conversion',
  'fx_settlement',
] as const;
export type TransactionKindName = (typeof TRANSACTION_KIND_NAMES)[number];

export const TransactionKindEnum = describedEnum(
  'TransactionKind',
  'The kinds of transaction the transactions list spans.',
  {
    collection: 'A hosted checkout session (Collection).',
    card_payment: 'A card payment (CardPayment).',
    transfer: 'A bank transfer (Transfer).',
    payout: "A payout to the merchant's own bank account (Payout).",
    issuing_authorization: 'An authorization on a virtual card (IssuingAuthorization).',
    fx_conversion: 'USD converted into another currency (FxConversion).',
    fx_settlement: 'A payment abroad (FxSettlement).',
  } satisfies Record<TransactionKindName, string>,
);

/**
 * Each kind's states, as its state machine has them (a conversion is completed at once). The
 * machines live in their modules; transactions.graphql-interface.ts checks these lists against
 * them when the schema is built, and fails it when one differs.
 */
export const TRANSACTION_STATES_BY_KIND = {
  collection: ['pending', 'processing', 'succeeded', 'failed', 'expired', 'canceled'],
  card_payment: [
    'requires_action',
    'authorized',
    'captured',
    'partially_refunded',
    'refunded',
    'declined',
    'voided',
    'expired',
  ],
  transfer: [
    'pending',
    'submitted',
    'settled',
    'returned',
    'canceled',
    'return_dishonored',
    'return_contested',
    'completed',
    'rejected',
  ],
  payout: [
    'pending',
    'in_transit',
    'paid',
    'failed',
    'returned',
    'canceled',
    'return_dishonored',
    'return_contested',
  ],
  issuing_authorization: ['approved', 'declined', 'captured', 'reversed', 'expired'],
  fx_conversion: ['completed'],
  fx_settlement: ['pending', 'converted', 'paid', 'failed'],
} as const satisfies Record<TransactionKindName, readonly string[]>;

type TransactionStateName = (typeof TRANSACTION_STATES_BY_KIND)[TransactionKindName][number];

/** What each state means; the kinds that use it are appended from the machines. */
const STATE_MEANINGS: Record<TransactionStateName, string> = {
  pending: 'Created; nothing has moved yet',
  processing: 'A bank payment is on its way',
  succeeded: 'Paid',
  failed: 'Did not go through (declined, refused or sent back before it was final)',
  expired: 'Ran out of time before it completed',
  canceled: 'Canceled before it moved',
  requires_action: 'Waits for the payer to complete 3-D Secure',
  authorized: 'Authorized and not yet captured',
  captured: 'Captured',
  partially_refunded: 'Captured, with part of it refunded',
  refunded: 'Refunded in full',
  declined: 'Declined',
  voided: 'Authorized, then released without capture',
  submitted: 'Sent to the bank in an ACH file',
  settled: 'Settled at the receiving bank',
  returned: 'Sent back by the receiving bank after it settled',
  return_dishonored:
    "Its return was dishonored by the originating bank (R61-R70): the entry's effect applies again",
  return_contested:
    'The dishonor of its return was contested by the receiving bank (R71-R77): returned again, final',
  completed: 'Done: an RTP transfer that arrived, a conversion (done at once)',
  rejected: 'Refused by the receiving bank (RTP)',
  in_transit: 'Submitted and on its way',
  paid: 'Paid to its destination',
  approved: 'Approved and holding funds',
  reversed: 'Released back to the card, in full',
  converted: 'Converted, waiting for its payment day',
};

function stateDescription(state: TransactionStateName): string {
  const kinds = TRANSACTION_KIND_NAMES.filter((kind) =>
    (TRANSACTION_STATES_BY_KIND[kind] as readonly string[]).includes(state),
  );
  return `${STATE_MEANINGS[state]}. Kinds: ${kinds.join(', ')}.`;
}

export const TransactionStateEnum = describedEnum(
  'TransactionState',
  "Every state a transaction can be in. Each kind has its own states (its type's description lists them); each value says which kinds use it.",
  Object.fromEntries(
    (Object.keys(STATE_MEANINGS) as TransactionStateName[]).map((state) => [state, stateDescription(state)]),
  ) as Record<TransactionStateName, string>,
);

/**
 * What every money-moving object has in common, so one list (the `transactions`
 * connection, a dashboard) can show them all. `state` is one enum across kinds: each kind uses
 * some of its values (its type's description lists them). Its `kind` and `timeline` read the
 * events, so the transactions module adds them (transactions.graphql-interface.ts).
 */
export const TransactionRef = builder.interfaceRef<TransactionShape>('Transaction').implement({
  description:
    'A money-moving object of any kind (collection, card payment, transfer, payout, issuing authorization, FX conversion or settlement), as the transactions list shows them.',
  interfaces: [NodeRef],
  fields: (t) => ({
    state: t.field({
      type: TransactionStateEnum,
      description: "Where it stands: one of its kind's states (the type's description lists them).",
      resolve: (row) => row.state as TransactionStateName,
    }),
    amount: t.field({
      type: MoneyRef,
      description: 'How much it moves, in its currency.',
      resolve: (row) => ({ amount: row.amount, currency: row.currency as CurrencyCode }),
    }),
    reference: t.exposeString('reference', {
      nullable: true,
      description: "The merchant's reference, as given on create.",
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created, clock time.' }),
  }),
});
