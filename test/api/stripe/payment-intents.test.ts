/**
 * The Stripe dialect driven by the official `stripe` SDK, unchanged but for its host, port and
 * protocol: PaymentIntents with each kind of test card, manual capture, refunds, charges, lists and
 * auto-pagination, errors and idempotency — and the same payments seen through the native API.
 */
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { signedIn } from '../../support/dashboard.ts';
import type { TestMerchant } from '../../support/harness.ts';
import { expectLedgerBalanced } from '../../support/ledger.ts';
import { refusal, stripeDialect } from '../../support/stripe.ts';

const { t, client, port } = stripeDialect();

describe('PaymentIntents through the stripe SDK', () => {
  it('creates and confirms with pm_card_visa: succeeded, its charge captured, seen natively', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const created = await stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      automatic_payment_methods: { enabled: true },
      metadata: { order_id: '6735' },
    });
    expect(created).toMatchObject({
      object: 'payment_intent',
      amount: 2000,
      currency: 'usd',
      status: 'requires_payment_method',
      capture_method: 'automatic',
      metadata: { order_id: '6735' },
      livemode: false,
      latest_charge: null,
    });
    expect(created.id).toMatch(/^pi_/);
    expect(created.client_secret).toMatch(new RegExp(`^${created.id}_secret_`));
    const confirmed = await stripe.paymentIntents.confirm(created.id, {
      payment_method: 'pm_card_visa',
      expand: ['latest_charge'],
    });
    expect(confirmed).toMatchObject({
      status: 'succeeded',
      amount_received: 2000,
      payment_method: 'pm_card_visa',
    });
    const charge = confirmed.latest_charge as Stripe.Charge;
    expect(charge).toMatchObject({
      object: 'charge',
      amount: 2000,
      amount_captured: 2000,
      captured: true,
      paid: true,
      status: 'succeeded',
      payment_intent: created.id,
      payment_method: 'pm_card_visa',
      payment_method_details: { type: 'card', card: { brand: 'visa', last4: '4242' } },
    });
    // The same payment, natively: a card payment of 20.00 USD referencing the intent.
    const native = await t.get(m, `/v1/card_payments/cp_${charge.id.slice(3)}`);
    expect(native.status, native.text).toBe(200);
    expect(native.body).toMatchObject({ state: 'captured', reference: created.id });
    expect(await stripe.charges.retrieve(charge.id)).toMatchObject({ id: charge.id, amount_captured: 2000 });
    // The dashboard shows it as the card payment it is, naming the intent; the ledger balances.
    const browser = await signedIn(() => t, m);
    const page = await browser.get(`/dashboard/transactions/cp_${charge.id.slice(3)}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<span data-testid="reference">${created.id}</span>`);
    await expectLedgerBalanced(t.database.db, m.id);
  });

  it('declines with a card_error (402, decline_code, charge, payment_intent) and takes another card', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const intent = await stripe.paymentIntents.create({ amount: 1500, currency: 'usd' });
    const error = await refusal(
      stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_chargeDeclinedInsufficientFunds' }),
    );
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({
      statusCode: 402,
      code: 'card_declined',
      decline_code: 'insufficient_funds',
    });
    expect(error.raw).toMatchObject({ charge: expect.stringMatching(/^ch_/) });
    expect(error.payment_intent).toMatchObject({ id: intent.id, status: 'requires_payment_method' });
    expect(error.requestId).toMatch(/^req_/);
    const after = await stripe.paymentIntents.retrieve(intent.id);
    expect(after).toMatchObject({
      status: 'requires_payment_method',
      payment_method: null,
      last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' },
    });
    const retried = await stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_mastercard' });
    expect(retried).toMatchObject({ status: 'succeeded', last_payment_error: null, amount_received: 1500 });
    expect(retried.latest_charge).not.toBe((error.raw as { charge?: string }).charge);
  });

  it.each([
    ['pm_card_visa_chargeDeclined', 'generic_decline'],
    ['pm_card_chargeDeclinedLostCard', 'lost_card'],
    ['pm_card_chargeDeclinedStolenCard', 'stolen_card'],
    ['pm_card_chargeDeclinedExpiredCard', 'expired_card'],
    ['pm_card_chargeDeclinedIncorrectCvc', 'incorrect_cvc'],
    ['pm_card_chargeDeclinedProcessingError', 'processing_error'],
  ])('%s declines with %s', async (method, declineCode) => {
    const stripe = client(await t.merchant());
    const error = await refusal(
      stripe.paymentIntents.create({ amount: 999, currency: 'usd', payment_method: method, confirm: true }),
    );
    expect(error).toMatchObject({ type: 'StripeCardError', decline_code: declineCode });
  });

  it('3-D Secure: requires_action with a redirect to the challenge page; passing it succeeds', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const intent = await stripe.paymentIntents.create({
      amount: 4200,
      currency: 'usd',
      payment_method: 'pm_card_threeDSecure2Required',
      confirm: true,
      return_url: 'https://shop.example/return',
    });
    expect(intent.status).toBe('requires_action');
    expect(intent.next_action).toMatchObject({
      type: 'redirect_to_url',
      redirect_to_url: {
        url: expect.stringContaining('/3ds/cp_'),
        return_url: 'https://shop.example/return',
      },
    });
    const paymentId = `cp_${(intent.latest_charge as string).slice(3)}`;
    const passed = await t.post(m, `/v1/simulate/card_payments/${paymentId}/complete_3ds`, {
      outcome: 'succeed',
    });
    expect(passed.status, passed.text).toBe(200);
    expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
      status: 'succeeded',
      next_action: null,
    });
  });

  it('manual capture of part, then a refund of part; cancel releases an authorization', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const intent = await stripe.paymentIntents.create({
      amount: 5000,
      currency: 'usd',
      capture_method: 'manual',
      payment_method: 'pm_card_amex',
      confirm: true,
    });
    expect(intent).toMatchObject({ status: 'requires_capture', amount_capturable: 5000, amount_received: 0 });
    const captured = await stripe.paymentIntents.capture(intent.id, { amount_to_capture: 3000 });
    expect(captured).toMatchObject({ status: 'succeeded', amount_received: 3000, amount_capturable: 0 });
    const refund = await stripe.refunds.create({ payment_intent: intent.id, amount: 1000 });
    expect(refund).toMatchObject({
      object: 'refund',
      amount: 1000,
      payment_intent: intent.id,
      status: 'succeeded',
    });
    expect(await stripe.refunds.retrieve(refund.id)).toMatchObject({ id: refund.id, amount: 1000 });
    const charge = await stripe.charges.retrieve(captured.latest_charge as string);
    expect(charge).toMatchObject({ amount_captured: 3000, amount_refunded: 1000, refunded: false });
    const listed = await stripe.refunds.list({ payment_intent: intent.id });
    expect(listed.data.map((r) => r.id)).toEqual([refund.id]);

    const held = await stripe.paymentIntents.create({
      amount: 700,
      currency: 'usd',
      capture_method: 'manual',
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    const canceled = await stripe.paymentIntents.cancel(held.id, { cancellation_reason: 'abandoned' });
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    expect(canceled.canceled_at).toEqual(expect.any(Number));
    const voided = await t.get(m, `/v1/card_payments/cp_${(held.latest_charge as string).slice(3)}`);
    expect(voided.body).toMatchObject({ state: 'voided' });
    const late = await refusal(stripe.paymentIntents.capture(held.id));
    expect(late).toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'payment_intent_unexpected_state',
    });
    await expectLedgerBalanced(t.database.db, m.id);
  });

  it('updates metadata (a key set empty is removed) and lists with auto-pagination over 250 intents', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const intent = await stripe.paymentIntents.create({
      amount: 100,
      currency: 'usd',
      metadata: { a: '1', b: '2' },
    });
    const updated = await stripe.paymentIntents.update(intent.id, {
      metadata: { a: '', c: '3' },
      description: 'Order',
    });
    expect(updated).toMatchObject({ metadata: { b: '2', c: '3' }, description: 'Order' });
    const made = [intent.id];
    for (let i = 0; i < 250; i++)
      made.push((await stripe.paymentIntents.create({ amount: 50 + i, currency: 'usd' })).id);
    const seen: string[] = [];
    for await (const each of stripe.paymentIntents.list({ limit: 100 })) seen.push(each.id);
    expect(seen).toEqual([...made].reverse());
    const firstPage = await stripe.paymentIntents.list({ limit: 3 });
    expect(firstPage).toMatchObject({ object: 'list', has_more: true, url: '/v1/payment_intents' });
    const back = await stripe.paymentIntents.list({ limit: 2, ending_before: firstPage.data[2]?.id });
    expect(back.data.map((each) => each.id)).toEqual(firstPage.data.slice(0, 2).map((each) => each.id));
  });
});

