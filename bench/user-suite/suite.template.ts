/**
 * One file of the realistic user suite (bench/testing-api.bench.ts copies it 50 times into files/):
 * a merchant of the file's own on the run's one server, 20 tests of the kind a payment integration
 * has, every call into Sandbank timed. The time spent in Sandbank is written to results/ at the end.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SharedSandbankMerchant, sandbankMerchant, type WebhookReceiver } from '../../dist/testing.js';

let inSandbank = 0;
/** Time in Sandbank by kind of call (what the bench prints beside the total). */
const byKind: Record<string, number> = {};
/** Calls by kind. */
const calls: Record<string, number> = {};
async function timed<T>(work: () => Promise<T>, kind = 'request'): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    const ms = performance.now() - started;
    inSandbank += ms;
    byKind[kind] = (byKind[kind] ?? 0) + ms;
    calls[kind] = (calls[kind] ?? 0) + 1;
  }
}

let shop: SharedSandbankMerchant;
let hooks: WebhookReceiver;

async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  return timed(async () => {
    const response = await fetch(`${shop.url}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${shop.secretKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as T };
  });
}

const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
const DECLINED = { ...CARD, number: '4000000000000002' };

beforeAll(async () => {
  shop = await timed(() => sandbankMerchant(), 'sign-up');
  hooks = await timed(() => shop.webhookReceiver(), 'webhook receiver');
}, 60_000);

afterAll(async () => {
  await timed(() => shop.close(), 'close');
  const file = process.env.USER_SUITE_RESULTS;
  if (file) writeFileSync(join(file, `${shop.id}.json`), JSON.stringify({ ms: inSandbank, byKind, calls }));
}, 60_000);

describe('checkout', () => {
  for (const [i, amount] of [12.5, 40, 99.99, 250, 1000].entries()) {
    it(`creates, pays and reads back an order of ${amount}`, async () => {
      const reference = `order-${i}`;
      const created = await api('POST', '/collect', { amount, currency: 'USD', reference });
      expect(created.status).toBe(200);
      const paid = await api('POST', `/simulate/collections/${reference}/pay`, {
        method: 'card',
        card: CARD,
      });
      expect(paid.body).toMatchObject({ state: 'succeeded' });
      const read = await api('GET', `/collections/${reference}`);
      expect(read.body).toMatchObject({ reference, state: 'succeeded' });
    });
  }

  it('refuses a declined card', async () => {
    await api('POST', '/collect', { amount: 10, currency: 'USD', reference: 'declined' });
    const paid = await api('POST', '/simulate/collections/declined/pay', { method: 'card', card: DECLINED });
    expect(paid.status).toBe(402);
  });

  it('lists the orders', async () => {
    const list = await api<{ data: unknown[] }>('GET', '/collections?limit=10');
    expect(list.body.data.length).toBeGreaterThan(0);
  });

  it('announces a new collection by webhook', async () => {
    const created = await api<{ id: string }>('POST', '/collect', { amount: 5, currency: 'USD' });
    const event = await timed(
      () => hooks.waitFor('collection.created', (e) => e.data.object.id === created.body.id),
      'waiting for a webhook',
    );
    expect(event.type).toBe('collection.created');
  });
});

describe('card payments', () => {
  for (const amount of [20, 35, 80]) {
    it(`captures a payment of ${amount}`, async () => {
      const payment = await api('POST', '/card_payments', { amount, currency: 'USD', card: CARD });
      expect(payment.body).toMatchObject({ state: 'captured' });
    });
  }

  it('authorizes, captures part and refunds part', async () => {
    const auth = await api<{ id: string }>('POST', '/card_payments', {
      amount: 100,
      currency: 'USD',
      capture: false,
      card: CARD,
    });
    const captured = await api('POST', `/card_payments/${auth.body.id}/capture`, { amount: 60 });
    expect(captured.body).toMatchObject({ state: 'captured' });
    const refund = await api('POST', `/card_payments/${auth.body.id}/refunds`, { amount: 25 });
    expect(refund.status).toBe(200);
  });

  it('voids an authorization', async () => {
    const auth = await api<{ id: string }>('POST', '/card_payments', {
      amount: 15,
      currency: 'USD',
      capture: false,
      card: CARD,
    });
    const voided = await api('POST', `/card_payments/${auth.body.id}/void`);
    expect(voided.status).toBe(200);
  });
});

describe('balances and time', () => {
  it('shows the balances', async () => {
    const balances = await api('GET', '/balances');
    expect(balances.status).toBe(200);
  });

  it('lists the events', async () => {
    const events = await api<{ data: unknown[] }>('GET', '/events?limit=10');
    expect(events.body.data.length).toBeGreaterThan(0);
  });

  it('expires an unpaid checkout a day later', async () => {
    await api('POST', '/collect', { amount: 7, currency: 'USD', reference: 'unpaid' });
    await timed(() => shop.advanceClock({ seconds: 25 * 3600 }), 'clock advance');
    const read = await api('GET', '/collections/unpaid');
    expect(read.body).toMatchObject({ state: 'expired' });
  });

  for (const n of [1, 2, 3]) {
    it(`reads an order back (${n})`, async () => {
      const read = await api('GET', `/collections/order-${n}`);
      expect(read.status).toBe(200);
    });
  }

  it('starts from a clean slate after a reset', async () => {
    await timed(() => shop.reset(), 'reset');
    const list = await api<{ data: unknown[] }>('GET', '/collections?limit=10');
    expect(list.body.data).toEqual([]);
  });
});
