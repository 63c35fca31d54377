/**
 * Webhook delivery and live-event benchmark:
 *
 *   1. throughput — a backlog of N deliveries (created while the worker is off) drained by one
 *      server to a loopback receiver that answers 200 at once: deliveries/s, first to last arrival;
 *   2. latency — paced `POST /v1/collect` requests with the worker on: the time from sending the
 *      committing request to the receiver getting the webhook, and to a graphql-ws subscriber
 *      getting the event (p50, p99);
 *   3. cost — the `POST /v1/collect` rate with one subscribed endpoint (deliveries flowing) against
 *      the rate without, each on a fresh server.
 *
 *   npm run bench:webhooks                          # Sandbank on PGlite (a temp data folder)
 *   DATABASE_URL=postgres://… npm run bench:webhooks # … and on Postgres (a fresh database per run)
 *   BENCH_DURATION=30 BENCH_DELIVERIES=20000 …       # seconds per create-rate run, backlog size
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createClient } from 'graphql-ws';
import postgres from 'postgres';
import WebSocket from 'ws';
import {
  freePort,
  HOST,
  installExitGuards,
  type ManagedChild,
  readDurationSeconds,
  SECRET_KEY,
  sandbankEnv,
  sleep,
  spawnChild,
  stopChild,
  waitForReady,
} from './harness.ts';

const CONNECTIONS = 50;
const LATENCY_SAMPLES = 500;
const LATENCY_INTERVAL_MS = 10; // 100 requests/s: latency, not saturation
const ARRIVAL_TIMEOUT_MS = 120_000;
const GOALS = { deliveriesPerSecond: 1000, p50ToReceiverMs: 50, maxSlowdown: 0.25 };
const HEADERS = { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/json' };

/** A loopback receiver that answers 200 at once and notes when each event arrived. */
class Receiver {
  readonly arrivals = new Map<string, number>();
  count = 0;
  firstAt = 0;
  lastAt = 0;
  url = '';
  #server: Server | null = null;

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = performance.now();
        res.writeHead(200).end();
        this.count++;
        if (this.count === 1) this.firstAt = at;
        this.lastAt = at;
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          data: { object: { reference?: string } };
        };
        const reference = body.data.object.reference;
        if (reference && !this.arrivals.has(reference)) this.arrivals.set(reference, at);
      });
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, HOST, resolve));
    this.url = `http://${HOST}:${(this.#server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  reset(): void {
    this.arrivals.clear();
    this.count = 0;
    this.firstAt = 0;
    this.lastAt = 0;
  }

  async until(count: number): Promise<void> {
    const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
    while (this.count < count) {
      if (Date.now() > deadline) throw new Error(`only ${this.count} of ${count} deliveries arrived`);
      await sleep(20);
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.#server?.close(() => resolve()));
  }
}

interface Store {
  name: string;
  /** A fresh, empty store per server start sequence; `drop` removes it. */
  fresh(): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
}

function pgliteStore(): Store {
  return {
    name: 'pglite',
    async fresh() {
      const dir = mkdtempSync(join(tmpdir(), 'sandbank-bench-hooks-'));
      return {
        env: { SANDBANK_DATA_DIR: dir },
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  };
}

function postgresStore(url: string): Store {
  return {
    name: 'postgres',
    async fresh() {
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      const name = `sandbank_bench_${process.pid}_${Date.now()}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      const dbUrl = new URL(url);
      dbUrl.pathname = `/${name}`;
      return {
        env: { DATABASE_URL: dbUrl.toString() },
        drop: async () => {
          await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await admin.end();
        },
      };
    },
  };
}

interface Running {
  child: ManagedChild;
  base: string;
  port: number;
}

async function startSandbank(name: string, env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const childEnv = { ...sandbankEnv(port, env.DATABASE_URL), ...env };
  const child = spawnChild(name, ['--import', 'tsx', 'src/main.ts'], childEnv);
  const base = `http://${HOST}:${port}`;
  await waitForReady(child, `${base}/readyz`);
  return { child, base, port };
}

