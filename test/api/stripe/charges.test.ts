/**
 * Stripe's legacy Charges API through the official SDK: a charge from a test token, captured at once
 * or later, a declined one, and the list — each a native card payment.
 */
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { refusal, stripeDialect } from '../../support/stripe.ts';

const { t, client } = stripeDialect();

describe('legacy charges with test tokens', () => {
  it('charges tok_visa at once, and tok_mastercard authorized then captured in part', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const charge = await stripe.charges.create({
      amount: 12550,
      currency: 'usd',
      source: 'tok_visa',
      description: 'Order 7',
      metadata: { order: '7' },
    });
    expect(charge).toMatchObject({
      object: 'charge',
      amount: 12550,
      amount_captured: 12550,
      captured: true,
      paid: true,
      status: 'succeeded',
      payment_intent: null,
      description: 'Order 7',
      metadata: { order: '7' },
      payment_method_details: { card: { brand: 'visa', last4: '4242' } },
    });
    const native = await t.get(m, `/v1/card_payments/cp_${charge.id.slice(3)}`);
    expect(native.body).toMatchObject({ state: 'captured', amount: 125.5 });

    const held = await stripe.charges.create({
      amount: 5000,
      currency: 'usd',
      source: 'tok_mastercard',
      capture: false,
    });
    expect(held).toMatchObject({ captured: false, amount_captured: 0, status: 'succeeded' });
    const captured = await stripe.charges.capture(held.id, { amount: 3000 });
    expect(captured).toMatchObject({ captured: true, amount_captured: 3000 });
    const again = await refusal(stripe.charges.capture(held.id));
    expect(again).toMatchObject({ statusCode: 400, code: 'charge_already_captured' });

    const listed = await stripe.charges.list({ limit: 10 });
    expect(listed.data.map((each) => each.id)).toEqual([held.id, charge.id]);
  });

  it('a declining token is a card error naming its charge; an unknown token is refused, writing nothing', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const declined = await refusal(
      stripe.charges.create({ amount: 900, currency: 'usd', source: 'tok_chargeDeclinedInsufficientFunds' }),
    );
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({
      code: 'card_declined',
      decline_code: 'insufficient_funds',
      statusCode: 402,
    });
    const chargeId = (declined.raw as { charge?: string }).charge as string;
    expect(await stripe.charges.retrieve(chargeId)).toMatchObject({
      status: 'failed',
      paid: false,
      failure_code: 'card_declined',
    });
    const unknown = await refusal(
      stripe.charges.create({ amount: 900, currency: 'usd', source: 'tok_nothing' }),
    );
    expect(unknown).toMatchObject({ type: 'StripeInvalidRequestError', param: 'source' });
    const noSource = await refusal(stripe.charges.create({ amount: 900, currency: 'usd' }));
    expect(noSource).toMatchObject({ code: 'parameter_missing', param: 'source' });
    expect((await stripe.charges.list()).data.map((each) => each.id)).toEqual([chargeId]);
  });
});
