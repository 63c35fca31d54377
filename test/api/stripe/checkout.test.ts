/**
 * Checkout Sessions (payment mode) driven by the official `stripe` SDK: each is a native collection
 * whose hosted checkout is the session's `url`. Created, retrieved, listed, expired, their line
 * items paged; paid headlessly through the native simulate endpoint (the hosted page's code path),
 * then complete and paid with a PaymentIntent the SDK retrieves as succeeded; bad input refused,
 * in Stripe's shape, writing nothing.
 */
import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { events } from '../../../src/db/events.table.ts';
import { scheduledJobs } from '../../../src/db/scheduled-jobs.table.ts';
import { collections } from '../../../src/modules/collections/collections.table.ts';
import { stripeCheckoutSessions, stripeCustomers } from '../../../src/modules/stripe/stripe.objects.table.ts';
import { stripePaymentIntents } from '../../../src/modules/stripe/stripe.table.ts';
import { PUBLIC_URL, type TestMerchant } from '../../support/harness.ts';
import { refusal, stripeDialect } from '../../support/stripe.ts';

const { t, client } = stripeDialect();

const VISA = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };

const item = (name: string, unitAmount: number, quantity: number, extra: Record<string, unknown> = {}) => ({
  price_data: { currency: 'usd', unit_amount: unitAmount, product_data: { name, ...extra } },
  quantity,
});

/** The collection behind a session: its hosted checkout's id, from the session's url. */
function collectionOf(session: Stripe.Checkout.Session): string {
  const match = /\/checkout\/(col_[0-9A-Z]+)\?secret=/.exec(session.url ?? '');
  if (!match?.[1]) throw new Error(`no checkout in ${session.url}`);
  return match[1];
}

async function secondsNow(m: TestMerchant): Promise<number> {
  const clock = await t.get<{ now: string }>(m, '/v1/clock');
  return Math.floor(new Date(clock.body.now).getTime() / 1000);
}

