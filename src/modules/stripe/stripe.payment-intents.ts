import { eq } from 'drizzle-orm';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { formatDecimal } from '../../kernel/money.ts';
import { newLinkSecret } from '../../kernel/secrets.ts';
import { createCardPayment } from '../card-payments/card-payments.authorize.ts';
import { captureCardPayment, voidCardPayment } from '../card-payments/card-payments.capture.ts';
import { getCardPayment } from '../card-payments/card-payments.read.ts';
import { completeCardPayment3ds } from '../card-payments/card-payments.three-ds.ts';
import { inContextTx, type ServiceContext, type Tx } from '../context.ts';
import { findCustomer, mergedMetadata } from './stripe.customers.rows.ts';
import { StripeError, unexpectedState } from './stripe.errors.ts';
import { insertIntent, recordIntentCanceled } from './stripe.events.ts';
import { confirmAtOnce, createAtOnce, createConfirmedAtOnce } from './stripe.payment-intents.at-once.ts';
import {
  type ConfirmFields,
  chargeId,
  type IntentFields,
  type IntentStatus,
  type IntentView,
  intentStatus,
  load,
  paymentOf,
  pendingPaymentMethod,
} from './stripe.payment-intents.read.ts';
import { findMethod } from './stripe.saved-methods.ts';
import {
  checkOwner,
  checkParties,
  failOffSessionChallenge,
  savedForFuture,
} from './stripe.saved-methods.usage.ts';
import { type StripePaymentIntentRow, stripePaymentIntents } from './stripe.table.ts';

/**
 * PaymentIntents of the Stripe dialect: a row of its own until confirmed; each confirmation is a
 * card payment whose reference is the intent's id, its status read from the latest (`intentStatus`).
 */

export async function createIntent(
  ctx: ServiceContext,
  fields: IntentFields & { amount: bigint; currency: string },
  confirm: boolean,
): Promise<IntentView> {
  const now = ctx.clock.now();
  const id = newId('stripePaymentIntent');
  const row: StripePaymentIntentRow = {
    id,
    merchantId: ctx.merchant.id,
    amount: fields.amount,
    currency: fields.currency,
    captureMethod: fields.captureMethod ?? 'automatic',
    customerId: fields.customer ?? null,
    paymentMethod: fields.paymentMethod ?? null,
    cardPaymentId: null,
    attemptPaymentMethod: null,
    description: fields.description ?? null,
    metadata: mergedMetadata({}, fields.metadata),
    receiptEmail: fields.receiptEmail ?? null,
    returnUrl: fields.returnUrl ?? null,
    clientSecret: `${id}_secret_${newLinkSecret().slice(0, 24)}`,
    canceledAt: null,
    cancellationReason: null,
    createdAt: now,
    updatedAt: now,
  };
  const atOnce = confirm ? await createConfirmedAtOnce(ctx, row, fields) : await createAtOnce(ctx, row);
  if (atOnce) return throwIfDeclined(atOnce);
  return inContextTx(ctx, async (tx) => {
    await checkParties(tx, ctx, row.customerId, row.paymentMethod);
    await insertIntent(tx, row);
    if (!confirm) return { row, payment: null };
    return confirmIn(tx, ctx, id, fields);
  }).then(throwIfDeclined);
}

/** A declined confirmation is kept (the attempt is the intent's latest charge), then answered 402. */
function throwIfDeclined(view: IntentView): IntentView {
  const payment = view.payment;
  if (payment?.state !== 'declined') return view;
  const authentication = view.authenticationRequired === true;
  throw new StripeError(
    402,
    {
      type: 'card_error',
      code: authentication ? 'authentication_required' : 'card_declined',
      declineCode: authentication ? 'authentication_required' : (payment.declineCode ?? 'generic_decline'),
      message: authentication
        ? 'Your card was declined. This transaction requires authentication.'
        : (payment.failureMessage ?? 'Your card was declined.'),
      charge: chargeId(payment.id),
      paymentIntentId: view.row.id,
    },
    true,
  );
}

