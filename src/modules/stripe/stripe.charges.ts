import { SandbankError } from '../../kernel/errors.ts';
import { formatDecimal } from '../../kernel/money.ts';
import { createCardPayment } from '../card-payments/card-payments.authorize.ts';
import { captureCardPayment } from '../card-payments/card-payments.capture.ts';
import { getCardPayment } from '../card-payments/card-payments.read.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import { invalidParam, StripeError, unexpectedState } from './stripe.errors.ts';
import { chargeId } from './stripe.payment-intents.read.ts';
import { testPaymentMethod, testTokenMethod } from './stripe.payment-methods.ts';

/**
 * Stripe's legacy Charges API: a charge made at once from a test token (`source=tok_visa`), without
 * a PaymentIntent — a native card payment, as every charge is.
 */

export interface LegacyChargeInput {
  amount: bigint;
  source: string;
  capture: boolean;
  description?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

export async function createLegacyCharge(
  ctx: ServiceContext,
  input: LegacyChargeInput,
): Promise<CardPaymentDetail> {
  const method = testTokenMethod(input.source);
  if (!method)
    throw invalidParam(
      'source',
      `No such token: '${input.source}'. Sandbank's Stripe dialect charges Stripe's test tokens (tok_visa, tok_chargeDeclined, …).`,
      'resource_missing',
    );
  const card = testPaymentMethod(method, ctx.clock.now(), 'source');
  try {
    return await createCardPayment(ctx, {
      amount: formatDecimal(input.amount, 'USD'),
      currency: 'USD',
      card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc },
      capture: input.capture,
      ...(input.description ? { description: input.description.slice(0, 1000) } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
    });
  } catch (error) {
    if (!(error instanceof SandbankError && error.code === 'card_declined' && error.objectId)) throw error;
    throw new StripeError(
      402,
      {
        type: 'card_error',
        code: 'card_declined',
        declineCode: error.declineCode ?? 'generic_decline',
        message: error.message,
        charge: chargeId(error.objectId),
      },
      true,
    );
  }
}

/** Captures an uncaptured charge (`capture=false`), in full or `amount` of it. */
export async function captureLegacyCharge(
  ctx: ServiceContext,
  paymentId: string,
  amount: bigint | undefined,
): Promise<CardPaymentDetail> {
  return inContextTx(ctx, async (tx) => {
    const inTx = { ...ctx, tx };
    const payment = await getCardPayment(inTx, paymentId);
    if (payment.state !== 'authorized')
      throw unexpectedState(
        payment.amountCaptured > 0n ? 'charge_already_captured' : 'charge_not_capturable',
        `Charge ${chargeId(payment.id)} has ${payment.amountCaptured > 0n ? 'already been captured' : `a state of ${payment.state} and cannot be captured`}.`,
      );
    if (amount !== undefined && amount > payment.amount)
      throw invalidParam(
        'amount',
        `The amount to capture (${amount}) is more than the charge's (${payment.amount}).`,
        'amount_too_large',
      );
    return captureCardPayment(
      inTx,
      payment.id,
      amount === undefined ? {} : { amount: formatDecimal(amount, 'USD') },
    );
  });
}
