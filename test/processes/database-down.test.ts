import { connect, createServer, type Server, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/availability.ts';
import { type Database, openDatabase, queryRows } from '../../src/db/client.ts';
import type { PgliteWorkerClient } from '../../src/db/pglite-proxy.ts';
import { runTransaction } from '../../src/db/tx.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { call, freePort, type ServerProcess, startServerProcess } from './server-process.ts';

/**
 * While the database cannot be reached, every request that needs it answers 503
 * database_unavailable with Retry-After — REST, GraphQL and /readyz — instead of a 500 or a hang,
 * and service resumes by itself when the database is back (docs/guide/deploy.md, "When the database is unreachable").
 *
 * On Postgres a real server process talks to the shared cluster through a TCP proxy run here, which
 * the test cuts (connections refused) or turns into a black hole (connections accepted, never
 * answered: the connect timeout), then restores. On PGlite, the worker thread is stopped.
 */
vi.setConfig({ testTimeout: 90_000 });

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
/** No request may take longer than this: a request still waiting then fails the test (a hang). */
const HANG_MS = 5_000;

type ProxyMode = 'forward' | 'refuse' | 'blackhole';

/** A TCP proxy on 127.0.0.1 in front of the test's Postgres that can be cut and restored. */
class PostgresProxy {
  readonly port: number;
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | null = null;
  #mode: ProxyMode = 'forward';
  #cutOn: string | null = null;
  /** Connections cut by `cutOn` since it was last set. */
  cutsOn = 0;

  constructor(port: number, target: { host: string; port: number }) {
    this.port = port;
    this.#target = target;
  }

  /** Accepts connections again: forwarded, or (black hole) held open without a byte of answer. */
  async open(mode: Exclude<ProxyMode, 'refuse'>): Promise<void> {
    this.#mode = mode;
    if (this.#server) return;
    const server = createServer((client) => this.#accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
  }

  /** Cuts every connection; `refuse` also stops listening (new connections are refused). */
  async cut(mode: Exclude<ProxyMode, 'forward'>): Promise<void> {
    this.#mode = mode;
    if (mode === 'refuse' && this.#server) {
      const server = this.#server;
      this.#server = null;
      const closed = new Promise((resolve) => server.close(resolve));
      this.#destroyAll();
      await closed;
    } else this.#destroyAll();
  }

  async close(): Promise<void> {
    await this.cut('refuse');
  }

  #destroyAll(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => this.#sockets.delete(socket));
  }

  /**
   * Cuts a connection (both ends, nothing forwarded) as soon as its client sends a message holding
   * `text`, and counts it: a connection lost under one chosen statement.
   */
  cutOn(text: string | null): void {
    this.#cutOn = text;
    this.cutsOn = 0;
  }
  #accept(client: Socket): void {
    this.#track(client);
    if (this.#mode !== 'forward') return; // the black hole: read nothing, answer nothing
    const upstream = connect(this.#target.port, this.#target.host);
    this.#track(upstream);
    client.on('data', (chunk: Buffer) => {
      if (this.#cutOn !== null && chunk.includes(this.#cutOn)) {
        this.cutsOn += 1;
        client.destroy();
        upstream.destroy();
      } else upstream.write(chunk);
    });
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }
}

/** A request that must answer within HANG_MS; a hang fails the test with the request named. */
async function bounded(name: string, url: string, init: RequestInit = {}) {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(HANG_MS) });
    const text = await res.text();
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = null;
    }
    return { name, status: res.status, retryAfter: res.headers.get('retry-after'), body, text };
  } catch (error) {
    throw new Error(`${name} did not answer within ${HANG_MS} ms: ${(error as Error).message}`);
  }
}

const CLOCK = '{ clock { frozen } }';