async function call(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`POST ${path} → ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

const addEndpoint = (base: string, url: string) =>
  call(base, '/v1/webhook_endpoints', { url, enabled_events: ['collection.created'] });

function createLoad(base: string, seconds: number, amount?: number): Promise<autocannon.Result> {
  return autocannon({
    url: `${base}/v1/collect`,
    connections: CONNECTIONS,
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ amount: '125.50', currency: 'USD' }),
    ...(amount ? { amount } : { duration: seconds }),
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

interface Result {
  store: string;
  backlog: number;
  deliveriesPerSecond: number;
  receiver: { p50: number; p99: number };
  subscriber: { p50: number; p99: number };
  createWithout: number;
  createWith: number;
  deliveredDuringLoad: number;
}

/** 1. A backlog made with the worker off, then drained by a server with the worker on. */
async function throughput(store: Store, receiver: Receiver, backlog: number) {
  const fresh = await store.fresh();
  try {
    const quiet = await startSandbank(`${store.name}-backlog`, { ...fresh.env, SCHEDULER_INTERVAL_MS: '0' });
    try {
      await addEndpoint(quiet.base, receiver.url);
      const made = await createLoad(quiet.base, 0, backlog);
      if (made['2xx'] !== backlog) throw new Error(`backlog: ${made['2xx']} of ${backlog} created`);
    } finally {
      await stopChild(quiet.child);
    }
    receiver.reset();
    const worker = await startSandbank(`${store.name}-worker`, { ...fresh.env, SCHEDULER_INTERVAL_MS: '50' });
    try {
      await receiver.until(backlog);
      const seconds = (receiver.lastAt - receiver.firstAt) / 1000;
      const perSecond = (backlog - 1) / seconds;
      console.log(`  ${backlog} deliveries in ${seconds.toFixed(2)} s → ${perSecond.toFixed(0)}/s`);
      return { perSecond, worker, fresh };
    } catch (error) {
      await stopChild(worker.child);
      throw error;
    }
  } catch (error) {
    await fresh.drop();
    throw error;
  }
}

/** 2. Paced creates; when did the receiver and a graphql-ws subscriber see each one. */
async function latency(server: Running, receiver: Receiver) {
  receiver.reset();
  const subscribed = new Map<string, number>();
  const client = createClient({
    url: `ws://${HOST}:${server.port}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${SECRET_KEY}` },
  });
  let ready: () => void = () => {};
  const connected = new Promise<void>((resolve) => {
    ready = resolve;
  });
  client.on('connected', () => ready());
  const unsubscribe = client.subscribe<{ events: { data: { object: { reference?: string } } } }>(
    { query: 'subscription { events(types: ["collection.created"]) { data } }' },
    {
      next: (message) => {
        const reference = message.data?.events.data.object.reference;
        if (reference) subscribed.set(reference, performance.now());
      },
      error: (error) => console.error('  subscription error', error),
      complete: () => {},
    },
  );
  await connected;
  await sleep(500); // the subscribe message is not acknowledged: let the server register it
  const sent = new Map<string, number>();
  const requests: Promise<unknown>[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const reference = `lat-${i}`;
    sent.set(reference, performance.now());
    requests.push(call(server.base, '/v1/collect', { amount: '1.00', currency: 'USD', reference }));
    await sleep(LATENCY_INTERVAL_MS);
  }
  await Promise.all(requests);
  await receiver.until(LATENCY_SAMPLES);
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  while (subscribed.size < LATENCY_SAMPLES && Date.now() < deadline) await sleep(20);
  unsubscribe();
  await client.dispose();
  const delays = (arrivals: Map<string, number>) =>
    [...sent]
      .map(([reference, at]) => (arrivals.get(reference) ?? Number.NaN) - at)
      .filter((ms) => !Number.isNaN(ms))
      .sort((a, b) => a - b);
  const toReceiver = delays(receiver.arrivals);
  const toSubscriber = delays(subscribed);
  if (toSubscriber.length < LATENCY_SAMPLES)
    console.warn(`  the subscriber got ${toSubscriber.length} of ${LATENCY_SAMPLES} events`);
  const summary = (xs: number[]) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99) });
  return { receiver: summary(toReceiver), subscriber: summary(toSubscriber) };
}

/** 3. The create rate on a fresh server without an endpoint, then on another with one. */
async function createCost(store: Store, receiver: Receiver, seconds: number) {
  const rates: number[] = [];
  let deliveredDuringLoad = 0;
  let drainSeconds = 0;
  for (const withEndpoint of [false, true]) {
    const fresh = await store.fresh();
    try {
      const server = await startSandbank(`${store.name}-${withEndpoint ? 'with' : 'without'}-endpoint`, {
        ...fresh.env,
      });
      try {
        if (withEndpoint) await addEndpoint(server.base, receiver.url);
        receiver.reset();
        const warm = await createLoad(server.base, 2); // warm-up
        const result = await createLoad(server.base, seconds);
        if (result.non2xx + result.errors > 0)
          throw new Error(`create load: ${result.non2xx} non-2xx, ${result.errors} errors`);
        rates.push(result.requests.average);
        if (withEndpoint) {
          // Under saturation the API keeps priority: deliveries lag, then catch up (webhooks.pump.ts).
          const created = warm['2xx'] + result['2xx'];
          const byEnd = receiver.count;
          const started = performance.now();
          await receiver.until(created);
          deliveredDuringLoad = byEnd;
          drainSeconds = (performance.now() - started) / 1000;
          console.log(
            `  with one endpoint: ${result.requests.average.toFixed(0)} creates/s; ${byEnd} of ${created} deliveries ` +
              `had arrived when the load stopped, the rest within ${drainSeconds.toFixed(1)} s`,
          );
        } else {
          console.log(`  without endpoints: ${result.requests.average.toFixed(0)} creates/s`);
        }
      } finally {
        await stopChild(server.child);
      }
    } finally {
      await fresh.drop();
    }
  }
  return { without: rates[0] ?? 0, with: rates[1] ?? 0, deliveredDuringLoad, drainSeconds };
}

