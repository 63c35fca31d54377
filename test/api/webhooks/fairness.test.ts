import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryLimits, WebhookTransport } from '../../../src/kernel/webhook-transport.ts';
import { DeliveryPump } from '../../../src/modules/webhooks/webhooks.pump.ts';
import {
  createTestApp,
  openIsolatedTestDatabase,
  type TestApp,
  type TestMerchant,
} from '../../support/harness.ts';
import { BlackHole, eventually, Receiver } from '../../support/receiver.ts';

// One merchant's receivers that never answer must not delay another merchant's webhooks: the pump
// refills each slot as its attempt ends, caps the attempts in flight per merchant and per endpoint,
// and an endpoint that keeps failing gets a shorter limit. Real receivers on loopback; the black
// hole accepts and never answers. The pump takes every merchant's deliveries in its database: on
// Postgres this file gets a database of its own.
let t: TestApp;
let receiver: Receiver;
let hole: BlackHole;
let pump: DeliveryPump | null = null;
let dropDatabase = async () => {};
beforeAll(async () => {
  const isolated = await openIsolatedTestDatabase();
  t = await createTestApp({ database: isolated.database });
  dropDatabase = isolated.drop;
  receiver = await new Receiver().start();
});
afterEach(async () => {
  // Cut the hanging attempts (they fail at once), let the pump record them, and forget what is left.
  await hole?.stop();
  await pump?.stop();
  pump = null;
  receiver.received.length = 0;
  await t.database.db.execute(sql`DELETE FROM webhook_deliveries WHERE state = 'pending'`);
});
afterAll(async () => {
  await receiver.stop();
  // Closes the app's database (and on Postgres drops it).
  await dropDatabase();
});

type Json = Record<string, unknown>;

/** A test app sharing `transport` (its clock advances and the pump use the same slots). */
async function withTransport(limits: Partial<DeliveryLimits>) {
  const transport = new WebhookTransport(undefined, undefined, limits);
  const app = await createTestApp({ database: t.database, webhookTransport: transport });
  return { transport, app };
}

async function endpointAt(app: TestApp, m: TestMerchant, url: string): Promise<string> {
  const res = await app.rest<Json>('POST', '/v1/webhook_endpoints', {
    key: m.secretKey,
    body: { url, enabled_events: ['collection.created'] },
  });
  expect(res.status).toBe(200);
  return String(res.body.id);
}

async function collect(app: TestApp, m: TestMerchant, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const res = await app.rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: 1, currency: 'USD' },
    });
    expect(res.status).toBe(200);
  }
}

/** Merchant A: 16 endpoints at the black hole (paths /a0…/a15), `events` collections each. */
async function blackHoledMerchant(app: TestApp, events: number): Promise<TestMerchant> {
  const a = await app.merchant('Black-holed');
  for (let i = 0; i < 16; i++) await endpointAt(app, a, `${hole.url}/a${i}`);
  await collect(app, a, events);
  return a;
}

const quiet = pino({ level: 'silent' });