describe('Checkout Sessions through the stripe SDK', () => {
  it('creates a session over a collection, retrieves it, pages its line items', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const now = await secondsNow(m);
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [item('T-shirt', 2000, 2, { description: 'Cotton, blue' }), item('Mug', 850, 1)],
      success_url: 'https://shop.example/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://shop.example/cart',
      customer_email: 'payer@example.com',
      client_reference_id: 'order-42',
      metadata: { order_id: '42' },
      payment_method_types: ['card'],
    } as Stripe.Checkout.SessionCreateParams);
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_subtotal: 4850,
      amount_total: 4850,
      currency: 'usd',
      success_url: 'https://shop.example/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://shop.example/cart',
      customer_email: 'payer@example.com',
      client_reference_id: 'order-42',
      metadata: { order_id: '42' },
      payment_intent: null,
      payment_method_types: ['card'],
      livemode: false,
      customer: null,
    });
    expect(session.id).toMatch(/^cs_/);
    // 24 hours after its creation by default, on the merchant's clock.
    expect(session.expires_at - session.created).toBe(86_400);
    expect(session.created - now).toBeGreaterThanOrEqual(0);
    expect(session.created - now).toBeLessThan(60);
    expect(session.url).toMatch(new RegExp(`^${PUBLIC_URL}/checkout/col_\\w+\\?secret=[\\w-]{43}$`));
    expect(session.line_items).toBeUndefined();

    // The collection behind it: the total in dollars, the payer, and the success_url filled in.
    const collection = await t.get(m, `/v1/collections/${collectionOf(session)}`);
    expect(collection.status).toBe(200);
    expect(collection.body).toMatchObject({
      state: 'pending',
      amount: 48.5,
      currency: 'USD',
      email: 'payer@example.com',
      redirect_url: `https://shop.example/success?session_id=${session.id}`,
      checkout_url: session.url,
      metadata: { checkout_session: session.id },
    });
    expect(collection.body.reference).toMatch(/^pi_/);

    const retrieved = await stripe.checkout.sessions.retrieve(session.id, { expand: ['line_items'] });
    expect({ ...retrieved, line_items: undefined }).toEqual({ ...session, line_items: undefined });
    expect(
      retrieved.line_items?.data.map((each) => [each.description, each.quantity, each.amount_total]),
    ).toEqual([
      ['T-shirt', 2, 4000],
      ['Mug', 1, 850],
    ]);
    const items = await stripe.checkout.sessions.listLineItems(session.id);
    expect(items).toMatchObject({
      object: 'list',
      has_more: false,
      url: `/v1/checkout/sessions/${session.id}/line_items`,
    });
    expect(items.data[0]).toMatchObject({
      object: 'item',
      amount_subtotal: 4000,
      amount_total: 4000,
      currency: 'usd',
      description: 'T-shirt',
      quantity: 2,
      price: {
        object: 'price',
        unit_amount: 2000,

        currency: 'usd',
        type: 'one_time',
      },
    });
    expect(items.data[0]?.id).toMatch(/^li_/);
    expect(String(items.data[0]?.price?.unit_amount_decimal)).toBe('2000');
    const first = await stripe.checkout.sessions.listLineItems(session.id, { limit: 1 });
    expect(first.has_more).toBe(true);
    const second = await stripe.checkout.sessions.listLineItems(session.id, {
      limit: 1,
      starting_after: first.data[0]?.id,
    });
    expect(second.data.map((each) => each.description)).toEqual(['Mug']);
    expect(second.has_more).toBe(false);
    const back = await stripe.checkout.sessions.listLineItems(session.id, {
      ending_before: second.data[0]?.id,
    });
    expect(back.data.map((each) => each.description)).toEqual(['T-shirt']);
  });

  it('lists sessions newest first, pages them both ways, and auto-paginates', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const made: string[] = [];
    // mode may be left out (Stripe's newest versions infer it): payment.
    for (let i = 0; i < 3; i++)
      made.push((await stripe.checkout.sessions.create({ line_items: [item(`n${i}`, 100 + i, 1)] })).id);
    expect((await stripe.checkout.sessions.retrieve(made[0] as string)).mode).toBe('payment');
    const firstPage = await stripe.checkout.sessions.list({ limit: 2 });
    expect(firstPage.data.map((each) => each.id)).toEqual([made[2], made[1]]);
    expect(firstPage.has_more).toBe(true);
    const next = await stripe.checkout.sessions.list({ limit: 2, starting_after: firstPage.data[1]?.id });
    expect(next.data.map((each) => each.id)).toEqual([made[0]]);
    expect(next.has_more).toBe(false);
    const back = await stripe.checkout.sessions.list({ limit: 2, ending_before: made[0] });
    expect(back.data.map((each) => each.id)).toEqual([made[2], made[1]]);
    const all: string[] = [];
    for await (const each of stripe.checkout.sessions.list({ limit: 1 })) all.push(each.id);
    expect(all).toEqual([...made].reverse());
    // Another merchant sees none of them.
    expect((await client(await t.merchant()).checkout.sessions.list()).data).toEqual([]);
  });

  it('expires an open session: its checkout closes, its collection is canceled; expiring again is refused', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [item('Book', 1500, 1)],
    });
    const expired = await stripe.checkout.sessions.expire(session.id);
    expect(expired).toMatchObject({ id: session.id, status: 'expired', payment_status: 'unpaid', url: null });
    expect((await t.get(m, `/v1/collections/${collectionOf(session)}`)).body.state).toBe('canceled');
    const again = await refusal(stripe.checkout.sessions.expire(session.id));
    expect(again).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError' });
    expect(again.message).toContain('status of expired');
    expect((await stripe.checkout.sessions.retrieve(session.id)).status).toBe('expired');
  });

  it('expires_at: 30 minutes to 24 hours ahead on the merchant clock; once passed the session is expired', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    await t.advance(m, 3 * 86_400);
    const now = await secondsNow(m);
    const soon = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [item('Tea', 600, 1)],
      expires_at: now + 3600,
    });
    expect(soon.expires_at).toBe(now + 3600);
    for (const expiresAt of [now + 1700, now + 86_500, now - 10])
      expect(
        await refusal(
          stripe.checkout.sessions.create({
            mode: 'payment',
            line_items: [item('Tea', 600, 1)],
            expires_at: expiresAt,
          }),
        ),
      ).toMatchObject({ statusCode: 400, param: 'expires_at' });
    await t.advance(m, 3601);
    const later = await stripe.checkout.sessions.retrieve(soon.id);
    expect(later).toMatchObject({ status: 'expired', payment_status: 'unpaid', url: null });
    expect((await t.get(m, `/v1/collections/${collectionOf(soon)}`)).body.state).toBe('expired');
  });

  it('paid headlessly through the native simulate endpoint: complete, paid, with a succeeded PaymentIntent', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [item('Lamp', 3200, 1)],
      success_url: 'http://127.0.0.1:9/done?session_id={CHECKOUT_SESSION_ID}',
      customer_email: 'lamp@example.com',
    });
    const collectionId = collectionOf(session);
    const paid = await t.post(m, `/v1/simulate/collections/${collectionId}/pay`, {
      method: 'card',
      card: VISA,
    });
    expect(paid.status).toBe(200);
    const cardPayment = (paid.body.payment as { id: string }).id;

    const complete = await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent'] });
    expect(complete).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      url: null,
      amount_total: 3200,
      customer_details: { email: 'lamp@example.com' },
    });
    const intent = complete.payment_intent as Stripe.PaymentIntent;
    expect(intent).toMatchObject({
      object: 'payment_intent',
      status: 'succeeded',
      amount: 3200,
      amount_received: 3200,
    });
    expect(intent.id).toMatch(/^pi_/);
    expect(intent.latest_charge).toBe(`ch_${cardPayment.slice(3)}`);

    const retrieved = await stripe.paymentIntents.retrieve(intent.id, { expand: ['latest_charge'] });
    expect(retrieved).toMatchObject({ id: intent.id, status: 'succeeded', currency: 'usd' });
    expect(retrieved.latest_charge).toMatchObject({
      id: `ch_${cardPayment.slice(3)}`,
      paid: true,
      captured: true,
      amount: 3200,
      payment_intent: intent.id,
    });
    // The same id again (written once), and the list's filter finds the session by it.
    expect((await stripe.checkout.sessions.retrieve(session.id)).payment_intent).toBe(intent.id);
    const byIntent = await stripe.checkout.sessions.list({ payment_intent: intent.id });
    expect(byIntent.data.map((each) => each.id)).toEqual([session.id]);
    expect((await stripe.checkout.sessions.list({ payment_intent: 'pi_none' })).data).toEqual([]);
    expect(await t.countRows(stripePaymentIntents, m.id)).toBe(1);

    expect(await refusal(stripe.checkout.sessions.expire(session.id))).toMatchObject({ statusCode: 400 });
    // Paid once: a second payment of its checkout is refused.
    const twice = await t.post(m, `/v1/simulate/collections/${collectionId}/pay`, {
      method: 'card',
      card: VISA,
    });
    expect(twice.status).toBe(409);
  });

  it('a customer of the dialect: its e-mail goes to the collection; an unknown one is refused', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const now = new Date();
    await t.database.db.insert(stripeCustomers).values({
      id: 'cus_checkouttest',
      merchantId: m.id,
      email: 'known@example.com',
      metadata: {},
      createdAt: now,
      updatedAt: now,
    });
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      customer: 'cus_checkouttest',
      line_items: [item('Pen', 300, 3)],
    });
    expect(session).toMatchObject({ customer: 'cus_checkouttest', customer_email: null, amount_total: 900 });
    expect((await t.get(m, `/v1/collections/${collectionOf(session)}`)).body.email).toBe('known@example.com');
    const filtered = await stripe.checkout.sessions.list({ customer: 'cus_checkouttest' });
    expect(filtered.data.map((each) => each.id)).toEqual([session.id]);
    const unknown = await refusal(
      stripe.checkout.sessions.create({
        mode: 'payment',
        customer: 'cus_nobody',
        line_items: [item('Pen', 300, 1)],
      }),
    );
    expect(unknown).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'customer' });
  });
});

