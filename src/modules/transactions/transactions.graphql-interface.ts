import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { enumOf } from '../../graphql/enums.ts';
import { NodeRef } from '../../graphql/node.ts';
import { MoneyRef } from '../../graphql/scalars.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { objectKindOf } from '../events/events.kinds.ts';
import { type TimelineEntry, timelineOf } from '../events/events.service.ts';
import type { TransactionKind } from './transactions.service.ts';
import { TransactionKindValues, TransactionStateValues } from './transactions.states.ts';

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
 * What every money-moving object has in common, so one list (the `transactions` connection, a
 * dashboard) can show them all. `state` is one enum across kinds: each kind uses some of its values
 * (its type's description lists them); `kind` and `timeline` read the events.
 */
TransactionRef.implement({
  description:
    'A money-moving object of any kind (collection, card payment, transfer, payout, issuing authorization, FX conversion or settlement), as the transactions list shows them.',
  interfaces: [NodeRef],
  fields: (t) => ({
    state: t.field({
      type: enumOf(TransactionStateValues),
      description: "Where it stands: one of its kind's states (the type's description lists them).",
      resolve: (row) => row.state as never,
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

    kind: t.field({
      type: enumOf(TransactionKindValues),
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
  }),
});
