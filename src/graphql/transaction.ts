import type { CurrencyCode } from '../kernel/currency.ts';
import { objectKindOf } from '../modules/events/events.kinds.ts';
import { type TimelineEntry, timelineOf } from '../modules/events/events.service.ts';
import { builder } from './builder.ts';
import { serviceContext } from './context.ts';
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

const TimelineEntryRef = builder.objectRef<TimelineEntry>('TimelineEntry').implement({
  description: 'One state change of a transaction: the event that recorded it, at clock time.',
  fields: (t) => ({
    state: t.exposeString('state'),
    eventType: t.exposeString('eventType'),
    eventId: t.exposeID('eventId'),
    at: t.field({ type: 'DateTime', resolve: (entry) => entry.at }),
  }),
});

/**
 * What every money-moving object has in common, so one list (the `transactions`
 * connection, a dashboard) can show them all. `state` is a String here because each kind has its
 * own states (its type's description lists them).
 */
export const TransactionRef = builder.interfaceRef<TransactionShape>('Transaction').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.string({
      description:
        'collection, card_payment, transfer, payout, issuing_authorization, fx_conversion or fx_settlement',
      resolve: (row) => objectKindOf(row.id) ?? 'unknown',
    }),
    state: t.exposeString('state'),
    amount: t.field({
      type: MoneyRef,
      resolve: (row) => ({ amount: row.amount, currency: row.currency as CurrencyCode }),
    }),
    reference: t.exposeString('reference', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
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
