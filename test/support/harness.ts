import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { count, type Logger as DrizzleLogger, eq, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type Logger, pino } from 'pino';
import postgres from 'postgres';
import { buildApp } from '../../src/app.ts';
import { type Database, openDatabase, queryRows } from '../../src/db/client.ts';
import type { AppDeps } from '../../src/deps.ts';
import { type Clock, systemClock } from '../../src/kernel/clock.ts';
import { WebhookTransport } from '../../src/kernel/webhook-transport.ts';
import { clockFor } from '../../src/modules/clock/clock.service.ts';
import { DEFAULT_SERVICE_CONFIG } from '../../src/modules/context.ts';
import { createMerchant } from '../../src/modules/merchants/merchants.service.ts';
import { SignupLimiter } from '../../src/modules/merchants/signups.ts';
import {
  DEFAULT_REQUEST_LOG_SETTINGS,
  type RequestLogSettings,
} from '../../src/modules/request-log/request-log.writer.ts';
import { createLogger, type Metrics } from '../../src/observability.ts';
import { assertConforms, conformance } from './conformance.ts';

export const PUBLIC_URL = 'http://sandbank.test';

/**
 * What a test's service contexts carry besides storage, time and the merchant: the default
 * configuration and one webhook transport (the test apps' too). A test that builds a context by
 * hand spreads it in.
 */
export const TEST_SERVICES = { config: DEFAULT_SERVICE_CONFIG, webhookTransport: new WebhookTransport() };

/**
 * The server's own logger at debug level (each request is logged), writing into memory: tests
 * that must prove a secret (a card number, a CVC) is never logged read `text()`. At level 'error'
 * it keeps only what the server logs as errors (an unhandled error behind a 500).
 */
export function debugLogCapture(level = 'debug'): { logger: Logger; text: () => string } {
  let logged = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logged += String(chunk);
      done();
    },
  });
  return { logger: createLogger(level, sink), text: () => logged };
}

/**
 * The database under test: real Postgres when TEST_DATABASE_URL is set (a pool of `connections`:
 * race tests ask for 24 so their transactions really overlap; `applicationName` tags its sessions
 * in pg_stat_activity), else PGlite from the migrated snapshot (one connection: races serialize,
 * and the same outcomes must hold).
 */
/** A statement Drizzle ran: its SQL text and its parameters. */
export interface LoggedStatement {
  sql: string;
  params: unknown[];
}

/**
 * The statements Drizzle runs on a database opened with it (`openTestDatabase({ queryLogger })`),
 * in order: a test counts what a request reads.
 */
export class StatementLog implements DrizzleLogger {
  readonly statements: LoggedStatement[] = [];
  logQuery(sql: string, params: unknown[]): void {
    this.statements.push({ sql, params });
  }
  /** The statements logged while `work` ran, and what it answered. */
  async during<T>(work: () => Promise<T>): Promise<{ result: T; statements: LoggedStatement[] }> {
    const from = this.statements.length;
    const result = await work();
    return { result, statements: this.statements.slice(from) };
  }
}

export async function openTestDatabase(
  options: { connections?: number; applicationName?: string; queryLogger?: DrizzleLogger } = {},
): Promise<Database> {
  const logged = options.queryLogger ? { queryLogger: options.queryLogger } : {};
  const base = process.env.TEST_DATABASE_URL;
  if (base) {
    const url = new URL(base);
    if (options.applicationName) url.searchParams.set('application_name', options.applicationName);
    return openDatabase({
      driver: 'postgres',
      url: url.toString(),
      maxConnections: options.connections ?? 4,
      ...logged,
    });
  }
  const snapshot = process.env.SANDBANK_TEST_SNAPSHOT;
  const loadDataDir = snapshot ? new Blob([readFileSync(snapshot)]) : undefined;
  return openDatabase({ driver: 'pglite', ...(loadDataDir ? { loadDataDir } : {}), ...logged });
}

/**
 * A database no other test file writes to, for tests that compare whole-database row counts: a
 * fresh PGlite, or on Postgres a database of its own beside TEST_DATABASE_URL's (dropped after).
 */
export async function openIsolatedTestDatabase(): Promise<{ database: Database; drop(): Promise<void> }> {
  const own = await ownPostgresDatabase('sandbank_iso');
  if (!own) {
    const database = await openTestDatabase();
    return { database, drop: () => database.close() };
  }
  const database = await openDatabase({ driver: 'postgres', url: own.url, maxConnections: 4 });
  return {
    database,
    async drop() {
      await database.close();
      await own.drop();
    },
  };
}

/**
 * A Postgres database of the test file's own on the TEST_DATABASE_URL server, for tests whose
 * background work (a delivery pump, a retention pass) acts on every merchant of its database and so
 * must not share it with other files; null on PGlite, where each file's database is its own.
 */
