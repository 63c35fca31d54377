import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import {
  TRANSACTION_KIND_NAMES,
  TRANSACTION_STATES_BY_KIND,
  TransactionKindEnum,
  TransactionRef,
} from '../../graphql/transaction.ts';
import { cardPaymentMachine } from '../card-payments/card-payments.machine.ts';
import { collectionMachine } from '../collections/collections.machine.ts';
import { objectKindOf } from '../events/events.kinds.ts';
import { type TimelineEntry, timelineOf } from '../events/events.service.ts';
import { fxConversionStates, fxSettlementMachine } from '../fx/fx.machine.ts';
import { issuingAuthorizationMachine } from '../issuing/issuing.machine.ts';
import { statesOf } from '../transfers/transfers.machine.ts';
import { TRANSACTION_KINDS, type TransactionKind } from './transactions.service.ts';

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

/**
 * The GraphQL kit names no module, so it lists the kinds and each kind's states itself (the
 * Transaction interface and its enums, src/graphql/transaction.ts): they must be the ones the
 * transactions module and the machines have. A kind or a state added to one and not the other
 * fails the schema's build, with what differs.
 */
function checkKitLists(): void {
  const same = (a: readonly string[], b: readonly string[]) =>
    a.length === b.length && a.every((item, index) => item === b[index]);
  if (!same(TRANSACTION_KINDS, TRANSACTION_KIND_NAMES))
    throw new Error(
      `The transaction kinds (${TRANSACTION_KINDS.join(', ')}) differ from src/graphql/transaction.ts's (${TRANSACTION_KIND_NAMES.join(', ')}).`,
    );
  for (const kind of TRANSACTION_KINDS) {
    const machine = [...STATES_BY_KIND[kind]].sort();
    const kit = [...TRANSACTION_STATES_BY_KIND[kind]].sort();
    if (!same(machine, kit))
      throw new Error(
        `The states of ${kind} (${machine.join(', ')}) differ from src/graphql/transaction.ts's (${kit.join(', ')}).`,
      );
  }
}
checkKitLists();

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

// The Transaction interface's fields that read the events (the rest are the kit's).
builder.interfaceFields(TransactionRef, (t) => ({
  kind: t.field({
    type: TransactionKindEnum,
    description: 'Which kind of transaction this is (its type, as a value).',
    resolve: (row) => objectKindOf(row.id) as TransactionKind,
  }),
  timeline: t.field({
    type: [TimelineEntryRef],
    description: 'Every state change, oldest first, from the events (creation included).',
    resolve: (row, _args, ctx) => {
      const svc = serviceContext(ctx);
      return timelineOf(svc.tx ?? svc.db, svc.merchant.id, row.id);
    },
  }),
}));
