import { and, eq } from 'drizzle-orm';
import type { Change } from '../../db/commit.ts';
import { newLinkSecret } from '../../kernel/secrets.ts';
import type { CardPaymentRow } from '../card-payments/card-payments.resource.ts';
import type { CollectionDetail } from '../collections/collections.service.ts';
import { inContextTx, type ServiceContext, type Tx } from '../context.ts';
import { type CheckoutSessionRow, checkoutStatus } from './stripe.checkout-render.ts';
import { stripeCheckoutSessions } from './stripe.objects.table.ts';
import { stripePaymentIntents } from './stripe.table.ts';

/**
 * A Checkout Session kept in step with its collection. The collection is created with the id of
 * the PaymentIntent its payment will be (`pi_…`) as its reference, so the card payment the hosted
 * page makes carries it (a charge names its intent by its reference). Once the collection is paid
 * by card, the intent's row is written over that card payment — a succeeded intent whose latest
 * charge is the collection's — and the session points at it: in the capture's own transaction
 * when the capture reaction is registered (recordCheckoutIntentOnCapture), else when the session
 * is next read (syncSession). The session's stored status follows the collection's.
 */

type PaidPayment = Pick<CardPaymentRow, 'id' | 'amount' | 'createdAt' | 'reference'>;

/** The card payment that paid a collection (captured; refunded later or not). */
function paidCardPayment(detail: CollectionDetail) {
  return detail.cardPayments.find(
    (payment) =>
      payment.state === 'captured' || payment.state === 'partially_refunded' || payment.state === 'refunded',
  );
}

/**
 * Writes the intent a session's paid collection stands for (once: a second writer finds it there)
 * and points the session at it, complete.
 */
async function writeIntent(
  tx: Tx,
  ctx: ServiceContext,
  session: CheckoutSessionRow,
  payment: PaidPayment,
  intentId: string,
): Promise<CheckoutSessionRow> {
  const now = ctx.clock.now();
  await tx
    .insert(stripePaymentIntents)
    .values({
      id: intentId,
      merchantId: ctx.merchant.id,
      amount: payment.amount,
      currency: session.currency,
      captureMethod: 'automatic',
      customerId: session.customerId,
      paymentMethod: null,
      cardPaymentId: payment.id,
      attemptPaymentMethod: null,
      description: null,
      metadata: {},
      receiptEmail: null,
      returnUrl: null,
      clientSecret: `${intentId}_secret_${newLinkSecret().slice(0, 24)}`,
      canceledAt: null,
      cancellationReason: null,
      createdAt: payment.createdAt,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: stripePaymentIntents.id });
  const [updated] = await tx
    .update(stripeCheckoutSessions)
    .set({ status: 'complete', paymentIntentId: intentId, updatedAt: now })
    .where(eq(stripeCheckoutSessions.id, session.id))
    .returning();
  return updated ?? session;
}

/**
 * The session as its collection now stands: its status written when it changed, and, once the
 * collection is paid by card, its PaymentIntent written.
 */
export async function syncSession(
  ctx: ServiceContext,
  session: CheckoutSessionRow,
  detail: CollectionDetail,
): Promise<CheckoutSessionRow> {
  const status = checkoutStatus(detail);
  const payment = status === 'complete' ? paidCardPayment(detail) : undefined;
  const intentId = detail.reference.startsWith('pi_') ? detail.reference : null;
  const needsIntent = payment !== undefined && intentId !== null && !session.paymentIntentId;
  if (!needsIntent && session.status === status) return session;
  return inContextTx(ctx, async (tx) => {
    if (needsIntent && payment && intentId) return writeIntent(tx, ctx, session, payment, intentId);
    const [updated] = await tx
      .update(stripeCheckoutSessions)
      .set({ status, updatedAt: ctx.clock.now() })
      .where(eq(stripeCheckoutSessions.id, session.id))
      .returning();
    return updated ?? session;
  });
}

/**
 * The capture reaction (to register in modules/reactions.ts with onCardPaymentCaptured): a card
 * payment of a session's collection was captured, so the session's PaymentIntent is written in the
 * capture's transaction — there before any event of the capture is rendered in Stripe's shape.
 */
export function recordCheckoutIntentOnCapture(
  work: Change,
  ctx: ServiceContext,
  captured: CardPaymentRow,
): void {
  const collectionId = captured.collectionId;
  const intentId = captured.reference;
  if (!collectionId || !intentId?.startsWith('pi_')) return;
  work.within(async (tx) => {
    const t = stripeCheckoutSessions;
    const [session] = await tx
      .select()
      .from(t)
      .where(and(eq(t.collectionId, collectionId), eq(t.merchantId, ctx.merchant.id)))
      .limit(1);
    if (session && !session.paymentIntentId) await writeIntent(tx, ctx, session, captured, intentId);
  });
}
