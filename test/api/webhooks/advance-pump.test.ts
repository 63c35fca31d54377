import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { type RunningServer, startServer } from '../../../src/server.ts';
import { ownPostgresDatabase } from '../../support/harness.ts';
import { Receiver } from '../../support/receiver.ts';

// The real server in this process: its background runner (the delivery pump woken by every committed
// event's announcement and by its tick) races the clock advance for the merchant's deliveries, as in
// `npm start`. On Postgres it gets a database of its own, so its pump takes no other file's deliveries.
let server: RunningServer;
let receiver: Receiver;
let dropDatabase = async () => {};
beforeAll(async () => {
  const env: NodeJS.ProcessEnv = {
    PORT: '0',
    SANDBANK_MEMORY: '1',
    LOG_LEVEL: 'silent',
    // A short tick: the runner wakes the pump often, on top of every event's announcement.
    SCHEDULER_INTERVAL_MS: '20',
  };
  const own = await ownPostgresDatabase('sandbank_advance_pump');
  if (own) {
    env.DATABASE_URL = own.url;
    dropDatabase = own.drop;
  }
  server = await startServer(loadConfig(env, []), pino({ level: 'silent' }));
  receiver = await new Receiver().start();
  receiver.status = 500;
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
  await dropDatabase();
});

type Json = Record<string, unknown>;

async function call(
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Json> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...headers,
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as Json;
  expect(response.status, JSON.stringify(json)).toBeLessThan(300);
  return json;
}

interface Attempt {
  attempted_at: string;
  next_retry_at: string | null;
  status: number | null;
}
interface Delivery {
  state: string;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: Attempt[];
}

/** Seconds after `from` (ISO instants). */
const secondsAfter = (from: string, at: string) => (Date.parse(at) - Date.parse(from)) / 1000;

/** The merchant's keys, its clock frozen now (returned), a failing receiver for `events`. */
async function frozenMerchant(i: number, events: string[]) {
  const signUp = await call(null, 'POST', '/v1/merchants', { name: `Race ${i}` });
  const key = String(signUp.secret_key);
  await call(key, 'POST', '/v1/clock/freeze');
  const start = String((await call(key, 'GET', '/v1/clock')).now);
  await call(key, 'POST', '/v1/webhook_endpoints', { url: receiver.url, enabled_events: events });
  return { key, start };
}

/** Every event of the merchant with its deliveries and their attempt logs. */
async function deliveryLogs(key: string) {
  const events = (await call(key, 'GET', '/v1/events?limit=100')).data as Json[];
  return Promise.all(
    events.map(async (event) => {
      const deliveries = (await call(key, 'GET', `/v1/events/${String(event.id)}/deliveries`))
        .data as unknown as Delivery[];
      return { type: String(event.type), createdAt: String(event.created_at), deliveries };
    }),
  );
}

/**
 * An event's one delivery after a 2-hour advance from `start` to `end`: the first attempt when the
 * event was written, each retry exactly when the one before scheduled it — on the merchant's clock,
 * never at the window's end — and not collapsed: every retry due inside the window was made (5 s,
 * 5 min and 30 min after the first attempt, each up to 10 % later), the next one lies beyond it.
 */
