import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openDatabase } from '../../src/db/client.ts';
import { verifyLedger } from '../../src/modules/ledger/ledger.queries.ts';
import { freePort } from '../processes/server-process.ts';
import { podman, podmanEnv, ROOT } from './podman.ts';

/**
 * deploy/compose.yaml as a team runs it — Postgres, three Sandbank instances, HAProxy — brought up
 * by podman-compose on a private podman network, with the test's additions (loopback ports, a
 * webhook receiver container: test/container/compose.test.yaml). Creates and payments go through
 * the load balancer while one instance is killed and started again; then everything acknowledged
 * must be there, delivered and balanced. Last, the throughput through the load balancer with 3, 2
 * and 1 instances (docs/internals/benchmarks.md).
 */
const missing = process.env.SANDBANK_CONTAINERS_MISSING;
const LOAD_SECONDS = Number(process.env.STACK_LOAD_SECONDS ?? 20);
const BENCH_SECONDS = Number(process.env.STACK_BENCH_SECONDS ?? 5);
const project = `sbtest${process.pid}`;
const ports = { lb: 0, pg: 0, s1: 0, s2: 0, s3: 0, receiver: 0 };
let env: NodeJS.ProcessEnv = {};
const container = (service: string) => `${project}_${service}_1`;

function compose(args: string[]): string {
  const result = spawnSync(
    'podman-compose',
    ['-p', project, '-f', 'deploy/compose.yaml', '-f', 'test/container/compose.test.yaml', ...args],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 180_000 },
  );
  if (result.status !== 0)
    throw new Error(`podman-compose ${args.join(' ')}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(250);
  }
}

const ready = (port: number) =>
  until(`127.0.0.1:${port}/readyz`, 90_000, async () =>
    (await fetch(`http://127.0.0.1:${port}/readyz`)).ok ? true : undefined,
  );

beforeAll(async () => {
  if (missing) return;
  for (const key of Object.keys(ports) as (keyof typeof ports)[]) ports[key] = await freePort();
  env = {
    ...podmanEnv(),
    SANDBANK_IMAGE: process.env.SANDBANK_TEST_IMAGE,
    POSTGRES_IMAGE: process.env.SANDBANK_TEST_POSTGRES_IMAGE,
    HAPROXY_IMAGE: process.env.SANDBANK_TEST_HAPROXY_IMAGE,
    TEST_BASE_IMAGE: process.env.SANDBANK_TEST_BASE_IMAGE,
    SANDBANK_PORT: String(ports.lb),
    // The values the compose file requires, and the receiver container let through the
    // private-network block (test/container/compose.test.yaml).
    POSTGRES_PASSWORD: randomBytes(18).toString('hex'),
    WEBHOOK_ALLOWED_HOSTS: 'receiver',
    PUBLIC_URL: `http://127.0.0.1:${ports.lb}`,
    LOG_LEVEL: 'warn',
    TEST_POSTGRES_PORT: String(ports.pg),
    TEST_PORT_1: String(ports.s1),
    TEST_PORT_2: String(ports.s2),
    TEST_PORT_3: String(ports.s3),
    TEST_RECEIVER_PORT: String(ports.receiver),
    TEST_RECEIVER_DIR: `${ROOT}/test/container`,
  };
  // Postgres first: podman-compose does not wait for its health check as docker compose does (the
  // instances would restart until it answers; waiting here keeps the start-up short).
  compose(['up', '-d', 'postgres', 'receiver']);
  await until('Postgres', 60_000, async () =>
    spawnSync('podman', ['exec', container('postgres'), 'pg_isready', '-U', 'sandbank', '-d', 'sandbank'], {
      env,
    }).status === 0
      ? true
      : undefined,
  );
  compose(['up', '-d']);
  await Promise.all([ready(ports.s1), ready(ports.s2), ready(ports.s3), ready(ports.lb)]);
}, 240_000);

afterAll(() => {
  if (missing) return;
  // -v: with their anonymous volumes (the image declares /data; unused on Postgres).
  const services = ['haproxy', 'sandbank-1', 'sandbank-2', 'sandbank-3', 'receiver', 'postgres'];
  spawnSync('podman', ['rm', '-f', '-v', '-t', '2', ...services.map(container)], { env, timeout: 60_000 });
  spawnSync(
    'podman-compose',
    ['-p', project, '-f', 'deploy/compose.yaml', '-f', 'test/container/compose.test.yaml', 'down', '-t', '2'],
    {
      cwd: ROOT,
      env,
      timeout: 120_000,
    },
  );
  spawnSync('podman', ['volume', 'rm', '-f', `${project}_pgdata`], { env });
  spawnSync('podman', ['network', 'rm', '-f', `${project}_default`], { env });
}, 180_000);

