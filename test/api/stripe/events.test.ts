/**
 * The Stripe dialect's events and webhook endpoints, driven by the official `stripe` SDK: endpoints
 * made, read, changed and deleted; the Stripe-shaped events of paid, declined, refunded and
 * manually captured PaymentIntents delivered to a loopback receiver, each verified by the SDK's own
 * `stripe.webhooks.constructEvent`; the same events listed and retrieved; a native endpoint of the
 * same merchant still sent native payloads.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { pino } from 'pino';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stripeFetch } from '../../../src/app.ts';
import { groupCommitStats } from '../../../src/db/commit.ts';
import { serveOn } from '../../../src/http/node-server.ts';
import { newId } from '../../../src/kernel/ids.ts';
import { clockFor } from '../../../src/modules/clock/clock.service.ts';
import { insertIntent, recordIntentCanceled } from '../../../src/modules/stripe/stripe.events.ts';
import { DeliveryPump } from '../../../src/modules/webhooks/webhooks.pump.ts';
import { webhookDeliveries } from '../../../src/modules/webhooks/webhooks.table.ts';
import {
  createTestApp,
  openIsolatedTestDatabase,
  type TestApp,
  type TestMerchant,
} from '../../support/harness.ts';
import { eventually, Receiver } from '../../support/receiver.ts';

/** A loopback receiver of Stripe's webhooks: it keeps each raw body and its Stripe-Signature. */
class StripeHooks {
  readonly received: { body: string; headers: IncomingHttpHeaders; path: string }[] = [];
  private server: Server | null = null;
  base = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({
          body: Buffer.concat(chunks).toString('utf8'),
          headers: req.headers,
          path: req.url ?? '',
        });
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

let t: TestApp;
let server: Server;
let port: number;
let hooks: StripeHooks;
let native: Receiver;
// A delivery pump below delivers every merchant's due deliveries of its database: on Postgres this
// file gets a database of its own, so it never takes another file's.
let dropDatabase = async () => {};
beforeAll(async () => {
  const isolated = await openIsolatedTestDatabase();
  t = await createTestApp({ database: isolated.database });
  dropDatabase = isolated.drop;
  server = await new Promise<Server>((resolve) => {
    const s = serveOn(stripeFetch(t.app), '127.0.0.1', 0, () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
  hooks = await new StripeHooks().start();
  native = await new Receiver().start();
});
afterAll(async () => {
  await native.stop();
  await hooks.stop();
  await new Promise((resolve) => server.close(resolve));
  await dropDatabase();
});
beforeEach(() => {
  hooks.received.length = 0;
  native.received.length = 0;
});

function client(m: TestMerchant): Stripe {
  return new Stripe(m.secretKey, { host: '127.0.0.1', port, protocol: 'http', telemetry: false });
}

async function refusal(work: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
}

/** A merchant whose clock stands still: deliveries go when a test advances it. */
async function frozenMerchant(): Promise<TestMerchant> {
  const m = await t.merchant();
  expect((await t.post(m, '/v1/clock/freeze')).status).toBe(200);
  return m;
}

/** Every delivery at `path`, verified with the SDK against `secret` (throws on a bad signature). */
function verified(stripe: Stripe, path: string, secret: string): Stripe.Event[] {
  return hooks.at(path).map((r) => {
    const header = r.headers['stripe-signature'];
    expect(typeof header).toBe('string');
    return stripe.webhooks.constructEvent(r.body, header as string, secret);
  });
}

/** The dialect's own payment_intent.created aside (written with the intent by the PaymentIntent code). */
const withoutCreated = (types: string[]) => types.filter((type) => type !== 'payment_intent.created').sort();

describe('webhook endpoints through the stripe SDK', () => {
  it('creates with a whsec_ secret shown once, retrieves, updates, lists and deletes', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const created = await stripe.webhookEndpoints.create({
      url: `${hooks.base}/crud`,
      enabled_events: ['payment_intent.succeeded', 'charge.refunded'],
      description: 'orders',
    });
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      url: `${hooks.base}/crud`,
      enabled_events: ['payment_intent.succeeded', 'charge.refunded'],
      description: 'orders',
      status: 'enabled',
      livemode: false,
      metadata: {},
    });
    expect(created.id).toMatch(/^we_/);
    expect(created.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const fetched = await stripe.webhookEndpoints.retrieve(created.id);
    expect(fetched.secret).toBeUndefined();
    expect(fetched.enabled_events).toEqual(created.enabled_events);
    const updated = await stripe.webhookEndpoints.update(created.id, {
      enabled_events: ['*'],
      disabled: true,
      description: '',
    });
    expect(updated).toMatchObject({ enabled_events: ['*'], status: 'disabled', description: null });
    expect((await stripe.webhookEndpoints.update(created.id, { disabled: false })).status).toBe('enabled');
    const second = await stripe.webhookEndpoints.create({
      url: `${hooks.base}/other`,
      enabled_events: ['*'],
    });
    const listed = await stripe.webhookEndpoints.list({ limit: 1 });
    expect(listed.data.map((e) => e.id)).toEqual([second.id]);
    expect(listed.has_more).toBe(true);
    const all = await stripe.webhookEndpoints.list().autoPagingToArray({ limit: 10 });
    expect(all.map((e) => e.id)).toEqual([second.id, created.id]);
    const deleted = await stripe.webhookEndpoints.del(created.id);
    expect(deleted).toMatchObject({ id: created.id, object: 'webhook_endpoint', deleted: true });
    const gone = await refusal(stripe.webhookEndpoints.retrieve(created.id));
    expect(gone).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    // A native endpoint is not one of the dialect's; nor is another merchant's.
    const own = await t.post(m, '/v1/webhook_endpoints', { url: native.url });
    const nativeId = (own.body as { id: string }).id;
    expect((await refusal(stripe.webhookEndpoints.retrieve(nativeId))).statusCode).toBe(404);
    expect((await refusal(client(await t.merchant()).webhookEndpoints.retrieve(second.id))).statusCode).toBe(
      404,
    );
  });

  it('refuses a bad URL, an event type it never sends, metadata and unknown parameters, naming them', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const cases: [() => Promise<unknown>, string][] = [
      [() => stripe.webhookEndpoints.create({ url: 'ftp://x', enabled_events: ['*'] }), 'url'],
      [
        () =>
          stripe.webhookEndpoints.create({
            url: `${hooks.base}/x`,
            enabled_events: ['charge.succeeded', 'customer.created' as never],
          }),
        'enabled_events[1]',
      ],
      [
        () =>
          stripe.webhookEndpoints.create({
            url: `${hooks.base}/x`,
            enabled_events: ['*'],
            metadata: { a: 'b' },
          }),
        'metadata[a]',
      ],
      [
        () =>
          stripe.webhookEndpoints.create({ url: `${hooks.base}/x`, enabled_events: ['*'], connect: true }),
        'connect',
      ],
      [() => stripe.webhookEndpoints.create({ enabled_events: ['*'] } as never), 'url'],
      [() => stripe.events.list({ type: 'charge.succeeded', types: ['charge.failed'] }), 'types'],
      [() => stripe.events.list({ created: { gte: 1 } }), 'created'],
    ];
    for (const [work, param] of cases) {
      const error = await refusal(work());
      expect(error.statusCode, param).toBe(400);
      expect(error.param).toBe(param);
    }
    expect((await stripe.webhookEndpoints.list()).data).toEqual([]);
  });
});

describe('Stripe events delivered to Stripe endpoints', () => {
  it('pays, declines and refunds: each event delivered Stripe-shaped, verified by constructEvent; a native endpoint still gets native payloads', async () => {
    const m = await frozenMerchant();
    const stripe = client(m);
    const all = await stripe.webhookEndpoints.create({ url: `${hooks.base}/all`, enabled_events: ['*'] });
    const refunds = await stripe.webhookEndpoints.create({
      url: `${hooks.base}/refunds`,
      enabled_events: ['charge.refunded'],
    });
    const nativeEndpoint = await t.post(m, '/v1/webhook_endpoints', { url: native.url });
    expect(nativeEndpoint.status).toBe(200);

    const paid = await stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
      metadata: { order: '6735' },
    });
    expect(paid.status).toBe('succeeded');
    const declined = await refusal(
      stripe.paymentIntents.create({
        amount: 1500,
        currency: 'usd',
        payment_method: 'pm_card_chargeDeclined',
        confirm: true,
      }),
    );
    expect(declined.code).toBe('card_declined');
    const declinedIntent = declined.raw as { payment_intent?: { id: string } };
    const declinedId = declinedIntent.payment_intent?.id as string;
    const refund = await stripe.refunds.create({ payment_intent: paid.id });
    expect(refund.status).toBe('succeeded');
    await t.advance(m, 1);

    const expected = [
      'charge.failed',
      'charge.refunded',
      'charge.succeeded',
      'payment_intent.payment_failed',
      'payment_intent.succeeded',
      'refund.created',
      'refund.updated',
    ];
    await eventually(
      () =>
        withoutCreated(verified(stripe, '/all', all.secret as string).map((e) => e.type)).length ===
        expected.length,
      'the Stripe deliveries',
    );
    const events = verified(stripe, '/all', all.secret as string);
    expect(withoutCreated(events.map((e) => e.type))).toEqual(expected);
    for (const event of events) {
      expect(event).toMatchObject({ object: 'event', livemode: false, api_version: expect.any(String) });
      expect(event.id).toMatch(/^evt_[0-9A-Z]{26}[a-z]$/);
      expect(event.request).toEqual({ id: null, idempotency_key: null });
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const byType = (type: string) =>
      events.find((e) => e.type === type)?.data.object as unknown as Record<string, unknown>;
    expect(byType('payment_intent.succeeded')).toMatchObject({
      id: paid.id,
      object: 'payment_intent',
      status: 'succeeded',
      amount: 2000,
      amount_received: 2000,
      metadata: { order: '6735' },
      latest_charge: paid.latest_charge,
    });
    expect(byType('charge.succeeded')).toMatchObject({
      id: paid.latest_charge,
      object: 'charge',
      captured: true,
      refunded: false,
      amount_refunded: 0,
      payment_intent: paid.id,
    });
    expect(byType('payment_intent.payment_failed')).toMatchObject({
      id: declinedId,
      status: 'requires_payment_method',
      last_payment_error: { code: 'card_declined' },
    });
    expect(byType('charge.failed')).toMatchObject({
      status: 'failed',
      payment_intent: declinedId,
      paid: false,
    });
    expect(byType('refund.created')).toMatchObject({
      id: refund.id,
      object: 'refund',
      amount: 2000,
      status: 'pending',
      charge: paid.latest_charge,
      payment_intent: paid.id,
    });
    const updated = events.find((e) => e.type === 'refund.updated') as Stripe.Event;
    expect(updated.data).toMatchObject({
      object: { id: refund.id, status: 'succeeded' },
      previous_attributes: { status: 'pending' },
    });
    expect(byType('charge.refunded')).toMatchObject({
      id: paid.latest_charge,
      refunded: true,
      amount_refunded: 2000,
    });

    // A tampered body, or another endpoint's secret, does not verify.
    const one = hooks.at('/all')[0] as { body: string; headers: IncomingHttpHeaders };
    const header = one.headers['stripe-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(() =>
      stripe.webhooks.constructEvent(
        one.body.replace('"livemode":false', '"livemode":true'),
        header,
        all.secret as string,
      ),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => stripe.webhooks.constructEvent(one.body, header, refunds.secret as string)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );

    // The endpoint subscribed to charge.refunded alone got that one, the same event.
    const onlyRefunded = verified(stripe, '/refunds', refunds.secret as string);
    expect(onlyRefunded.map((e) => e.type)).toEqual(['charge.refunded']);
    expect(onlyRefunded[0]?.id).toBe(events.find((e) => e.type === 'charge.refunded')?.id);

    // The native endpoint got the native events (its receiver checks them against the native
    // document and their Standard Webhooks headers), none of Stripe's.
    await eventually(() => native.types().includes('refund.succeeded'), 'the native deliveries');
    expect(native.types()).toEqual(
      expect.arrayContaining(['card_payment.captured', 'card_payment.declined', 'refund.pending']),
    );
    expect(native.types().some((type) => expected.includes(type))).toBe(false);
    expect(
      native.received.every((r) => r.headers['webhook-signature'] && !r.headers['stripe-signature']),
    ).toBe(true);

    // Listed and retrieved as delivered; no id is a native event's.
    const listed = await stripe.events.list({ limit: 100 });
    expect(withoutCreated(listed.data.map((e) => e.type))).toEqual(expected.slice().sort());
    const delivered = new Map(events.map((e) => [e.id, e]));
    for (const event of listed.data.filter((e) => e.type !== 'payment_intent.created')) {
      expect(delivered.get(event.id)?.data).toEqual(event.data);
      expect(event.pending_webhooks).toBe(0);
    }
    const nativeIds = ((await t.get(m, '/v1/events?limit=100')).body as { data: { id: string }[] }).data.map(
      (e) => e.id,
    );
    expect(nativeIds.length).toBeGreaterThan(5);
    expect(listed.data.filter((e) => nativeIds.includes(e.id))).toEqual([]);
    const retrieved = await stripe.events.retrieve(updated.id);
    expect(retrieved).toMatchObject({ id: updated.id, type: 'refund.updated', data: updated.data });
    const missing = await refusal(stripe.events.retrieve('evt_nothing'));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect((await refusal(stripe.events.retrieve(nativeIds[0] as string))).statusCode).toBe(404);
  });

  it('a manual capture: amount_capturable_updated and charge.succeeded, then succeeded and charge.captured, each as it was then', async () => {
    const m = await frozenMerchant();
    const stripe = client(m);
    const endpoint = await stripe.webhookEndpoints.create({
      url: `${hooks.base}/manual`,
      enabled_events: [
        'payment_intent.amount_capturable_updated',
        'payment_intent.succeeded',
        'charge.captured',
      ],
    });
    const intent = await stripe.paymentIntents.create({
      amount: 3000,
      currency: 'usd',
      capture_method: 'manual',
      payment_method: 'pm_card_mastercard',
      confirm: true,
    });
    expect(intent.status).toBe('requires_capture');
    await stripe.paymentIntents.capture(intent.id, { amount_to_capture: 2500 });
    await t.advance(m, 1);
    await eventually(() => hooks.at('/manual').length === 3, 'the manual capture deliveries');
    const events = verified(stripe, '/manual', endpoint.secret as string);
    expect(events.map((e) => e.type).sort()).toEqual([
      'charge.captured',
      'payment_intent.amount_capturable_updated',
      'payment_intent.succeeded',
    ]);
    const capturable = events.find(
      (e) => e.type === 'payment_intent.amount_capturable_updated',
    ) as Stripe.Event;
    // The intent as it was when authorized, though it is captured by now.
    expect(capturable.data.object).toMatchObject({
      id: intent.id,
      status: 'requires_capture',
      amount_capturable: 3000,
      amount_received: 0,
    });
    const captured = events.find((e) => e.type === 'charge.captured') as Stripe.Event;
    expect(captured.data.object).toMatchObject({
      captured: true,
      amount_captured: 2500,
      payment_intent: intent.id,
    });

    // Every event is listed, also the ones no endpoint asked for; by type, a family, or several types.
    const types = (list: Stripe.ApiList<Stripe.Event>) => withoutCreated(list.data.map((e) => e.type));
    expect(types(await stripe.events.list())).toEqual([
      'charge.captured',
      'charge.succeeded',
      'payment_intent.amount_capturable_updated',
      'payment_intent.succeeded',
    ]);
    const charge = (await stripe.events.list({ type: 'charge.succeeded' })).data;
    expect(charge.map((e) => (e.data.object as { captured: boolean }).captured)).toEqual([false]);
    expect(types(await stripe.events.list({ type: 'charge.*' }))).toEqual([
      'charge.captured',
      'charge.succeeded',
    ]);
    expect(
      types(await stripe.events.list({ types: ['payment_intent.succeeded', 'charge.captured'] })),
    ).toEqual(['charge.captured', 'payment_intent.succeeded']);
    const paged = await stripe.events.list({ limit: 1 }).autoPagingToArray({ limit: 10 });
    expect(paged.map((e) => e.id)).toEqual((await stripe.events.list()).data.map((e) => e.id));
    const first = (await stripe.events.list({ limit: 2 })).data;
    const back = await stripe.events.list({ ending_before: first[1]?.id as string, limit: 1 });
    expect(back.data.map((e) => e.id)).toEqual([first[0]?.id]);
  });

  it('events of a merchant with no Stripe endpoint are listed too, native card payments as charges', async () => {
    const m = await frozenMerchant();
    const stripe = client(m);
    const made = await t.post(m, '/v1/card_payments', {
      amount: '12.34',
      currency: 'USD',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    expect(made.status).toBe(200);
    const events = (await stripe.events.list()).data;
    expect(events.map((e) => e.type)).toEqual(['charge.succeeded']);
    expect(events[0]?.data.object).toMatchObject({
      object: 'charge',
      amount: 1234,
      payment_intent: null,
      id: `ch_${(made.body as { id: string }).id.slice(3)}`,
    });
  });
});

describe('disputes and Checkout Sessions', () => {
  it('a disputed charge (pm_card_createDispute): charge.dispute.created a day of clock time after the capture', async () => {
    const m = await frozenMerchant();
    const stripe = client(m);
    const endpoint = await stripe.webhookEndpoints.create({
      url: `${hooks.base}/disputes`,
      enabled_events: ['charge.dispute.created'],
    });
    const paid = await stripe.paymentIntents.create({
      amount: 5000,
      currency: 'usd',
      payment_method: 'pm_card_createDispute',
      confirm: true,
    });
    await t.advance(m, 60);
    expect(hooks.at('/disputes')).toEqual([]);
    await t.advance(m, 86_400);
    await eventually(() => hooks.at('/disputes').length === 1, 'the dispute delivery');
    const event = verified(stripe, '/disputes', endpoint.secret as string)[0] as Stripe.Event;
    expect(event.type).toBe('charge.dispute.created');
    expect(event.data.object).toMatchObject({
      object: 'dispute',
      amount: 5000,
      currency: 'usd',
      charge: paid.latest_charge,
      payment_intent: paid.id,
      status: 'needs_response',
    });
    expect((event.data.object as { id: string }).id).toMatch(/^dp_/);
  });

  it('a paid Checkout Session: checkout.session.completed, complete and paid', async () => {
    const m = await frozenMerchant();
    const stripe = client(m);
    const endpoint = await stripe.webhookEndpoints.create({
      url: `${hooks.base}/checkout`,
      enabled_events: ['checkout.session.completed'],
    });
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [
        { price_data: { currency: 'usd', product_data: { name: 'Lamp' }, unit_amount: 3200 }, quantity: 1 },
      ],
      success_url: 'http://127.0.0.1:9/done',
      customer_email: 'lamp@example.com',
    });
    const collection = (session.url as string).match(/\/checkout\/(col_[0-9A-Z]+)/)?.[1] as string;
    const paid = await t.post(m, `/v1/simulate/collections/${collection}/pay`, {
      method: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    expect(paid.status).toBe(200);
    await t.advance(m, 1);
    await eventually(() => hooks.at('/checkout').length === 1, 'the checkout delivery');
    const event = verified(stripe, '/checkout', endpoint.secret as string)[0] as Stripe.Event;
    expect(event.type).toBe('checkout.session.completed');
    const reference = (await t.get(m, `/v1/collections/${collection}`)).body.reference as string;
    expect(event.data.object).toMatchObject({
      id: session.id,
      object: 'checkout.session',
      status: 'complete',
      payment_status: 'paid',
      amount_total: 3200,
      payment_intent: reference,
      customer_details: { email: 'lamp@example.com' },
    });
    expect(reference).toMatch(/^pi_/);
  });
});

describe("a PaymentIntent's own events", () => {
  it('payment_intent.created and .canceled are written with their change and queued to the endpoints that want them', async () => {
    const m = await frozenMerchant();
    const stripe = client(m);
    const endpoint = await stripe.webhookEndpoints.create({
      url: `${hooks.base}/own`,
      enabled_events: ['payment_intent.created', 'payment_intent.canceled'],
    });
    const now = (await clockFor(t.database.db, m.id)).now();
    const id = newId('stripePaymentIntent');
    const row = {
      id,
      merchantId: m.id,
      amount: 900n,
      currency: 'usd',
      captureMethod: 'automatic' as const,
      customerId: null,
      paymentMethod: null,
      cardPaymentId: null,
      attemptPaymentMethod: null,
      description: 'kettle',
      metadata: {},
      receiptEmail: null,
      returnUrl: null,
      clientSecret: `${id}_secret_x`,
      canceledAt: null,
      cancellationReason: null,
      createdAt: now,
      updatedAt: now,
    };
    await t.database.db.transaction((tx) => insertIntent(tx, row));
    expect((await stripe.paymentIntents.retrieve(id)).status).toBe('requires_payment_method');
    const canceled = { ...row, canceledAt: now, cancellationReason: 'abandoned' };
    await t.database.db.transaction((tx) => recordIntentCanceled(tx, { row: canceled, payment: null }));
    await t.advance(m, 1);
    await eventually(() => hooks.at('/own').length === 2, 'the deliveries');
    const events = verified(stripe, '/own', endpoint.secret as string);
    const created = events.find((e) => e.type === 'payment_intent.created') as Stripe.Event;
    expect(created.id).toBe(`evt_${id.slice(3)}n`);
    expect(created.data.object).toMatchObject({
      id,
      amount: 900,
      description: 'kettle',
      status: 'requires_payment_method',
    });
    const cancel = events.find((e) => e.type === 'payment_intent.canceled') as Stripe.Event;
    expect(cancel.id).toMatch(/^evt_[0-9A-Z]{26}x$/);
    expect(cancel.data.object).toMatchObject({ id, status: 'canceled', cancellation_reason: 'abandoned' });
    expect((await stripe.events.retrieve(created.id)).data).toEqual(created.data);
    expect((await stripe.events.list({ type: 'payment_intent.*' })).data.map((e) => e.id)).toEqual([
      cancel.id,
      created.id,
    ]);
  });
});

/** A PaymentIntent made with a plain form POST, without the Idempotency-Key the SDK adds. */
async function formPost(m: TestMerchant, path: string, body: string): Promise<Stripe.PaymentIntent> {
  const answer = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${m.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as Stripe.PaymentIntent;
}

describe('payment_intent.created through the API', () => {
  it('is queued to each enabled endpoint that wants it, whether the intent is written at once or in a transaction', async () => {
    const m = await frozenMerchant();
    const stripe = client(m);
    const wanted = await stripe.webhookEndpoints.create({
      url: `${hooks.base}/created`,
      enabled_events: ['payment_intent.created'],
    });
    await stripe.webhookEndpoints.create({
      url: `${hooks.base}/charges`,
      enabled_events: ['charge.succeeded'],
    });
    const off = await stripe.webhookEndpoints.create({
      url: `${hooks.base}/off`,
      enabled_events: ['payment_intent.created'],
    });
    await stripe.webhookEndpoints.update(off.id, { disabled: true });
    // Another merchant's endpoint that wants everything sees none of these.
    const other = await frozenMerchant();
    const others = await client(other).webhookEndpoints.create({
      url: `${hooks.base}/other`,
      enabled_events: ['*'],
    });

    // Without an Idempotency-Key (the SDK sends one with every POST) an intent is written by one change.
    const before = { ...groupCommitStats(t.database.db) };
    const plain = await formPost(m, '/v1/payment_intents', 'amount=500&currency=usd');
    // Written by the group commit's one statement, its deliveries with it.
    const after = { ...groupCommitStats(t.database.db) };
    expect(after.statements).toBeGreaterThan(before.statements);
    expect([after.transactions, after.retriedAlone]).toEqual([before.transactions, before.retriedAlone]);
    const paid = await formPost(
      m,
      '/v1/payment_intents',
      'amount=700&currency=usd&payment_method=pm_card_visa&confirm=true',
    );
    // A keyed request writes in the request's own transaction.
    const keyed = await stripe.paymentIntents.create(
      { amount: 900, currency: 'usd' },
      { idempotencyKey: `created-${m.id}` },
    );
    expect([plain.status, paid.status, keyed.status]).toEqual([
      'requires_payment_method',
      'succeeded',
      'requires_payment_method',
    ]);
    await t.advance(m, 1);
    await eventually(
      () => hooks.at('/created').length === 3 && hooks.at('/charges').length === 1,
      'the deliveries',
    );
    const created = verified(stripe, '/created', wanted.secret as string);
    expect(created.map((e) => e.type)).toEqual(Array(3).fill('payment_intent.created'));
    expect(created.map((e) => (e.data.object as Stripe.PaymentIntent).id).sort()).toEqual(
      [plain.id, paid.id, keyed.id].sort(),
    );
    expect(created.map((e) => e.id).sort()).toEqual(
      [plain.id, paid.id, keyed.id].map((id) => `evt_${id.slice(3)}n`).sort(),
    );
    // Created with its payment method, before its confirmation: the event holds the intent as it was then.
    const paidCreated = created.find((e) => (e.data.object as Stripe.PaymentIntent).id === paid.id);
    expect(paidCreated?.data.object).toMatchObject({ status: 'requires_confirmation' });
    expect(JSON.parse(hooks.at('/charges')[0]?.body ?? '{}').type).toBe('charge.succeeded');
    expect(hooks.at('/off')).toHaveLength(0);
    const queuedToOff = await t.database.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, off.id));
    expect(queuedToOff).toEqual([]);
    const queuedToOther = await t.database.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, others.id));
    expect(queuedToOther).toEqual([]);
    expect(hooks.at('/other')).toHaveLength(0);
  });
});

describe('the background delivery pump', () => {
  it('turns a native event into the Stripe deliveries and sends them, as the server does', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const endpoint = await stripe.webhookEndpoints.create({
      url: `${hooks.base}/pump`,
      enabled_events: ['payment_intent.succeeded', 'charge.succeeded'],
    });
    const paid = await stripe.paymentIntents.create({
      amount: 4200,
      currency: 'usd',
      payment_method: 'pm_card_amex',
      confirm: true,
    });
    const pump = new DeliveryPump(t.database.db, pino({ level: 'silent' }), { coalesceMs: 0 });
    try {
      pump.wake();
      await eventually(() => hooks.at('/pump').length === 2, 'the pumped deliveries', 20_000);
    } finally {
      await pump.stop();
    }
    const events = verified(stripe, '/pump', endpoint.secret as string);
    expect(events.map((e) => e.type).sort()).toEqual(['charge.succeeded', 'payment_intent.succeeded']);
    expect(events.every((e) => (e.data.object as { id: string }).id !== undefined)).toBe(true);
    expect(events.find((e) => e.type === 'payment_intent.succeeded')?.data.object).toMatchObject({
      id: paid.id,
    });
  });
});