describe('webhook delivery fairness', () => {
  it("delivers merchant B's webhook while merchant A's 16 black-holed endpoints have attempts hanging; caps hold", async () => {
    hole = await new BlackHole().start();
    const { transport, app } = await withTransport({ timeoutMs: 60_000, perMerchant: 8, perEndpoint: 4 });
    // A's 112 deliveries fall due first, then C's 10 to one black-holed endpoint, then B's one.
    const a = await blackHoledMerchant(app, 7);
    const c = await app.merchant('One slow endpoint');
    await endpointAt(app, c, `${hole.url}/c`);
    await collect(app, c, 10);
    const b = await app.merchant('Bystander');
    await endpointAt(app, b, receiver.url);
    await collect(app, b, 1);

    pump = new DeliveryPump(t.database.db, quiet, { coalesceMs: 0, transport });
    pump.wake();
    await eventually(() => receiver.received.length === 1, "B's webhook");
    // B's arrived while A's attempts still hang: none of them has ended.
    expect(hole.hanging).toBeGreaterThan(0);
    expect(hole.ended).toBe(0);

    // A at its merchant cap (8 of 16 endpoints), C at its endpoint cap (4): 12 hanging, never more.
    await eventually(() => hole.hanging === 12, '12 attempts hanging');
    const aHanging = [...hole.open].filter(([path]) => path.startsWith('/a')).reduce((n, [, k]) => n + k, 0);
    expect(aHanging).toBe(8);
    expect(hole.open.get('/c')).toBe(4);
    expect(hole.maxOpen).toBe(12);
    expect(hole.maxOpenByPath.get('/c')).toBe(4);
    for (const [path, max] of hole.maxOpenByPath)
      if (path.startsWith('/a')) expect(max).toBeLessThanOrEqual(4);
    const busy = transport.slots.busy().merchants;
    expect([busy[a.id], busy[c.id]]).toEqual([8, 4]);
    expect(hole.ended).toBe(0);
  });

  it('refills a slot as soon as its attempt ends while another attempt hangs', async () => {
    hole = await new BlackHole().start();
    // A pool of 3 slots (and leases of 3): one hangs at the black hole, the other two keep going.
    const { transport } = await withTransport({ timeoutMs: 60_000, concurrency: 3 });
    const d = await t.merchant('Hanging');
    await endpointAt(t, d, `${hole.url}/h`);
    await collect(t, d, 1);
    const e = await t.merchant('Fast');
    await endpointAt(t, e, receiver.url);
    await collect(t, e, 8);

    pump = new DeliveryPump(t.database.db, quiet, { coalesceMs: 0, batchSize: 3, transport });
    pump.wake();
    await eventually(() => receiver.received.length === 8, "E's 8 webhooks");
    expect(hole.open.get('/h')).toBe(1);
    expect(hole.ended).toBe(0);
    expect(transport.slots.inFlight).toBeLessThanOrEqual(3);
  });

  it("answers merchant B's clock advance while the pump's attempts to A's black hole hang", async () => {
    hole = await new BlackHole().start();
    const { transport, app } = await withTransport({ timeoutMs: 60_000 });
    // A's 16 deliveries and B's one are due together: the pump takes them in one go.
    await blackHoledMerchant(app, 1);
    const b = await app.merchant('Bystander');
    await endpointAt(app, b, receiver.url);
    await collect(app, b, 1);

    pump = new DeliveryPump(t.database.db, quiet, { coalesceMs: 0, transport });
    pump.wake();
    await eventually(
      () => receiver.received.length === 1 && hole.hanging >= 8,
      "B's webhook and A's attempts",
    );
    // B's advance waits for its own deliveries in flight elsewhere, not for A's.
    const advanced = app.rest('POST', '/v1/clock/advance', { key: b.secretKey, body: { seconds: 1 } });
    let answered = false;
    void advanced.then(() => {
      answered = true;
    });
    await eventually(() => answered, "B's advance");
    expect((await advanced).status).toBe(200);
    expect(hole.ended).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });

  it("a clock advance's attempts count under its merchant's cap, with the pump's", async () => {
    hole = await new BlackHole().start();
    const { transport, app } = await withTransport({ timeoutMs: 60_000, perMerchant: 8 });
    const a = await blackHoledMerchant(app, 2);
    pump = new DeliveryPump(t.database.db, quiet, { coalesceMs: 0, transport });
    pump.wake();
    await eventually(() => hole.hanging >= 8, "A's attempts");
    expect(hole.hanging).toBe(8);
    // A's advance takes A's other deliveries itself; its attempt waits for one of A's slots.
    const advanced = app.rest('POST', '/v1/clock/advance', { key: a.secretKey, body: { seconds: 1 } });
    await eventually(() => transport.slots.waiting > 0 || hole.hanging > 8, 'the advance to attempt');
    expect(hole.hanging).toBe(8);
    expect(hole.maxOpen).toBe(8);
    await hole.stop(); // the hanging attempts fail, the advance's go through (refused at once)
    expect((await advanced).status).toBe(200);
  });

  it('shortens the limit of an endpoint after 3 failed attempts in a row, and restores it on success', async () => {
    hole = await new BlackHole().start();
    const { app } = await withTransport({ timeoutMs: 1000, failingTimeoutMs: 150, failingStreak: 3 });
    const m = await app.merchant('Streak');
    await app.rest('POST', '/v1/clock/freeze', { key: m.secretKey });
    const endpoint = await endpointAt(app, m, `${hole.url}/s`);
    await collect(app, m, 1);
    const advance = (seconds: number) =>
      app.rest('POST', '/v1/clock/advance', { key: m.secretKey, body: { seconds } });
    const attemptsOf = async () => {
      const events = await app.rest<{ data: Json[] }>('GET', '/v1/events?type=collection.created', {
        key: m.secretKey,
      });
      const log = await app.rest<{ data: { attempts: Json[] }[] }>(
        'GET',
        `/v1/events/${events.body.data[0]?.id}/deliveries`,
        { key: m.secretKey },
      );
      return log.body.data[0]?.attempts ?? [];
    };
    // Attempts at 0 s, 5 s, 5 min and 35 min of clock time: the first three get the whole limit,
    // the fourth (after three failures in a row) the shorter one.
    expect((await advance(3600)).status).toBe(200);
    const attempts = await attemptsOf();
    expect(attempts.map((a) => a.error)).toEqual([
      'no answer within 1000 ms',
      'no answer within 1000 ms',
      'no answer within 1000 ms',
      'no answer within 150 ms (limit shortened after consecutive failures)',
    ]);
    expect(attempts.slice(0, 3).every((a) => Number(a.duration_ms) >= 1000)).toBe(true);
    expect(Number(attempts[3]?.duration_ms)).toBeLessThan(1000);

    // A success ends the streak: the next failure gets the whole limit again.
    await app.rest('POST', `/v1/webhook_endpoints/${endpoint}`, {
      key: m.secretKey,
      body: { url: receiver.url },
    });
    expect((await advance(3 * 3600)).status).toBe(200);
    expect((await attemptsOf()).at(-1)).toMatchObject({ status: 200 });
    await app.rest('POST', `/v1/webhook_endpoints/${endpoint}`, {
      key: m.secretKey,
      body: { url: `${hole.url}/s` },
    });
    await collect(app, m, 1);
    expect((await advance(1)).status).toBe(200);
    expect((await attemptsOf()).map((a) => a.error)).toEqual(['no answer within 1000 ms']);
  });
});