type Json = Record<string, unknown>;

function api(key: string) {
  const base = `http://127.0.0.1:${ports.lb}`;
  return async (method: string, path: string, body?: Json): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? (JSON.parse(text) as Json) : { text } };
  };
}

/** An events subscription opened on one instance directly; `ids` collects what it streams. */
async function subscribe(port: number, key: string) {
  const ids = new Set<string>();
  const client: Client = createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
  });
  client.subscribe<{ events: { id: string } }>(
    { query: 'subscription { events { id type } }' },
    {
      next: (message) => message.data && ids.add(message.data.events.id),
      error: () => {},
      complete: () => {},
    },
  );
  await until(`a live subscription on ${port}`, 15_000, async () => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return Number(/^sandbank_live_subscriptions (\d+)/m.exec(text)?.[1]) > 0 ? true : undefined;
  });
  return { client, ids };
}

async function allEvents(call: ReturnType<typeof api>): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await call('GET', `/v1/events?limit=100${after ? `&starting_after=${after}` : ''}`);
    expect(page.status).toBe(200);
    const data = page.body.data as { id: string }[];
    ids.push(...data.map((event) => event.id));
    if (!page.body.has_more || data.length === 0) return ids;
    after = data[data.length - 1]?.id;
  }
}

const cents = (amount: unknown) => Math.round(Number(amount) * 100);