async function confirmIn(
  tx: Tx,
  ctx: ServiceContext,
  id: string,
  fields: ConfirmFields,
): Promise<IntentView> {
  const inTx = { ...ctx, tx };
  const row = await load(ctx, id, tx);
  const view = { row, payment: await paymentOf(inTx, row) };
  const status = intentStatus(view);
  if (status !== 'requires_payment_method' && status !== 'requires_confirmation')
    throw unexpectedState(
      'payment_intent_unexpected_state',
      status === 'succeeded'
        ? 'You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed.'
        : `You cannot confirm this PaymentIntent because it has a status of ${status}.`,
    );
  const method = fields.paymentMethod ?? pendingPaymentMethod(view);
  if (!method)
    throw unexpectedState(
      'payment_intent_unexpected_state',
      "You cannot confirm this PaymentIntent because it's missing a payment method. Update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.",
    );
  const resolved = await findMethod(ctx, method, { param: 'payment_method', tx });
  checkOwner(resolved, row.customerId);
  const card = resolved.card;
  const captureMethod = fields.captureMethod ?? row.captureMethod;
  let paymentId: string;
  try {
    paymentId = (
      await createCardPayment(inTx, {
        amount: formatDecimal(row.amount, 'USD'),
        currency: 'USD',
        card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc },
        capture: captureMethod === 'automatic',
        reference: row.id,
        ...(row.description ? { description: row.description.slice(0, 1000) } : {}),
        metadata: row.metadata,
      })
    ).id;
  } catch (error) {
    if (!(error instanceof SandbankError && error.code === 'card_declined' && error.objectId)) throw error;
    paymentId = error.objectId;
  }
  let payment = await getCardPayment(inTx, paymentId);
  const challenged = payment.state === 'requires_action';
  if (fields.offSession) payment = await failOffSessionChallenge(inTx, payment);
  const used = await savedForFuture(tx, ctx, method, row.customerId, payment, fields.setupFutureUsage);
  const [updated] = await tx
    .update(stripePaymentIntents)
    .set({
      cardPaymentId: paymentId,
      paymentMethod: used,
      attemptPaymentMethod: used,
      captureMethod,
      ...(fields.returnUrl !== undefined ? { returnUrl: fields.returnUrl } : {}),
      updatedAt: ctx.clock.now(),
    })
    .where(eq(stripePaymentIntents.id, row.id))
    .returning();
  return {
    row: updated ?? row,
    payment,
    setupFutureUsage: fields.setupFutureUsage ?? null,
    authenticationRequired: fields.offSession === true && challenged && payment.state === 'declined',
  };
}

export async function confirmIntent(
  ctx: ServiceContext,
  id: string,
  fields: ConfirmFields,
): Promise<IntentView> {
  const atOnce = await confirmAtOnce(ctx, id, fields);
  if (atOnce) return throwIfDeclined(atOnce);
  return inContextTx(ctx, (tx) => confirmIn(tx, ctx, id, fields)).then(throwIfDeclined);
}

export async function updateIntent(
  ctx: ServiceContext,
  id: string,
  fields: IntentFields,
): Promise<IntentView> {
  return inContextTx(ctx, async (tx) => {
    const row = await load(ctx, id, tx);
    const view = { row, payment: await paymentOf({ ...ctx, tx }, row) };
    const status = intentStatus(view);
    const open = status === 'requires_payment_method' || status === 'requires_confirmation';
    const payable = ['amount', 'currency', 'captureMethod', 'paymentMethod', 'customer'] as const;
    const touched = payable.find((key) => fields[key] !== undefined);
    if (touched && !open)
      throw unexpectedState(
        'payment_intent_unexpected_state',
        `You cannot update this PaymentIntent's ${touched === 'captureMethod' ? 'capture_method' : touched === 'paymentMethod' ? 'payment_method' : touched} because it has a status of ${status}.`,
      );
    if (fields.customer !== undefined) await findCustomer(ctx, fields.customer, { param: 'customer', tx });
    // A new payment method, or the one it has under a new customer, must be usable by its customer.
    const method = fields.paymentMethod ?? (fields.customer !== undefined ? row.paymentMethod : null);
    if (method)
      checkOwner(
        await findMethod(ctx, method, { param: 'payment_method', tx }),
        fields.customer ?? row.customerId,
      );
    const [updated] = await tx
      .update(stripePaymentIntents)
      .set({
        ...(fields.amount !== undefined ? { amount: fields.amount } : {}),
        ...(fields.currency !== undefined ? { currency: fields.currency } : {}),
        ...(fields.captureMethod !== undefined ? { captureMethod: fields.captureMethod } : {}),
        ...(fields.paymentMethod !== undefined ? { paymentMethod: fields.paymentMethod } : {}),
        ...(fields.customer !== undefined ? { customerId: fields.customer } : {}),
        ...(fields.description !== undefined ? { description: fields.description } : {}),
        ...(fields.receiptEmail !== undefined ? { receiptEmail: fields.receiptEmail } : {}),
        metadata: mergedMetadata(row.metadata, fields.metadata),
        updatedAt: ctx.clock.now(),
      })
      .where(eq(stripePaymentIntents.id, row.id))
      .returning();
    return { row: updated ?? row, payment: view.payment };
  });
}

