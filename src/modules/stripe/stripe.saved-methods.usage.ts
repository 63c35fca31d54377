import { SandbankError } from '../../kernel/errors.ts';
import { getCardPayment } from '../card-payments/card-payments.read.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import { completeCardPayment3ds } from '../card-payments/card-payments.three-ds.ts';
import type { ServiceContext, Tx } from '../context.ts';
import { findCustomer } from './stripe.customers.rows.ts';
import { StripeError } from './stripe.errors.ts';
import { attachIn, findMethod, type MethodView } from './stripe.saved-methods.ts';

/**
 * How a PaymentIntent uses customers and saved payment methods: the customer must exist, a saved
 * payment method attached to a customer is only that customer's to use, `setup_future_usage`
 * saves the card to the customer after a successful confirmation, and `off_session` turns a card's
 * 3-D Secure challenge (nobody there to answer it) into a decline.
 */

/** A payment method attached to a customer is usable only by an intent for that customer. */
export function checkOwner(method: MethodView, customerId: string | null): void {
  const owner = method.saved?.customerId;
  if (owner && owner !== customerId)
    throw new StripeError(400, {
      type: 'invalid_request_error',
      param: 'payment_method',
      message: `The \`payment_method\` parameter supplied ${method.card.id} belongs to the Customer ${owner}. Please include the Customer in the \`customer\` parameter on the PaymentIntent.`,
    });
}

/** An intent's customer (it must exist, not deleted) and payment method (the customer's, if saved to one). */
export async function checkParties(
  tx: Tx,
  ctx: ServiceContext,
  customerId: string | null | undefined,
  paymentMethod: string | null | undefined,
): Promise<MethodView | null> {
  if (customerId) await findCustomer(ctx, customerId, { param: 'customer', tx });
  if (!paymentMethod) return null;
  const method = await findMethod(ctx, paymentMethod, { param: 'payment_method', tx });
  checkOwner(method, customerId ?? null);
  return method;
}

/**
 * After a confirmation with `setup_future_usage` that was not declined, the payment method the
 * intent now holds: the one used, attached to the intent's customer (a test id is saved as a new
 * payment method with its card). Without a customer, or after a decline, the one used.
 */
export async function savedForFuture(
  tx: Tx,
  ctx: ServiceContext,
  used: string,
  customerId: string | null,
  payment: CardPaymentDetail,
  setupFutureUsage: string | undefined,
): Promise<string> {
  if (!setupFutureUsage || !customerId || payment.state === 'declined') return used;
  return (await attachIn(tx, ctx, used, customerId)).id;
}

/**
 * An off-session attempt whose card asked for 3-D Secure: nobody can answer the challenge, so it
 * fails at once, as Stripe declines it (`authentication_required`).
 */
export async function failOffSessionChallenge(
  ctx: ServiceContext,
  payment: CardPaymentDetail,
): Promise<CardPaymentDetail> {
  if (payment.state !== 'requires_action') return payment;
  try {
    return await completeCardPayment3ds(ctx, payment.id, { outcome: 'fail' });
  } catch (error) {
    if (!(error instanceof SandbankError && error.code === 'card_declined')) throw error;
    return getCardPayment(ctx, payment.id);
  }
}