/** The requests an outage is checked with: keyed and keyless REST, a keyed write, GraphQL, /readyz. */
function outageRequests(base: string, key: string, round: string) {
  const keyed = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  return [
    bounded(`GET /v1/clock (${round})`, `${base}/v1/clock`, { headers: keyed }),
    bounded(`GET /v1/counterparties (${round})`, `${base}/v1/counterparties`, { headers: keyed }),
    bounded(`POST /v1/clock/advance (${round})`, `${base}/v1/clock/advance`, {
      method: 'POST',
      headers: { ...keyed, 'idempotency-key': `outage-${round}` },
      body: JSON.stringify({ seconds: 60 }),
    }),
    bounded(`POST /v1/merchants (${round})`, `${base}/v1/merchants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `During the outage ${round}` }),
    }),
    bounded(`POST /graphql (${round})`, `${base}/graphql`, {
      method: 'POST',
      headers: keyed,
      body: JSON.stringify({ query: CLOCK }),
    }),
    bounded(`GET /readyz (${round})`, `${base}/readyz`),
  ];
}

type Answer = Awaited<ReturnType<typeof bounded>>;

/** The answer of a request while the database is unreachable: 503, the code, Retry-After. */
function expectUnavailable(answer: Answer): void {
  const context = `${answer.name}: ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, context).toBe(503);
  expect(Number(answer.retryAfter), context).toBeGreaterThanOrEqual(1);
  if (answer.name.startsWith('GET /readyz')) {
    expect(answer.body, context).toMatchObject({ status: 'error', code: 'database_unavailable' });
  } else if (answer.name.startsWith('POST /graphql')) {
    const errors = (answer.body as { errors?: { extensions?: Record<string, unknown> }[] }).errors;
    expect(errors?.[0]?.extensions, context).toMatchObject({
      code: 'database_unavailable',
      type: 'api_error',
      status: 503,
    });
  } else {
    expect(answer.body, context).toMatchObject({
      status: 'error',
      error: { type: 'api_error', code: 'database_unavailable' },
    });
  }
}

/** Polls /readyz (each call bounded) until the server says ready again, up to 15 s. */
async function readyAgain(base: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await bounded('GET /readyz', `${base}/readyz`);
    if (answer.status === 200) return;
    if (Date.now() > deadline) throw new Error(`not ready again: ${answer.status} ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A proxy in front of the suite's Postgres, forwarding, and the database URL that goes through it. */
async function proxiedPostgres(): Promise<{ proxy: PostgresProxy; url: string }> {
  const target = new URL(process.env.TEST_DATABASE_URL as string);
  const proxy = new PostgresProxy(await freePort(), {
    host: target.hostname,
    port: Number(target.port || 5432),
  });
  await proxy.open('forward');
  const proxied = new URL(target);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  return { proxy, url: proxied.toString() };
}

/** Each database has its own way of becoming unreachable: only its own describe is declared. */
const describeOn = (database: boolean) => (database ? describe : () => undefined);

describeOn(onPostgres)('Postgres unreachable behind a proxy', () => {
  let proxy: PostgresProxy;
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    let url: string;
    ({ proxy, url } = await proxiedPostgres());
    server = await startServerProcess({ env: { DATABASE_URL: url } });
    const signedUp = await call(server, null, 'POST', '/v1/merchants', { name: 'Outage' });
    expect(signedUp.status).toBe(201);
    key = String(signedUp.body.secret_key);
    // The first GraphQL request builds the schema (seconds on a loaded machine): done here, unbounded.
    const warm = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: CLOCK }),
    });
    expect(warm.status).toBe(200);
  });

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
  });

  /** Requests succeed through the proxy: reads, a keyed write, GraphQL, /readyz. */
  async function expectServing(round: string): Promise<void> {
    const keyed = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const clock = await bounded(`GET /v1/clock (${round})`, `${server.url}/v1/clock`, { headers: keyed });
    expect(clock.status, clock.text).toBe(200);
    const advance = await bounded(`POST /v1/clock/advance (${round})`, `${server.url}/v1/clock/advance`, {
      method: 'POST',
      headers: { ...keyed, 'idempotency-key': `serving-${round}` },
      body: JSON.stringify({ seconds: 60 }),
    });
    expect(advance.status, advance.text).toBe(200);
    const graphql = await bounded(`POST /graphql (${round})`, `${server.url}/graphql`, {
      method: 'POST',
      headers: keyed,
      body: JSON.stringify({ query: CLOCK }),
    });
    expect(graphql.status, graphql.text).toBe(200);
    expect(graphql.body).toEqual({ data: { clock: { frozen: false } } });
    expect((await bounded(`GET /readyz (${round})`, `${server.url}/readyz`)).status).toBe(200);
  }

  for (const mode of ['refuse', 'blackhole'] as const) {
    it(`answers 503 database_unavailable with Retry-After while connections are ${mode === 'refuse' ? 'refused' : 'never answered'}, then serves again by itself`, async () => {
      await withServerOutput(() => outageAndBack(mode));
    });
  }

  /** A failure says how the server process ended, if it did, and what it printed. */
  async function withServerOutput(run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      const { exitCode, signalCode } = server.child;
      if (exitCode === null && signalCode === null) throw error;
      throw new Error(
        `${(error as Error).message}\nthe server process ended (code ${exitCode}, signal ${signalCode}); it printed:\n${server.output()}`,
      );
    }
  }

  async function outageAndBack(mode: 'refuse' | 'blackhole'): Promise<void> {
    await expectServing(`${mode}-before`);
    await proxy.cut(mode);
    // Two rounds: the first meets the dead connections, the second a server that knows.
    for (const round of ['first', 'second']) {
      const answers = await Promise.all(outageRequests(server.url, key, `${mode}-${round}`));
      for (const answer of answers) expectUnavailable(answer);
    }
    // Pages that need no database still answer.
    expect((await bounded('GET /healthz', `${server.url}/healthz`)).status).toBe(200);

    await proxy.open('forward');
    await readyAgain(server.url);
    await expectServing(`${mode}-after`);
    // The same server process throughout.
    expect(server.child.exitCode).toBeNull();
  }
});

describeOn(onPostgres)("Postgres connections lost at the driver's awkward moments (in this process)", () => {
  let proxy: PostgresProxy;
  let database: Database;

  beforeAll(async () => {
    let url: string;
    ({ proxy, url } = await proxiedPostgres());
    database = await openDatabase({ driver: 'postgres', url, maxConnections: 2 });
  });

  afterAll(async () => {
    await database?.close();
    await proxy?.close();
  });

  /** The database answers the availability probe again (the first probe may meet the cut's end). */
  async function backAgain(): Promise<void> {
    await database.availability.probe().catch(() => undefined);
    await database.availability.probe();
  }

  /**
   * The transaction failed as unavailable after one cut; a few turns of the event loop pass (where a
   * failure nothing handles would surface, and fail the run); then the database serves again on new
   * connections.
   */
  async function expectLostThenBack(transaction: Promise<unknown>): Promise<void> {
    const error = await transaction.then(
      () => null,
      (e: unknown) => e,
    );
    expect(proxy.cutsOn).toBe(1);
    expect(isDatabaseUnavailable(error), String(error)).toBe(true);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    proxy.cutOn(null);
    await backAgain();
  }

  it('opens a connection without a catalog read of its own, which a cut connection left unhandled', async () => {
    proxy.cutOn('pg_type');
    await proxy.cut('blackhole'); // every open connection closed: the next query opens new ones
    await proxy.open('forward');
    await backAgain();
    const rows = await queryRows(database.db, sql`SELECT 1 AS one`);
    expect(rows.length).toBe(1);
    expect(proxy.cutsOn).toBe(0);
    proxy.cutOn(null);
  });

  it('a transaction whose connection is cut under a statement fails as unavailable, sends nothing more, and the process goes on', async () => {
    proxy.cutOn('cut-here');
    const failed = runTransaction(database.db, async (tx) => {
      await tx.execute(sql`SELECT 1`);
      await tx.execute(sql`SELECT 'cut-here'`);
      return 'committed';
    });
    await expectLostThenBack(failed);
    expect(
      await runTransaction(database.db, async (tx) => (await queryRows(tx, sql`SELECT 2 AS two`)).length),
    ).toBe(1);
  });

  it('a savepoint whose connection is cut under a statement, or under its SAVEPOINT, sends nothing more either', async () => {
    for (const marker of ['cut-here', 'savepoint "s']) {
      proxy.cutOn(marker);
      const failed = runTransaction(database.db, async (tx) => {
        await tx.execute(sql`SELECT 1`);
        await tx.transaction(async (savepoint) => {
          await savepoint.execute(sql`SELECT 'cut-here'`);
        });
        return 'committed';
      });
      await expectLostThenBack(failed);
    }
  });

  it('a callback that catches the loss and goes on sends nothing more: its next statement fails at once, and no COMMIT follows', async () => {
    proxy.cutOn('cut-here');
    let next: unknown = 'not reached';
    const failed = runTransaction(database.db, async (tx) => {
      await tx.execute(sql`SELECT 1`);
      await tx.execute(sql`SELECT 'cut-here'`).catch(() => undefined);
      next = await tx.execute(sql`SELECT 3`).then(
        () => 'sent',
        (e: unknown) => e,
      );
      return 'committed';
    });
    await expectLostThenBack(failed);
    expect(isDatabaseUnavailable(next), String(next)).toBe(true);
  });

  it('a transaction whose connection closes while it awaits something else sends nothing more after', async () => {
    let pause = () => {};
    const paused = new Promise<void>((resolve) => {
      pause = resolve;
    });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let next: unknown = 'not reached';
    const failed = runTransaction(database.db, async (tx) => {
      await tx.execute(sql`SELECT 1`);
      pause();
      await gate;
      next = await tx.execute(sql`SELECT 2`).then(
        () => 'sent',
        (e: unknown) => e,
      );
      return 'committed';
    });
    await paused;
    await proxy.cut('blackhole');
    const error = await failed.then(
      () => null,
      (e: unknown) => e,
    );
    expect(isDatabaseUnavailable(error), String(error)).toBe(true);
    release();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(isDatabaseUnavailable(next), String(next)).toBe(true);
    await proxy.open('forward');
    await backAgain();
  });
});

describeOn(!onPostgres)('PGlite whose worker thread stopped', () => {
  let database: Database;
  let t: TestApp;
  const failures: Error[] = [];

  beforeAll(async () => {
    database = await openDatabase({
      driver: 'pglite',
      worker: true,
      onWorkerFailure: (e) => failures.push(e),
    });
    t = await createTestApp({ database });
  });

  afterAll(async () => {
    await database.close().catch(() => {});
  });

  it('answers 503 database_unavailable with Retry-After on REST, GraphQL and /readyz', async () => {
    const m = await t.merchant();
    expect((await t.rest('GET', '/v1/clock', { key: m.secretKey })).status).toBe(200);
    await (database.pglite as PgliteWorkerClient).worker.terminate();
    await vi.waitFor(() => expect(failures).toHaveLength(1), { timeout: 5_000 });

    const rest = await t.rest('GET', '/v1/clock', { key: m.secretKey });
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('1');
    expect(rest.body).toMatchObject({
      status: 'error',
      error: { type: 'api_error', code: 'database_unavailable' },
    });

    const write = await t.rest('POST', '/v1/clock/advance', {
      key: m.secretKey,
      headers: { 'idempotency-key': 'after-the-worker' },
      body: { seconds: 60 },
    });
    expect(write.status).toBe(503);
    expect(write.body).toMatchObject({ error: { code: 'database_unavailable' } });

    const response = await t.app.request('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${m.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: CLOCK }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = (await response.json()) as { errors?: { extensions?: Record<string, unknown> }[] };
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'database_unavailable', status: 503 });

    const ready = await t.app.request('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('1');
    expect(await ready.json()).toMatchObject({ status: 'error', code: 'database_unavailable' });
  });
});