export async function captureIntent(
  ctx: ServiceContext,
  id: string,
  amountToCapture: bigint | undefined,
): Promise<IntentView> {
  return inContextTx(ctx, async (tx) => {
    const inTx = { ...ctx, tx };
    const row = await load(ctx, id, tx);
    const payment = await paymentOf(inTx, row);
    const status = intentStatus({ row, payment });
    if (status !== 'requires_capture' || !payment)
      throw unexpectedState(
        'payment_intent_unexpected_state',
        `This PaymentIntent could not be captured because it has a status of ${status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
      );
    if (amountToCapture === 0n)
      throw new StripeError(400, {
        type: 'invalid_request_error',
        code: 'amount_too_small',
        param: 'amount_to_capture',
        message: 'The amount to capture must be at least 1 (a PaymentIntent is canceled to release it all).',
      });
    if (amountToCapture !== undefined && amountToCapture > payment.amount)
      throw new StripeError(400, {
        type: 'invalid_request_error',
        code: 'amount_too_large',
        param: 'amount_to_capture',
        message: `The amount to capture (${amountToCapture}) is more than the amount capturable (${payment.amount}).`,
      });
    const captured = await captureCardPayment(
      inTx,
      payment.id,
      amountToCapture === undefined ? {} : { amount: formatDecimal(amountToCapture, 'USD') },
    );
    return { row, payment: captured };
  });
}

const CANCELABLE: readonly IntentStatus[] = [
  'requires_payment_method',
  'requires_capture',
  'requires_confirmation',
  'requires_action',
];

export async function cancelIntent(
  ctx: ServiceContext,
  id: string,
  reason: string | undefined,
): Promise<IntentView> {
  return inContextTx(ctx, async (tx) => {
    const inTx = { ...ctx, tx };
    const row = await load(ctx, id, tx);
    let payment = await paymentOf(inTx, row);
    const status = intentStatus({ row, payment });
    if (!CANCELABLE.includes(status))
      throw unexpectedState(
        'payment_intent_unexpected_state',
        `You cannot cancel this PaymentIntent because it has a status of ${status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(', ')}.`,
      );
    if (payment && status === 'requires_capture') payment = await voidCardPayment(inTx, payment.id);
    else if (payment && status === 'requires_action') {
      try {
        payment = await completeCardPayment3ds(inTx, payment.id, { outcome: 'fail' });
      } catch (error) {
        if (!(error instanceof SandbankError && error.code === 'card_declined')) throw error;
        payment = await getCardPayment(inTx, payment.id);
      }
    }
    const [updated] = await tx
      .update(stripePaymentIntents)
      .set({ canceledAt: ctx.clock.now(), cancellationReason: reason ?? null, updatedAt: ctx.clock.now() })
      .where(eq(stripePaymentIntents.id, row.id))
      .returning();
    const canceled = { row: updated ?? row, payment };
    await recordIntentCanceled(tx, canceled);
    return canceled;
  });
}