export async function ownPostgresDatabase(
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return null;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    url: own.toString(),
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * Rows in every table of the public schema, by table name; but the request log's, which records
 * every request, refused ones too (what a test means by "nothing written" is the objects).
 */
export async function rowCounts(database: Database): Promise<Record<string, number>> {
  const tables = await queryRows<{ tablename: string }>(
    database.db,
    sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'request_logs' ORDER BY tablename`,
  );
  const counts: Record<string, number> = {};
  for (const { tablename } of tables) {
    const [row] = await queryRows<{ n: number }>(
      database.db,
      sql.raw(`SELECT count(*)::int AS n FROM "${tablename}"`),
    );
    counts[tablename] = Number(row?.n ?? 0);
  }
  return counts;
}

export interface TestResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** A raw body string sent as is (for malformed-request tests). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestMerchant {
  id: string;
  name: string;
  secretKey: string;
  publicKey: string;
}

export interface TestApp {
  database: Database;
  app: ReturnType<typeof buildApp>;
  /** A REST call through app.request() (in-process, no socket). */
  rest<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: RequestOptions,
  ): Promise<TestResponse<T>>;
  /** A GraphQL operation through the same app; returns the parsed response. */
  gql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    options?: { key?: string | null; headers?: Record<string, string> },
  ): Promise<{
    status: number;
    data: T;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
  }>;
  /**
   * The calls most tests make, as the merchant: `POST path` with a JSON body (none when absent),
   * `GET path`, `DELETE path`, and moving the merchant's clock by `seconds`.
   */
  post<T = Record<string, unknown>>(
    m: TestMerchant,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<TestResponse<T>>;
  get<T = Record<string, unknown>>(m: TestMerchant, path: string): Promise<TestResponse<T>>;
  delete<T = Record<string, unknown>>(m: TestMerchant, path: string): Promise<TestResponse<T>>;
  advance(m: TestMerchant, seconds: number): Promise<TestResponse>;
  merchant(name?: string): Promise<TestMerchant>;
  /** Rows of a table belonging to a merchant (tables with merchant_id). */
  countRows(table: PgTable & { merchantId: unknown }, merchantId: string): Promise<number>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  rateLimitPerSecond?: number;
  clock?: Clock;
  /** A database of the test's own (default: a fresh PGlite, or the shared TEST_DATABASE_URL). */
  database?: Database;
  logger?: Logger;
  /** Caps keyless sign-ups per address and minute, as the server does (no cap when absent). */
  signupsPerMinute?: number;
  /** How the app sends webhook deliveries (default: the one of TEST_SERVICES). */
  webhookTransport?: WebhookTransport;
  /** The metrics the app counts into (served at /metrics); none when absent. */
  metrics?: Metrics;
  /** The request log's settings, over the defaults (a small cap per merchant, the log off). */
  requestLog?: Partial<RequestLogSettings>;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await openTestDatabase());
  const deps: AppDeps = {
    database,
    publicUrl: PUBLIC_URL,
    serviceConfig: TEST_SERVICES.config,
    webhookTransport: options.webhookTransport ?? TEST_SERVICES.webhookTransport,
    rateLimitPerSecond: options.rateLimitPerSecond ?? 0,
    clockFor: async (merchantId) => options.clock ?? clockFor(database.db, merchantId),
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.signupsPerMinute !== undefined
      ? { signups: new SignupLimiter(options.signupsPerMinute) }
      : {}),
    ...(options.requestLog ? { requestLog: { ...DEFAULT_REQUEST_LOG_SETTINGS, ...options.requestLog } } : {}),
  };
  const app = buildApp({ deps, ...(options.metrics ? { metrics: options.metrics } : {}) });

  async function rest<T>(method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    const answer = { status: response.status, headers: response.headers, body: parsed as T, text };
    if (path.startsWith('/v1/') && path !== '/v1/openapi.json') {
      const checker = await conformance(async () => (await app.request('/v1/openapi.json')).json());
      assertConforms(checker, method, path, answer);
    }
    return answer;
  }

  const post = <T>(m: TestMerchant, path: string, body?: unknown, headers?: Record<string, string>) =>
    rest<T>('POST', path, {
      key: m.secretKey,
      ...(body === undefined ? {} : { body }),
      ...(headers ? { headers } : {}),
    });
  return {
    database,
    app,
    rest,
    post,
    get: (m, path) => rest('GET', path, { key: m.secretKey }),
    delete: (m, path) => rest('DELETE', path, { key: m.secretKey }),
    advance: (m, seconds) => post(m, '/v1/clock/advance', { seconds }),
    async gql(query, variables = {}, opts = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      const response = await app.request('/graphql', {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, variables }),
      });
      const json = (await response.json()) as { data: never; errors?: never };
      return { status: response.status, data: json.data, ...(json.errors ? { errors: json.errors } : {}) };
    },
    async merchant(name = 'Test Merchant') {
      const created = await createMerchant(database.db, systemClock, { name });
      return { ...created.merchant, secretKey: created.secretKey, publicKey: created.publicKey };
    },
    async countRows(table, merchantId) {
      const column = (table as unknown as { merchantId: Parameters<typeof eq>[0] }).merchantId;
      const [row] = await database.db.select({ n: count() }).from(table).where(eq(column, merchantId));
      return row?.n ?? 0;
    },
    close: () => database.close(),
  };
}

/** Interleaves a list deterministically, so racing operations start mixed, not one kind first. */
export function shuffle<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = (i * 7919 + 13) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