describe('confirmations without an Idempotency-Key (one change, no lock)', () => {
  const form = (m: TestMerchant, path: string, body: string) =>
    fetch(`http://127.0.0.1:${port()}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${m.secretKey}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
    });

  it('confirms once when two confirmations race: the other is refused, and one card payment exists', async () => {
    const m = await t.merchant();
    const created = (await (await form(m, '/v1/payment_intents', 'amount=2500&currency=usd')).json()) as {
      id: string;
    };
    const answers = await Promise.all(
      [0, 1, 2].map(() =>
        form(m, `/v1/payment_intents/${created.id}/confirm`, 'payment_method=pm_card_visa'),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 400, 400]);
    const refused = (await answers.find((answer) => answer.status === 400)?.json()) as {
      error: { code: string };
    };
    expect(refused.error.code).toBe('payment_intent_unexpected_state');
    const payments = await t.get(m, '/v1/card_payments');
    expect((payments.body.data as unknown[]).length).toBe(1);
    const intent = await client(m).paymentIntents.retrieve(created.id);
    expect(intent).toMatchObject({ status: 'succeeded', amount_received: 2500 });
    expect(`cp_${(intent.latest_charge as string).slice(3)}`).toBe(
      (payments.body.data as { id: string }[])[0]?.id,
    );
  });

  it('a decline without a key is kept as the attempt and answered 402', async () => {
    const m = await t.merchant();
    const answer = await form(
      m,
      '/v1/payment_intents',
      'amount=900&currency=usd&payment_method=pm_card_chargeDeclined&confirm=true',
    );
    expect(answer.status).toBe(402);
    const body = (await answer.json()) as { error: { payment_intent: { id: string; status: string } } };
    expect(body.error.payment_intent.status).toBe('requires_payment_method');
    const retried = await form(
      m,
      `/v1/payment_intents/${body.error.payment_intent.id}/confirm`,
      'payment_method=pm_card_visa',
    );
    expect(retried.status).toBe(200);
    expect(((await t.get(m, '/v1/card_payments')).body.data as unknown[]).length).toBe(2);
  });
  it('refuses a body over 64 KB with 413, whether its length is declared or it comes in chunks, on any method', async () => {
    const m = await t.merchant();
    const big = `amount=900&currency=usd&description=${'x'.repeat(70_000)}`;
    const declared = await form(m, '/v1/payment_intents', big);
    const chunked = await fetch(`http://127.0.0.1:${port()}/v1/payment_intents`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${m.secretKey}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    // A DELETE reads no body, but one declared too big is refused all the same.
    const deleted = await fetch(`http://127.0.0.1:${port()}/v1/customers/cus_none`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${m.secretKey}` },
      body: big,
    });
    for (const answer of [declared, chunked, deleted]) {
      expect(answer.status).toBe(413);
      expect(((await answer.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    }
    expect((await client(m).paymentIntents.list()).data).toEqual([]);
  });
});

describe('what the dialect refuses, in Stripe shape, writing nothing', () => {
  it('a bad key, an unknown parameter, an unsupported currency or endpoint, a missing object', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const wrongKey = new Stripe('sk_test_nobody', {
      host: '127.0.0.1',
      port: port(),
      protocol: 'http',
      telemetry: false,
    });
    expect(await refusal(wrongKey.paymentIntents.list())).toBeInstanceOf(
      Stripe.errors.StripeAuthenticationError,
    );
    const unknown = await refusal(
      stripe.paymentIntents.create({ amount: 100, currency: 'usd', setup_future_usage: 'off_session' }),
    );
    expect(unknown).toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'parameter_unknown',
      param: 'setup_future_usage',
    });
    const euro = await refusal(stripe.paymentIntents.create({ amount: 100, currency: 'eur' }));
    expect(euro).toMatchObject({ param: 'currency', statusCode: 400 });
    const small = await refusal(stripe.paymentIntents.create({ amount: 10, currency: 'usd' }));
    expect(small).toMatchObject({ code: 'amount_too_small', param: 'amount' });
    const missing = await refusal(stripe.paymentIntents.retrieve('pi_nothing'));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const subscriptions = await refusal(stripe.subscriptions.list());
    expect(subscriptions).toMatchObject({ statusCode: 501, code: 'sandbank_unsupported' });
    expect(subscriptions.message).toContain('GET /v1/subscriptions');
    expect((await stripe.paymentIntents.list()).data).toEqual([]);
  });

  it('replays an Idempotency-Key, and refuses it with other parameters', async () => {
    const stripe = client(await t.merchant());
    const first = await stripe.paymentIntents.create(
      { amount: 300, currency: 'usd' },
      { idempotencyKey: 'order-1' },
    );
    const again = await stripe.paymentIntents.create(
      { amount: 300, currency: 'usd' },
      { idempotencyKey: 'order-1' },
    );
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    const other = await refusal(
      stripe.paymentIntents.create({ amount: 301, currency: 'usd' }, { idempotencyKey: 'order-1' }),
    );
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect((await stripe.paymentIntents.list()).data.map((each) => each.id)).toEqual([first.id]);
  });
});