function expectChain(
  window: { start: string; end: string },
  log: { type: string; createdAt: string; deliveries: Delivery[] },
  round: number,
) {
  const where = `round ${round}, ${log.type} at +${secondsAfter(window.start, log.createdAt)} s`;
  expect(log.deliveries, where).toHaveLength(1);
  const delivery = log.deliveries[0] as Delivery;
  const attempts = delivery.attempts;
  const due = [log.createdAt, ...attempts.slice(0, -1).map((a) => String(a.next_retry_at))];
  expect(
    attempts.map((a) => `+${secondsAfter(window.start, a.attempted_at)} s`),
    where,
  ).toEqual(due.map((at) => `+${secondsAfter(window.start, at)} s`));
  expect(
    attempts.map((a) => a.status),
    where,
  ).toEqual([500, 500, 500, 500]);
  expect(delivery, where).toMatchObject({ state: 'pending', attempt_count: 4 });
  expect(secondsAfter(window.end, String(delivery.next_attempt_at)), where).toBeGreaterThan(0);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('a clock advance and the background pump in one process', () => {
  it('attempts every delivery and retry inside the window at its own due time, before answering', async () => {
    // Two collections whose expiry jobs fall inside a 2-hour advance: their `collection.expired`
    // events commit with the advance and wake the pump while the advance delivers the window.
    for (let i = 0; i < 12; i++) {
      const { key, start } = await frozenMerchant(i, ['collection.created', 'collection.expired']);
      for (const expiresIn of [1800, 2400]) {
        await call(key, 'POST', '/v1/collect', { amount: 1, currency: 'USD', expires_in: expiresIn });
      }
      const end = String((await call(key, 'POST', '/v1/clock/advance', { seconds: 7200 })).now);
      expect(secondsAfter(start, end)).toBe(7200);
      const logs = await deliveryLogs(key);
      expect(logs.map((log) => log.type).sort()).toEqual([
        'collection.created',
        'collection.created',
        'collection.expired',
        'collection.expired',
      ]);
      for (const log of logs) expectChain({ start, end }, log, i);
    }
  }, 120_000);

  it('an advance sent with an Idempotency-Key delivers its window the same way, once its transaction commits', async () => {
    for (let i = 0; i < 4; i++) {
      const { key, start } = await frozenMerchant(i, ['collection.created', 'collection.expired']);
      await call(key, 'POST', '/v1/collect', { amount: 1, currency: 'USD', expires_in: 1800 });
      const keyed = { 'idempotency-key': `advance-${i}` };
      const advanced = await call(key, 'POST', '/v1/clock/advance', { seconds: 7200 }, keyed);
      const end = String(advanced.now);
      const logs = await deliveryLogs(key);
      expect(logs.map((log) => log.type).sort()).toEqual(['collection.created', 'collection.expired']);
      for (const log of logs) expectChain({ start, end }, log, i);
      // A replay answers as stored and attempts nothing more.
      const attempts = receiver.received.length;
      expect(await call(key, 'POST', '/v1/clock/advance', { seconds: 7200 }, keyed)).toEqual(advanced);
      expect(String((await call(key, 'GET', '/v1/clock')).now)).toBe(end);
      expect(receiver.received.length).toBe(attempts);
    }
  }, 60_000);

  it('waits for an attempt the pump began before the advance: the retries inside the window follow', async () => {
    for (let i = 0; i < 4; i++) {
      const { key, start } = await frozenMerchant(i, ['collection.created']);
      receiver.delayMs = 300;
      const before = receiver.received.length;
      await call(key, 'POST', '/v1/collect', { amount: 1, currency: 'USD' });
      // The pump has sent the first attempt (at the frozen instant) and waits for the answer.
      await until(() => receiver.received.length > before, 'the first attempt');
      receiver.delayMs = 0;
      const end = String((await call(key, 'POST', '/v1/clock/advance', { seconds: 7200 })).now);
      const logs = await deliveryLogs(key);
      expect(logs.map((log) => log.type)).toEqual(['collection.created']);
      expectChain({ start, end }, logs[0] as (typeof logs)[number], i);
    }
    // Each advance released its hold: the pump delivers the merchant's new events again at once.
    const { key } = await frozenMerchant(99, ['collection.created']);
    await call(key, 'POST', '/v1/clock/advance', { seconds: 60 });
    receiver.status = 200;
    const before = receiver.received.length;
    await call(key, 'POST', '/v1/collect', { amount: 1, currency: 'USD' });
    await until(() => receiver.received.length > before, 'the pump to deliver after an advance');
    receiver.status = 500;
  }, 60_000);
});
