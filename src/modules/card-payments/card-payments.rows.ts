import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { transitionRow } from '../../db/compare-and-set.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ServiceContext } from '../context.ts';
import { type EventInput, recordEvent } from '../events/events.service.ts';
import { followAcquirer } from '../issuing/issuing.closed-loop.ts';
import { type CardPaymentEvent, cardPaymentMachine } from './card-payments.machine.ts';
import { type CardPaymentRow, cardPaymentResource, type RefundRow } from './card-payments.resource.ts';
import { cardPayments, cardRefunds } from './card-payments.table.ts';

export interface CardPaymentDetail extends CardPaymentRow {
  refunds: RefundRow[];
}

/** The refunds of card payments, oldest first, by payment id (every id present, maybe empty). */
export async function refundsOf(exec: Executor, paymentIds: string[]): Promise<Map<string, RefundRow[]>> {
  const byPayment = new Map<string, RefundRow[]>(paymentIds.map((id) => [id, []]));
  if (paymentIds.length === 0) return byPayment;
  const rows = await exec
    .select()
    .from(cardRefunds)
    .where(inArray(cardRefunds.cardPaymentId, paymentIds))
    .orderBy(asc(cardRefunds.id));
  for (const row of rows) byPayment.get(row.cardPaymentId)?.push(row);
  return byPayment;
}

export async function withRefunds(exec: Executor, row: CardPaymentRow): Promise<CardPaymentDetail> {
  return { ...row, refunds: (await refundsOf(exec, [row.id])).get(row.id) ?? [] };
}

export async function loadPayment(exec: Executor, ctx: ServiceContext, id: string): Promise<CardPaymentRow> {
  // Postgres text cannot hold U+0000: such an id names no payment (a 404, not a 500).
  if (id.includes('\u0000'))
    throw new SandbankError('resource_not_found', { message: 'No such card payment.' });
  const [row] = await exec
    .select()
    .from(cardPayments)
    .where(and(eq(cardPayments.id, id), eq(cardPayments.merchantId, ctx.merchant.id)));
  if (!row) throw new SandbankError('resource_not_found', { message: `No card payment ${id.slice(0, 60)}.` });
  return row;
}

export function paymentEvent(ctx: ServiceContext, row: CardPaymentRow, refunds: RefundRow[]): EventInput {
  return {
    merchantId: row.merchantId,
    type: `card_payment.${row.state}`,
    objectId: row.id,
    data: { object: cardPaymentResource(row, refunds, ctx.publicUrl) },
    at: row.updatedAt,
  };
}

/**
 * The payment's event with the object after the change. Only refunds change a payment that has
 * refunds, so every other transition renders an empty refund list without reading it.
 */
export async function emitPaymentEvent(
  tx: Tx,
  ctx: ServiceContext,
  row: CardPaymentRow,
  refunds: RefundRow[] = [],
): Promise<void> {
  await recordEvent(tx, paymentEvent(ctx, row, refunds));
}

/** The two events of a payment made captured at once: authorized, then captured. */
export function capturedAtOnceEvents(ctx: ServiceContext, row: CardPaymentRow): EventInput[] {
  return [
    paymentEvent(ctx, { ...row, state: 'authorized', amountCaptured: 0n }, []),
    paymentEvent(ctx, row, []),
  ];
}

/**
 * One step of the payment's state machine, as a compare-and-set on its state (of two racing
 * requests exactly one moves it; the other gets invalid_state naming the state it found), with
 * the event in the same transaction.
 */
export async function move(
  tx: Tx,
  ctx: ServiceContext,
  payment: CardPaymentRow,
  event: CardPaymentEvent,
  values: Partial<CardPaymentRow> = {},
): Promise<CardPaymentRow> {
  const moved = await transitionRow(tx, cardPaymentMachine, cardPayments, payment, event, {
    ...values,
    updatedAt: ctx.clock.now(),
  });
  await emitPaymentEvent(tx, ctx, moved);
  if (moved.issuingAuthorizationId && (event === 'void' || event === 'expire' || event === 'fail_3ds'))
    await followAcquirer(tx, ctx, moved.issuingAuthorizationId, { kind: 'reverse' });
  return moved;
}

/** A declined payment exists (committed, with its event); the request still ends in 402. */
export function throwIfDeclined(payment: CardPaymentRow): void {
  if (payment.state !== 'declined') return;
  throw new SandbankError('card_declined', {
    message: payment.failureMessage ?? 'The card was declined.',
    declineCode: payment.declineCode ?? 'generic_decline',
    objectId: payment.id,
    commitWrites: true,
  });
}
