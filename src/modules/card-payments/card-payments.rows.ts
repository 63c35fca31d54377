import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import type { EventInput } from '../../db/outbox.ts';
import { objectEvent } from '../../db/outbox.ts';
import { type StatefulKind, step } from '../../db/step.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ServiceContext } from '../context.ts';
import { followAcquirer } from '../issuing/issuing.closed-loop.ts';
import { type CardPaymentEvent, type CardPaymentState, cardPaymentMachine } from './card-payments.machine.ts';
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

/** One payment of the context's merchant (404 when it has none by this id); `lock`: FOR UPDATE. */
export async function loadPayment(
  exec: Executor,
  ctx: ServiceContext,
  id: string,
  lock = false,
): Promise<CardPaymentRow> {
  const query = exec.select().from(cardPayments).where(paymentOf(ctx, id));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw noSuchPayment(id);
  return row;
}

/** The merchant's payment `id`; throws 404 for an id no payment can have. */
export function paymentOf(ctx: ServiceContext, id: string): SQL | undefined {
  // Postgres text cannot hold U+0000: such an id names no payment (a 404, not a 500).
  if (id.includes('\u0000'))
    throw new SandbankError('resource_not_found', { message: 'No such card payment.' });
  return and(eq(cardPayments.id, id), eq(cardPayments.merchantId, ctx.merchant.id));
}

export function noSuchPayment(id: string): SandbankError {
  return new SandbankError('resource_not_found', { message: `No card payment ${id.slice(0, 60)}.` });
}

/**
 * A payment's event (`card_payment.<state>`, on arriving in it), with the payment as it is now. Only
 * refunds change a payment that has refunds, so every other step renders an empty refund list
 * without reading it.
 */
export function cardPaymentEvent(
  row: CardPaymentRow,
  publicUrl: string,
  refunds: RefundRow[] = [],
): EventInput {
  return objectEvent(row, `card_payment.${row.state}`, cardPaymentResource(row, refunds, publicUrl));
}

/** Card payments as stateful objects, for step(). */
export const cardPaymentKind: StatefulKind<CardPaymentRow, CardPaymentState, CardPaymentEvent> = {
  machine: cardPaymentMachine,
  table: cardPayments,
  event: cardPaymentEvent,
};

/** The two events of a payment made captured at once: authorized, then captured. */
export function capturedAtOnceEvents(ctx: ServiceContext, row: CardPaymentRow): EventInput[] {
  return [
    cardPaymentEvent({ ...row, state: 'authorized', amountCaptured: 0n }, ctx.publicUrl),
    cardPaymentEvent(row, ctx.publicUrl),
  ];
}

/** The steps that end an authorization uncaptured: the closed loop's issuing authorization is reversed with them. */
const RELEASING: ReadonlySet<CardPaymentEvent> = new Set(['void', 'expire', 'fail_3ds']);

/**
 * One step of the payment (step()); a void, an expiry or a failed challenge also reverses the
 * issuing authorization of a card this sandbox issued (the closed loop).
 */
export async function stepCardPayment(
  tx: Tx,
  ctx: ServiceContext,
  payment: CardPaymentRow,
  event: CardPaymentEvent,
  values: Partial<CardPaymentRow> = {},
): Promise<CardPaymentRow> {
  const moved = await step(tx, ctx, cardPaymentKind, payment, event, values);
  if (moved.issuingAuthorizationId && RELEASING.has(event))
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
