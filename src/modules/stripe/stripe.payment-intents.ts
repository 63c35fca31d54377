import { eq } from 'drizzle-orm';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { formatDecimal } from '../../kernel/money.ts';
import { newLinkSecret } from '../../kernel/secrets.ts';
import { createCardPayment } from '../card-payments/card-payments.authorize.ts';
import { captureCardPayment, voidCardPayment } from '../card-payments/card-payments.capture.ts';
import { getCardPayment } from '../card-payments/card-payments.read.ts';
import { completeCardPayment3ds } from '../card-payments/card-payments.three-ds.ts';
import { dbOf, inContextTx, type ServiceContext, type Tx } from '../context.ts';
import { StripeError, unexpectedState } from './stripe.errors.ts';
import {
  chargeId,
  type IntentFields,
  type IntentStatus,
  type IntentView,
  intentStatus,
  load,
  paymentOf,
  pendingPaymentMethod,
} from './stripe.payment-intents.read.ts';
import { testPaymentMethod } from './stripe.payment-methods.ts';
import { type StripePaymentIntentRow, stripePaymentIntents } from './stripe.table.ts';

/**
 * PaymentIntents of the Stripe dialect. An intent is a row of its own until it is confirmed; each
 * confirmation is a card payment (the native API's, with the intent's id as its reference), and
 * the intent's status is read from the latest one (`intentStatus`). See docs/guide/stripe.md.
 */

function mergedMetadata(
  current: Record<string, string>,
  update: Record<string, string> | null | undefined,
): Record<string, string> {
  if (update === undefined) return current;
  if (update === null) return {};
  const merged = { ...current };
  for (const [key, value] of Object.entries(update)) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  if (Object.keys(merged).length > 50)
    throw new StripeError(400, {
      type: 'invalid_request_error',
      code: 'parameter_invalid_empty',
      param: 'metadata',
      message: 'You can have at most 50 metadata keys.',
    });
  return merged;
}

export async function createIntent(
  ctx: ServiceContext,
  fields: IntentFields & { amount: bigint; currency: string },
  confirm: boolean,
): Promise<IntentView> {
  if (fields.paymentMethod) testPaymentMethod(fields.paymentMethod, ctx.clock.now());
  const now = ctx.clock.now();
  const id = newId('stripePaymentIntent');
  const row: StripePaymentIntentRow = {
    id,
    merchantId: ctx.merchant.id,
    amount: fields.amount,
    currency: fields.currency,
    captureMethod: fields.captureMethod ?? 'automatic',
    customerId: null,
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
  if (!confirm) {
    await dbOf(ctx).insert(stripePaymentIntents).values(row);
    return { row, payment: null };
  }
  return inContextTx(ctx, async (tx) => {
    await tx.insert(stripePaymentIntents).values(row);
    return confirmIn(tx, ctx, id, {});
  }).then(throwIfDeclined);
}

/** A declined confirmation is kept (the attempt is the intent's latest charge), then answered 402. */
function throwIfDeclined(view: IntentView): IntentView {
  const payment = view.payment;
  if (payment?.state !== 'declined') return view;
  throw new StripeError(
    402,
    {
      type: 'card_error',
      code: 'card_declined',
      declineCode: payment.declineCode ?? 'generic_decline',
      message: payment.failureMessage ?? 'Your card was declined.',
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
  fields: Pick<IntentFields, 'paymentMethod' | 'returnUrl' | 'captureMethod'>,
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
  const card = testPaymentMethod(method, ctx.clock.now());
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
  const [updated] = await tx
    .update(stripePaymentIntents)
    .set({
      cardPaymentId: paymentId,
      paymentMethod: method,
      attemptPaymentMethod: method,
      captureMethod,
      ...(fields.returnUrl !== undefined ? { returnUrl: fields.returnUrl } : {}),
      updatedAt: ctx.clock.now(),
    })
    .where(eq(stripePaymentIntents.id, row.id))
    .returning();
  return { row: updated ?? row, payment: await getCardPayment(inTx, paymentId) };
}

export function confirmIntent(
  ctx: ServiceContext,
  id: string,
  fields: Pick<IntentFields, 'paymentMethod' | 'returnUrl' | 'captureMethod'>,
): Promise<IntentView> {
  if (fields.paymentMethod) testPaymentMethod(fields.paymentMethod, ctx.clock.now());
  return inContextTx(ctx, (tx) => confirmIn(tx, ctx, id, fields)).then(throwIfDeclined);
}

export async function updateIntent(
  ctx: ServiceContext,
  id: string,
  fields: IntentFields,
): Promise<IntentView> {
  if (fields.paymentMethod) testPaymentMethod(fields.paymentMethod, ctx.clock.now());
  return inContextTx(ctx, async (tx) => {
    const row = await load(ctx, id, tx);
    const view = { row, payment: await paymentOf({ ...ctx, tx }, row) };
    const status = intentStatus(view);
    const open = status === 'requires_payment_method' || status === 'requires_confirmation';
    const payable = ['amount', 'currency', 'captureMethod', 'paymentMethod'] as const;
    const touched = payable.find((key) => fields[key] !== undefined);
    if (touched && !open)
      throw unexpectedState(
        'payment_intent_unexpected_state',
        `You cannot update this PaymentIntent's ${touched === 'captureMethod' ? 'capture_method' : touched === 'paymentMethod' ? 'payment_method' : touched} because it has a status of ${status}.`,
      );
    const [updated] = await tx
      .update(stripePaymentIntents)
      .set({
        ...(fields.amount !== undefined ? { amount: fields.amount } : {}),
        ...(fields.currency !== undefined ? { currency: fields.currency } : {}),
        ...(fields.captureMethod !== undefined ? { captureMethod: fields.captureMethod } : {}),
        ...(fields.paymentMethod !== undefined ? { paymentMethod: fields.paymentMethod } : {}),
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
    return { row: updated ?? row, payment };
  });
}