describe.skipIf(Boolean(missing))('the compose stack (Postgres, 3 instances, HAProxy)', () => {
  it('keeps every acknowledged write, delivers every event and balances the ledger while an instance is killed and restarted', async () => {
    const signup = await fetch(`http://127.0.0.1:${ports.lb}/v1/merchants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Stack test' }),
    });
    const merchant = (await signup.json()) as { id: string; secret_key: string };
    const call = api(merchant.secret_key);
    expect((await call('POST', '/v1/clock/freeze')).status).toBe(200);
    expect((await call('POST', '/v1/clock/advance', { to: '2031-12-02T14:00:00Z' })).status).toBe(200);
    const endpoint = await call('POST', '/v1/webhook_endpoints', {
      url: 'http://receiver:8080/hooks',
      enabled_events: ['*'],
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(200);
    // Subscribers on the instances that stay up.
    const subscribers = [
      await subscribe(ports.s1, merchant.secret_key),
      await subscribe(ports.s3, merchant.secret_key),
    ];

    const attempted = new Map<string, number>(); // reference → amount in cents, every create sent
    const created = new Map<string, number>(); // acknowledged creates
    const paid = new Map<string, number>(); // reference → amount in cents, acknowledged payments
    const failures: Record<string, number> = {};
    const fail = (what: string) => {
      failures[what] = (failures[what] ?? 0) + 1;
    };
    const started = Date.now();
    const end = started + LOAD_SECONDS * 1000;
    let n = 0;
    const worker = async () => {
      while (Date.now() < end) {
        const reference = `load-${++n}`;
        const amountCents = 100 + ((n * 7919) % 90_000);
        attempted.set(reference, amountCents);
        try {
          const res = await call('POST', '/v1/collect', {
            amount: (amountCents / 100).toFixed(2),
            currency: 'USD',
            reference,
          });
          if (res.status !== 200) {
            fail(`collect ${res.status}`);
            continue;
          }
          created.set(reference, amountCents);
          const pay = await call('POST', `/v1/simulate/collections/${reference}/pay`, {
            method: 'card',
            card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
          });
          if (pay.status === 200) paid.set(reference, amountCents);
          else fail(`pay ${pay.status}`);
        } catch {
          fail('connection');
        }
      }
    };
    let killed = { answering: true };
    const chaos = (async () => {
      await sleep(LOAD_SECONDS * 300);
      podman(['kill', '-s', 'KILL', container('sandbank-2')]);
      killed = {
        answering: await fetch(`http://127.0.0.1:${ports.s2}/readyz`).then(
          () => true,
          () => false,
        ),
      };
      await sleep(LOAD_SECONDS * 300);
      // restart: unless-stopped may have brought it back already; start is then a no-op.
      podman(['start', container('sandbank-2')]);
    })();
    await Promise.all([...Array.from({ length: 6 }, worker), chaos]);
    await ready(ports.s2);
    // The instance was down (SIGKILL: no graceful shutdown) and is serving again.
    expect(killed.answering).toBe(false);
    console.log(
      `stack load: ${created.size} collections created, ${paid.size} paid in ${LOAD_SECONDS} s (sandbank-2 killed and restarted); refused or lost: ${JSON.stringify(failures)}`,
    );
    expect(paid.size).toBeGreaterThan(20);

    // Every acknowledged create and payment is there. A request whose answer was lost with the
    // killed instance may or may not have committed: what did is counted from what is stored.
    let succeededCents = 0;
    for (const [reference, amountCents] of attempted) {
      const res = await call('GET', `/v1/collections/${reference}`);
      if (created.has(reference)) expect(res.status, reference).toBe(200);
      if (res.status !== 200) continue;
      expect(cents(res.body.amount), reference).toBe(amountCents);
      if (paid.has(reference)) expect(res.body.state, reference).toBe('succeeded');
      if (res.body.state === 'succeeded') succeededCents += amountCents;
    }

    // Every event reaches the receiver at least once, and both subscribers.
    const events = await allEvents(call);
    expect(events.length).toBeGreaterThanOrEqual(paid.size * 2);
    const receiver = `http://127.0.0.1:${ports.receiver}/deliveries`;
    const deliveries = await until('every event delivered', 150_000, async () => {
      const list = (await (await fetch(receiver)).json()) as { id: string }[];
      const got = new Set(list.map((delivery) => delivery.id));
      return events.every((id) => got.has(id)) ? list : undefined;
    });
    const duplicates = deliveries.length - new Set(deliveries.map((delivery) => delivery.id)).size;
    console.log(
      `stack webhooks: ${events.length} events, ${deliveries.length} deliveries, ${duplicates} duplicates`,
    );
    for (const subscriber of subscribers) {
      await until('every event on a subscriber', 15_000, async () =>
        events.every((id) => subscriber.ids.has(id)) ? true : undefined,
      );
      await subscriber.client.dispose();
    }

    // Due work — each payment's funds becoming available — runs once: available is exactly the sum
    // of the succeeded collections, and nothing is left pending.
    const advanced = await call('POST', '/v1/clock/advance', { seconds: 10 * 86_400 });
    expect(advanced.status).toBe(200);
    const balances = await call('GET', '/v1/balances');
    const usd = (balances.body.data as Json[]).find((balance) => balance.currency === 'USD') as Json;
    expect([cents(usd.available), cents(usd.pending)]).toEqual([succeededCents, 0]);

    const database = await openDatabase({
      driver: 'postgres',
      url: `postgres://sandbank:${env.POSTGRES_PASSWORD}@127.0.0.1:${ports.pg}/sandbank`,
      maxConnections: 1,
    });
    try {
      const ledger = await verifyLedger(database.db, merchant.id);
      expect(ledger.mismatches).toEqual([]);
      expect(Object.values(ledger.sums).every((sum) => sum === 0n)).toBe(true);
    } finally {
      await database.close();
    }
  });

  it('measures the throughput through the load balancer with 3, 2 and 1 instances', async () => {
    const signup = await fetch(`http://127.0.0.1:${ports.lb}/v1/merchants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Stack bench' }),
    });
    const { secret_key } = (await signup.json()) as { secret_key: string };
    const results: { instances: number; requestsPerSecond: number; p50: number; p99: number }[] = [];
    const bench = (duration: number) =>
      autocannon({
        url: `http://127.0.0.1:${ports.lb}/v1/collect`,
        method: 'POST',
        connections: 8,
        duration,
        headers: { authorization: `Bearer ${secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '12.34', currency: 'USD' }),
      });
    // Warm every instance up (JIT, connection pools) before the first measurement.
    await bench(2);
    for (const instances of [3, 2, 1]) {
      if (instances < 3) {
        podman(['stop', '-t', '5', container(`sandbank-${instances + 1}`)]);
        // HAProxy takes it out after two failed checks a second apart (and /readyz answers 503 as it stops).
        await sleep(2500);
      }
      const result = await bench(BENCH_SECONDS);
      expect([result.errors, result.non2xx]).toEqual([0, 0]);
      expect(result.requests.average).toBeGreaterThan(0);
      results.push({
        instances,
        requestsPerSecond: Math.round(result.requests.average),
        p50: result.latency.p50,
        p99: result.latency.p99,
      });
    }
    console.log(
      `stack throughput (POST /v1/collect through HAProxy, 8 connections, ${BENCH_SECONDS} s each):`,
    );
    for (const r of results.reverse()) {
      console.log(
        `  ${r.instances} instance(s): ${r.requestsPerSecond} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms`,
      );
    }
  });
});