async function benchStore(
  store: Store,
  receiver: Receiver,
  backlog: number,
  seconds: number,
): Promise<Result> {
  console.log(`\n[${store.name}] throughput: a backlog of ${backlog} deliveries`);
  const { perSecond, worker, fresh } = await throughput(store, receiver, backlog);
  let lat: Awaited<ReturnType<typeof latency>>;
  try {
    console.log(`[${store.name}] latency: ${LATENCY_SAMPLES} creates at ${1000 / LATENCY_INTERVAL_MS}/s`);
    lat = await latency(worker, receiver);
  } finally {
    await stopChild(worker.child);
    await fresh.drop();
  }
  console.log(`[${store.name}] create rate, ${seconds} s each, ${CONNECTIONS} connections`);
  const cost = await createCost(store, receiver, seconds);
  return {
    store: store.name,
    backlog,
    deliveriesPerSecond: perSecond,
    receiver: lat.receiver,
    subscriber: lat.subscriber,
    createWithout: cost.without,
    createWith: cost.with,
    deliveredDuringLoad: cost.deliveredDuringLoad,
  };
}

function report(results: Result[], seconds: number): boolean {
  const cpus = os.cpus();
  console.log(
    `\nMachine: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ` +
      `${new Date().toISOString()}; create runs ${seconds} s`,
  );
  const ms = (x: number) => x.toFixed(1);
  console.log(
    '\nstore     deliveries/s  commit→receiver p50/p99 ms  commit→subscriber p50/p99 ms  creates/s without → with endpoint',
  );
  let held = true;
  for (const r of results) {
    const slowdown = 1 - r.createWith / r.createWithout;
    console.log(
      `${r.store.padEnd(8)}  ${r.deliveriesPerSecond.toFixed(0).padStart(12)}  ${`${ms(r.receiver.p50)} / ${ms(r.receiver.p99)}`.padStart(26)}  ${`${ms(r.subscriber.p50)} / ${ms(r.subscriber.p99)}`.padStart(28)}  ${r.createWithout.toFixed(0)} → ${r.createWith.toFixed(0)} (${(slowdown * 100).toFixed(1)}% slower)`,
    );
    const checks = [
      [`≥ ${GOALS.deliveriesPerSecond} deliveries/s`, r.deliveriesPerSecond >= GOALS.deliveriesPerSecond],
      [`p50 commit→receiver < ${GOALS.p50ToReceiverMs} ms`, r.receiver.p50 < GOALS.p50ToReceiverMs],
      [`create rate with an endpoint within ${GOALS.maxSlowdown * 100}%`, slowdown <= GOALS.maxSlowdown],
    ] as const;
    for (const [label, ok] of checks) {
      console.log(`  ${r.store}: ${label} — ${ok ? 'held' : 'MISSED'}`);
      held &&= ok;
    }
  }
  return held;
}

async function main(): Promise<number> {
  installExitGuards();
  const seconds = readDurationSeconds();
  const backlog = Number(process.env.BENCH_DELIVERIES ?? 5000);
  if (!Number.isInteger(backlog) || backlog < 10) throw new Error('BENCH_DELIVERIES must be an integer ≥ 10');
  const stores = [pgliteStore()];
  if (process.env.DATABASE_URL) stores.push(postgresStore(process.env.DATABASE_URL));
  else console.log('DATABASE_URL is not set: skipping Postgres.');
  const receiver = await new Receiver().start();
  try {
    const results: Result[] = [];
    for (const store of stores) results.push(await benchStore(store, receiver, backlog, seconds));
    report(results, seconds);
    return 0; // targets are reported, not enforced: the machine's speed varies (see docs/internals/benchmarks.md)
  } finally {
    await receiver.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('\nBenchmark aborted:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
