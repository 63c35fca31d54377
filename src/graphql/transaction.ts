import type { CurrencyCode } from '../kernel/currency.ts';
import { cardPaymentMachine } from '../modules/card-payments/card-payments.machine.ts';
import { collectionMachine } from '../modules/collections/collections.machine.ts';
import { objectKindOf } from '../modules/events/events.kinds.ts';
import { type TimelineEntry, timelineOf } from '../modules/events/events.service.ts';
import { fxConversionStates, fxSettlementMachine } from '../modules/fx/fx.machine.ts';
import { issuingAuthorizationMachine } from '../modules/issuing/issuing.machine.ts';
import { TRANSACTION_KINDS, type TransactionKind } from '../modules/transactions/transactions.service.ts';
import { type EntryState, statesOf } from '../modules/transfers/transfers.machine.ts';
import { builder } from './builder.ts';
import { serviceContext } from './context.ts';
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
  } satisfies Record<TransactionKind, string>,
);

/** Each kind's states, from its state machine (a conversion is completed at once). */
const STATES_BY_KIND = {
  collection: collectionMachine.states,
  card_payment: cardPaymentMachine.states,
  transfer: statesOf('transfer'),
  payout: statesOf('payout'),
  issuing_authorization: issuingAuthorizationMachine.states,
  fx_conversion: fxConversionStates,
  fx_settlement: fxSettlementMachine.states,
} as const satisfies Record<TransactionKind, readonly string[]>;

type TransactionStateName =
  | (typeof collectionMachine.states)[number]
  | (typeof cardPaymentMachine.states)[number]
  | EntryState
  | (typeof issuingAuthorizationMachine.states)[number]
  | (typeof fxConversionStates)[number]
  | (typeof fxSettlementMachine.states)[number];

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
  const kinds = TRANSACTION_KINDS.filter((kind) =>
    (STATES_BY_KIND[kind] as readonly string[]).includes(state),
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

const TimelineEntryRef = builder.objectRef<TimelineEntry>('TimelineEntry').implement({
  description: 'One state change of a transaction: the event that recorded it, at clock time.',
  fields: (t) => ({
    state: t.exposeString('state', {
      description:
        "The last segment of the event's type: the state the object arrived in (created for a creation that is not a state).",
    }),
    eventType: t.exposeString('eventType', { description: 'The event type, e.g. card_payment.captured.' }),
    eventId: t.exposeID('eventId', { description: "The event's id (event(id:) or node(id:) reads it)." }),
    at: t.expose('at', { type: 'DateTime', description: 'When it happened, clock time.' }),
  }),
});

/**
 * What every money-moving object has in common, so one list (the `transactions`
 * connection, a dashboard) can show them all. `state` is one enum across kinds: each kind uses
 * some of its values (its type's description lists them).
 */
export const TransactionRef = builder.interfaceRef<TransactionShape>('Transaction').implement({
  description:
    'A money-moving object of any kind (collection, card payment, transfer, payout, issuing authorization, FX conversion or settlement), as the transactions list shows them.',
  interfaces: [NodeRef],
  fields: (t) => ({
    kind: t.field({
      type: TransactionKindEnum,
      description: 'Which kind of transaction this is (its type, as a value).',
      resolve: (row) => objectKindOf(row.id) as TransactionKind,
    }),
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
    timeline: t.field({
      type: [TimelineEntryRef],
      description: 'Every state change, oldest first, from the events (creation included).',
      resolve: (row, _args, ctx) => {
        const svc = serviceContext(ctx);
        return timelineOf(svc.tx ?? svc.db, svc.merchant.id, row.id);
      },
    }),
  }),
});
