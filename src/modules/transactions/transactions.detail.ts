import { dbOf, type ServiceContext } from '../context.ts';
import { disputesOfPayment } from '../disputes/disputes.service.ts';
import {
  type EventRow,
  getEvent,
  listEvents,
  type TimelineEntry,
  timelineOf,
} from '../events/events.service.ts';
import { listBalanceTransactions } from '../ledger/ledger.queries.ts';
import type { PostingRow } from '../ledger/ledger.rows.ts';
import { type DeliveryLog, listDeliveries } from '../webhooks/webhooks.log.ts';
import { allowedActions, type TransactionAction } from './transactions.actions.ts';
import { getTransaction, type TransactionDetail } from './transactions.service.ts';

// The actions, where the dashboard's detail page imports them from.
export {
  type ActionBody,
  allowedActions,
  isTransactionAction,
  performTransactionAction,
  TRANSACTION_ACTIONS,
  type TransactionAction,
} from './transactions.actions.ts';
export { transactionStates } from './transactions.states.ts';

/**
 * One transaction with everything a person debugging it wants on one page (the dashboard's detail
 * page): its state timeline, the ledger postings it caused, its events with each webhook delivery
 * and attempt, and the operations its state allows. Each part is also reachable on its own over
 * the API (GET /v1/transactions/{id}, /v1/balance_transactions?source_id=, /v1/events?object_id=,
 * /v1/events/{id}/deliveries).
 */

/** The objects whose postings are this transaction's: itself, its refunds, a collection's payments. */
export function ledgerSourcesOf(tx: TransactionDetail, disputeIds: readonly string[] = []): string[] {
  switch (tx.kind) {
    case 'card_payment':
      return [tx.row.id, ...tx.row.refunds.map((refund) => refund.id), ...disputeIds];
    case 'collection':
      return [
        tx.row.id,
        ...tx.row.cardPayments.flatMap((payment) => [payment.id, ...payment.refunds.map((r) => r.id)]),
        ...tx.row.debits.map((debit) => debit.id),
      ];
    default:
      return [tx.row.id];
  }
}

export interface EventWithDeliveries {
  event: EventRow;
  deliveries: DeliveryLog[];
}

/** An event with its webhook deliveries and their attempts (GET /v1/events/{id} and …/deliveries). */
export async function getEventWithDeliveries(ctx: ServiceContext, id: string): Promise<EventWithDeliveries> {
  const event = await getEvent(ctx, id);
  return { event, deliveries: await listDeliveries(ctx, event.id) };
}

export interface TransactionView {
  transaction: TransactionDetail;
  timeline: TimelineEntry[];
  postings: PostingRow[];
  /** Newest first. */
  events: EventWithDeliveries[];
  actions: TransactionAction[];
}

/** At most this many postings and events are shown (the API pages through more). */
export const VIEW_LIMIT = 100;

/** A transaction of any kind with its timeline, postings, events and deliveries, and allowed actions. */
export async function getTransactionView(ctx: ServiceContext, id: string): Promise<TransactionView> {
  const transaction = await getTransaction(ctx, id);
  const exec = dbOf(ctx);
  const disputeIds =
    transaction.kind === 'card_payment' && transaction.row.disputeId !== null
      ? (await disputesOfPayment(exec, ctx.merchant.id, transaction.row.id)).map((row) => row.id)
      : [];
  const [timeline, postings, events] = await Promise.all([
    timelineOf(exec, ctx.merchant.id, transaction.row.id),
    listBalanceTransactions(ctx, { limit: VIEW_LIMIT, source_ids: ledgerSourcesOf(transaction, disputeIds) }),
    listEvents(ctx, { limit: VIEW_LIMIT, object_id: transaction.row.id }),
  ]);
  const withDeliveries = await Promise.all(
    events.data.map(async (event) => ({ event, deliveries: await listDeliveries(ctx, event.id) })),
  );
  return {
    transaction,
    timeline,
    postings: postings.data,
    events: withDeliveries,
    actions: allowedActions(transaction),
  };
}