describe('what a Checkout Session refuses, in Stripe shape, writing nothing', () => {
  it('Price ids, other modes, other currencies, no items, quantity 0, bad URLs and unknown parameters', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const counts = async () => [
      await t.countRows(collections, m.id),
      await t.countRows(stripeCheckoutSessions, m.id),
      await t.countRows(stripePaymentIntents, m.id),
      await t.countRows(events, m.id),
      await t.countRows(scheduledJobs, m.id),
    ];
    const before = await counts();
    const cases: [Stripe.Checkout.SessionCreateParams, Record<string, unknown>][] = [
      [
        { mode: 'payment', line_items: [{ price: 'price_123', quantity: 1 }] },
        { param: 'line_items[0][price]' },
      ],
      [{ mode: 'subscription', line_items: [item('A', 500, 1)] }, { param: 'mode' }],
      [{ mode: 'setup', currency: 'usd' }, { param: 'mode' }],
      [
        {
          mode: 'payment',
          line_items: [
            {
              ...item('A', 500, 1),
              price_data: { currency: 'eur', unit_amount: 500, product_data: { name: 'A' } },
            },
          ],
        },
        { param: 'line_items[0][price_data][currency]' },
      ],
      [{ mode: 'payment' }, { param: 'line_items', code: 'parameter_missing' }],
      [{ mode: 'payment', line_items: [item('A', 500, 0)] }, { param: 'line_items[0][quantity]' }],
      [
        { mode: 'payment', line_items: [item('A', 500, 1), item('B', 500, 0)] },
        { param: 'line_items[1][quantity]' },
      ],
      [
        { mode: 'payment', line_items: [item('A', 10, 1)] },
        { param: 'line_items', code: 'amount_too_small' },
      ],
      [
        { mode: 'payment', line_items: [item('A', 99_999_999, 2)] },
        { param: 'line_items', code: 'amount_too_large' },
      ],
      [
        {
          mode: 'payment',
          line_items: [{ price_data: { currency: 'usd', unit_amount: 500, product: 'prod_1' }, quantity: 1 }],
        },
        { param: 'line_items[0][price_data][product]' },
      ],
      [
        {
          mode: 'payment',
          line_items: [{ price_data: { currency: 'usd', product_data: { name: 'A' } }, quantity: 1 }],
        },
        { param: 'line_items[0][price_data][unit_amount]', code: 'parameter_missing' },
      ],
      [
        { mode: 'payment', line_items: [{ ...item('A', 500, 1), adjustable_quantity: { enabled: true } }] },
        { param: 'line_items[0][adjustable_quantity]', code: 'parameter_unknown' },
      ],
      [
        { mode: 'payment', line_items: [item('A', 500, 1)], success_url: 'not a url' },
        { param: 'success_url' },
      ],
      [
        { mode: 'payment', line_items: [item('A', 500, 1)], cancel_url: 'ftp://x.example/' },
        { param: 'cancel_url' },
      ],
      [
        { mode: 'payment', line_items: [item('A', 500, 1)], customer_email: 'nope' },
        { param: 'customer_email' },
      ],
      [
        {
          mode: 'payment',
          line_items: [item('A', 500, 1)],
          customer: 'cus_x',
          customer_email: 'a@example.com',
        },
        { param: 'customer_email' },
      ],
      [
        {
          mode: 'payment',
          line_items: [item('A', 500, 1)],
          payment_method_types: ['ideal'],
        } as Stripe.Checkout.SessionCreateParams,
        { param: 'payment_method_types' },
      ],
      [
        { line_items: [item('A', 500, 1)], allowed_payment_method_types: ['us_bank_account'] },
        { param: 'allowed_payment_method_types' },
      ],
      [{ line_items: [item('A', 500, 1)], ui_mode: 'embedded_page' }, { param: 'ui_mode' }],
      [
        { mode: 'payment', line_items: [item('A', 500, 1)], allow_promotion_codes: true },
        { param: 'allow_promotion_codes', code: 'parameter_unknown' },
      ],
      [{ mode: 'payment', line_items: [item('A', 500, 1)], expand: ['customer'] }, { param: 'expand' }],
    ];
    for (const [params, expected] of cases) {
      const refused = await refusal(stripe.checkout.sessions.create(params));
      expect(refused, JSON.stringify(params)).toMatchObject({
        statusCode: 400,
        type: 'StripeInvalidRequestError',
        ...expected,
      });
    }
    expect(await counts()).toEqual(before);
    expect((await stripe.checkout.sessions.list()).data).toEqual([]);
    const missing = await refusal(stripe.checkout.sessions.retrieve('cs_nothing'));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect(await refusal(stripe.checkout.sessions.listLineItems('cs_nothing'))).toMatchObject({
      statusCode: 404,
    });
    expect(await refusal(stripe.checkout.sessions.expire('cs_nothing'))).toMatchObject({ statusCode: 404 });
    expect(await counts()).toEqual(before);
  });

  it('another merchant cannot read, expire or page the items of a session', async () => {
    const owner = client(await t.merchant());
    const other = client(await t.merchant());
    const session = await owner.checkout.sessions.create({
      mode: 'payment',
      line_items: [item('A', 500, 1)],
    });
    expect(await refusal(other.checkout.sessions.retrieve(session.id))).toMatchObject({ statusCode: 404 });
    expect(await refusal(other.checkout.sessions.expire(session.id))).toMatchObject({ statusCode: 404 });
    expect(await refusal(other.checkout.sessions.listLineItems(session.id))).toMatchObject({
      statusCode: 404,
    });
    expect((await owner.checkout.sessions.retrieve(session.id)).status).toBe('open');
  });

  it('replays an Idempotency-Key: one session, one collection', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const params = { mode: 'payment' as const, line_items: [item('A', 700, 1)] };
    const first = await stripe.checkout.sessions.create(params, { idempotencyKey: 'cart-1' });
    const again = await stripe.checkout.sessions.create(params, { idempotencyKey: 'cart-1' });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(await t.countRows(collections, m.id)).toBe(1);
  });
});

// The reaction modules/reactions.ts registers: the intent is written in the capture's own transaction.
describe('the capture reaction', () => {
  it("writes a paid session's PaymentIntent with its capture, before the session is read again", async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const session = await stripe.checkout.sessions.create({ line_items: [item('Clock', 4100, 1)] });
    const collection = await t.get(m, `/v1/collections/${collectionOf(session)}`);
    const intentId = collection.body.reference as string;
    expect(await refusal(stripe.paymentIntents.retrieve(intentId))).toMatchObject({ statusCode: 404 });
    const paid = await t.post(m, `/v1/simulate/collections/${collectionOf(session)}/pay`, {
      method: 'card',
      card: VISA,
    });
    expect(paid.status).toBe(200);
    const intent = await stripe.paymentIntents.retrieve(intentId);
    expect(intent).toMatchObject({
      status: 'succeeded',
      amount: 4100,
      latest_charge: `ch_${(paid.body.payment as { id: string }).id.slice(3)}`,
    });
    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      payment_intent: intentId,
    });
    expect(await t.countRows(stripePaymentIntents, m.id)).toBe(1);
  });
});
