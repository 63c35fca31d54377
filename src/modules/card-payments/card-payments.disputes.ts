import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import { addSeconds } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ServiceContext } from '../context.ts';
import { jobValues } from '../scheduler/scheduler.service.ts';
import type { CardPaymentRow } from './card-payments.resource.ts';
import { cardPaymentEvent, loadPayment, refundsOf } from './card-payments.rows.ts';
import { cardPayments } from './card-payments.table.ts';

/**
 * A card payment's side of its disputes (the dispute itself is the disputes module's): the magic
 * cards' dispute job, whether a payment may be disputed, marking it disputed, and the issuer's
 * early fraud warning.
 */

/**
 * The job a magic dispute card's capture schedules (…0259, …2685, …1976, …5423): a day of clock
 * time later the dispute opens, or the early fraud warning arrives (its handler is the disputes
 * module's, named in the disputes manifest, disputes/index.ts).
 */
export const MAGIC_DISPUTE_JOB = 'card_payment.magic_dispute';

/** How long after the capture the magic card's dispute or warning arrives: one day of clock time. */
export const MAGIC_DISPUTE_DELAY_SECONDS = 86_400;

/** The job that opens a magic card's dispute a day after `capturedAt`; none for any other card. */
export function magicDisputeJobs(payment: CardPaymentRow, capturedAt: Date) {
  if (payment.disputeBehavior === null) return [];
  return [
    jobValues({
      merchantId: payment.merchantId,
      kind: MAGIC_DISPUTE_JOB,
      objectId: payment.id,
      dueAt: addSeconds(capturedAt, MAGIC_DISPUTE_DELAY_SECONDS),
      payload: { behavior: payment.disputeBehavior },
      createdAt: capturedAt,
    }),
  ];
}

/** The payment states a dispute may be opened in: captured, with something not yet refunded. */
const DISPUTABLE: readonly CardPaymentRow['state'][] = ['captured', 'partially_refunded'];

/** What of a payment is captured, not refunded and not disputed yet: what a new dispute may claim. */
export function undisputedAmount(payment: CardPaymentRow): bigint {
  return payment.amountCaptured - payment.amountRefunded - payment.amountDisputed;
}

/** Whether the cardholder may still dispute the payment: captured, with something neither refunded nor disputed. */
export function isDisputable(payment: CardPaymentRow): boolean {
  return DISPUTABLE.includes(payment.state) && undisputedAmount(payment) > 0n;
}

/** Refused (409) unless the payment is captured and something of it is neither refunded nor disputed. */
export function checkDisputable(payment: CardPaymentRow): void {
  if (!DISPUTABLE.includes(payment.state))
    throw new SandbankError('invalid_state', {
      message: `A dispute needs a captured payment with something not refunded; this one is ${payment.state}.`,
    });
  if (undisputedAmount(payment) <= 0n)
    throw new SandbankError('invalid_state', {
      message: `All of this card payment that is not refunded is already disputed (latest: ${payment.disputeId}).`,
    });
}

/**
 * Marks a payment disputed by `disputeId` for `amount`, in the caller's transaction (which holds
 * the payment's row lock), before the dispute is written: one guarded UPDATE (still disputable,
 * that much neither refunded nor disputed) that names the payment's latest dispute and adds the
 * amount to what is disputed — 409 invalid_state when the payment is no longer disputable, else
 * 400 amount_invalid.
 */
export async function markDisputed(
  tx: Tx,
  ctx: ServiceContext,
  payment: CardPaymentRow,
  disputeId: string,
  amount: bigint,
): Promise<void> {
  const marked = await tx
    .update(cardPayments)
    .set({
      disputeId,
      amountDisputed: sql`${cardPayments.amountDisputed} + ${amount.toString()}::bigint`,
      updatedAt: ctx.clock.now(),
    })
    .where(
      and(
        eq(cardPayments.id, payment.id),
        inArray(cardPayments.state, [...DISPUTABLE]),
        sql`${cardPayments.amountCaptured} - ${cardPayments.amountRefunded} - ${cardPayments.amountDisputed} >= ${amount.toString()}::bigint`,
      ),
    )
    .returning({ id: cardPayments.id });
  if (marked.length > 0) return;
  checkDisputable(await loadPayment(tx, ctx, payment.id));
  throw new SandbankError('amount_invalid', {
    param: 'amount',
    message: 'The dispute would exceed what is captured and neither refunded nor disputed.',
  });
}

/** The payment a magic card's job names, whichever merchant's (null when it is gone); `lock`: FOR UPDATE. */
export async function paymentOfJob(exec: Executor, id: string, lock = false): Promise<CardPaymentRow | null> {
  const query = exec.select().from(cardPayments).where(eq(cardPayments.id, id));
  const [payment] = lock ? await query.for('update') : await query;
  return payment ?? null;
}

/**
 * The issuer's early fraud warning about a payment (magic card …5423), once: the payment is locked,
 * then the warning's time and its `card_payment.early_fraud_warning` event are one change.
 */
export async function warnEarlyFraud(tx: Tx, ctx: ServiceContext, paymentId: string): Promise<void> {
  const payment = await paymentOfJob(tx, paymentId, true);
  if (!payment || payment.earlyFraudWarningAt !== null) return;
  const now = ctx.clock.now();
  const warned: CardPaymentRow = { ...payment, earlyFraudWarningAt: now, updatedAt: now };
  const refunds = (await refundsOf(tx, [warned.id])).get(warned.id) ?? [];
  const event = {
    ...cardPaymentEvent(warned, ctx.publicUrl, refunds),
    type: 'card_payment.early_fraud_warning',
  };
  const set = { earlyFraudWarningAt: now, updatedAt: now };
  const update = { table: cardPayments, id: payment.id, expect: { earlyFraudWarningAt: null }, set };
  await commit({ db: ctx.db, tx }, change().update(update).event(event));
}
