import type { PGlite } from '@electric-sql/pglite';
import { type ExtractTablesWithRelations, type Logger, type SQL, sql } from 'drizzle-orm';
import { type PgDatabase, PgDialect, type PgQueryResultHKT, type PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { Availability, isDatabaseUnavailable } from './availability.ts';
import type { PgliteClient } from './pglite-proxy.ts';
import { adoptPrestarted, type PgliteStart, pgliteWorkerByDefault, startPglite } from './pglite-start.ts';
import { migrationsInUse } from './snapshot.ts';

export { pgliteWorkerByDefault } from './pglite-start.ts';
export { migrationsFolder } from './snapshot.ts';

/** No relational schema: queries name their tables (src/db names no module's table). */
export type Schema = Record<string, never>;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything that runs queries: the database or an open transaction. */
export type Executor = Db | Tx;

/** Rows of a raw query, whichever driver ran it (postgres.js returns an array, PGlite {rows}). */
export async function queryRows<T>(exec: Executor, query: SQL): Promise<T[]> {
  const result = (await exec.execute(query)) as unknown;
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/** How each Postgres database runs a statement prepared (see queryRowsPrepared). */
const preparedRunners = new WeakMap<Db, (query: SQL) => Promise<unknown[]>>();

/**
 * queryRows for a statement whose text is the same on every run (its values all travel as
 * parameters, e.g. as `jsonb_to_recordset` arrays). On Postgres it is prepared once per connection:
 * parsed and planned once, then one round trip per run instead of two (describe, then execute).
 * PGlite runs it as any other query (in its worker thread, every planned statement is prepared
 * by name: pglite-worker.ts).
 */
export async function queryRowsPrepared<T>(db: Db, query: SQL): Promise<T[]> {
  const run = preparedRunners.get(db);
  return run ? ((await run(query)) as T[]) : queryRows<T>(db, query);
}

/** The SQLSTATE of a database error, from either driver, possibly wrapped by Drizzle. */
export function sqlStateOf(error: unknown): string | undefined {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** A unique-constraint violation (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return sqlStateOf(error) === '23505';
}

/** Options of either driver. */
interface CommonOptions {
  /** Told every statement Drizzle runs (tests count the statements of a request with it). */
  queryLogger?: Logger;
}

export type DatabaseOptions = CommonOptions &
  (
    | {
        driver: 'postgres';
        url: string;
        maxConnections?: number;
        /**
         * How long opening keeps trying while the database cannot be reached yet (refused, not
         * answering, starting up), before it gives up with the last error. Default 0: one try.
         */
        waitForDatabaseMs?: number;
      }
    | {
        driver: 'pglite';
        dataDir?: string;
        loadDataDir?: Blob;
        /**
         * Run PGlite in a worker thread (the default), so that a long query does not hold up the
         * event loop; false runs it on the calling thread. PGLITE_WORKER=0 sets false.
         */
        worker?: boolean;
        /** Called if the worker thread dies (default: log a line and exit 1). */
        onWorkerFailure?: (error: Error) => void;
      }
  );

export interface Database {
  db: Db;
  driver: 'postgres' | 'pglite';
  /**
   * The raw PGlite client (maintenance, snapshots in tests): the worker thread's client, or the
   * PGlite instance itself when it runs in-thread; undefined on Postgres.
   */
  pglite?: PgliteClient;
  /** Whether PGlite runs in a worker thread (false on Postgres). */
  pgliteWorker?: boolean;
  /**
   * Whether the database can be reached (availability.ts): down after an error that says it
   * cannot, when every query fails at once with DatabaseUnavailableError; up again once a probe
   * answers.
   */
  availability: Availability;
  ping(): Promise<void>;
  /**
   * LISTENs on a channel (its own connection on Postgres, reconnected by postgres.js) and calls
   * `onPayload` for each notification, in commit order. Resolves once the LISTEN is in place, with
   * a function that stops listening. Notifications queued in a transaction arrive only after commit.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const folder = migrationsInUse();
  const logger = options.queryLogger;
  if (options.driver === 'postgres')
    return openPostgres(
      options.url,
      options.maxConnections ?? 10,
      folder,
      options.waitForDatabaseMs ?? 0,
      logger,
    );
  return openPglite(
    {
      dataDir: options.dataDir,
      loadDataDir: options.loadDataDir,
      migrations: folder,
      worker: options.worker ?? pgliteWorkerByDefault(),
      onWorkerFailure: options.onWorkerFailure,
    },
    logger,
  );
}

/**
 * The session limits of the server's connections (docs/deploy.md, "When the database is unreachable"). They are far above any
 * legitimate statement or pause — the longest statements, a clock advance's batches and the
 * retention's purges, take well under a second — and only end what is stuck: a statement running
 * for 30 s, or a transaction left open and idle for 60 s (its locks held). Migrations run on a
 * connection of their own without them. A DATABASE_URL parameter of the same name wins
 * (`?statement_timeout=0` turns one off).
 */
export const SESSION_LIMITS = {
  statement_timeout: 30_000,
  idle_in_transaction_session_timeout: 60_000,
} as const;

/**
 * Seconds a new connection may take (TCP, TLS, authentication) before postgres.js gives up with
 * CONNECT_TIMEOUT: a database that does not answer (a host that is down, a network that drops
 * packets) fails a request within about a second instead of 30 s. `?connect_timeout=N` in
 * DATABASE_URL, or PGCONNECT_TIMEOUT, sets another (a database far away).
 */
export const CONNECT_TIMEOUT_SECONDS = 1;

/**
 * Seconds before a closed connection is opened again: postgres.js's own grows to 20 s after a run
 * of failures, which kept the first requests after an outage waiting. The availability probe keeps
 * the attempts few while the database is down (two a second), so a short wait (at most 250 ms) is
 * enough.
 */
function reconnectDelay(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 0.25) * (0.5 + Math.random() / 2);
}

function driverOptions(url: string): postgres.Options<Record<string, postgres.PostgresType>> {
  let parameters = new URLSearchParams();
  try {
    parameters = new URL(url).searchParams;
  } catch {
    // Not a URL postgres.js reads parameters from: the defaults apply.
  }
  const connectTimeoutSet = parameters.has('connect_timeout') || process.env.PGCONNECT_TIMEOUT !== undefined;
  return {
    onnotice: () => {},
    backoff: reconnectDelay,
    ...(connectTimeoutSet ? {} : { connect_timeout: CONNECT_TIMEOUT_SECONDS }),
  };
}

/**
 * The postgres.js client as Drizzle sees it, behind the availability gate: while the database is
 * down a query or a transaction fails at once with DatabaseUnavailableError (nothing is queued
 * behind connections that cannot open), and every failure of one is reported to `availability`.
 */
function gated(client: postgres.Sql, availability: Availability): postgres.Sql {
  const watch = <T>(work: Promise<T>): Promise<T> =>
    work.then(undefined, (error: unknown) => {
      availability.report(error);
      throw error;
    });
  const refused = () => {
    try {
      availability.check();
    } catch (error) {
      return error;
    }
    return undefined;
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'unsafe') {
        return (...args: Parameters<postgres.Sql['unsafe']>) => {
          const error = refused();
          // Drizzle either awaits the query or calls .values() and awaits that.
          if (error) {
            const failed = Promise.reject(error);
            return Object.assign(failed, { values: () => failed });
          }
          const query = target.unsafe(...args);
          // Lazy, as postgres.js's own query: it is sent when awaited, in the mode asked for.
          return {
            values: () => watch(query.values()),
            // biome-ignore lint/suspicious/noThenProperty: a thenable query, as the driver's own
            then: (resolve: never, reject: never) => watch(query).then(resolve, reject),
          };
        };
      }
      if (property === 'begin') {
        return (...args: unknown[]) => {
          const error = refused();
          if (error) return Promise.reject(error);
          return watch((target.begin as (...a: unknown[]) => Promise<unknown>)(...args));
        };
      }
      return Reflect.get(target, property);
    },
  });
}

/**
 * Takes the migration lock, trying again every half second while the database cannot be reached
 * (a container started beside its database) until `waitMs` have passed.
 */
async function lockForMigrations(migrator: postgres.Sql, waitMs: number): Promise<void> {
  const giveUpAt = Date.now() + waitMs;
  for (;;) {
    try {
      await migrator`SELECT pg_advisory_lock(424242)`;
      return;
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() >= giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

async function openPostgres(
  url: string,
  max: number,
  folder: string,
  waitMs: number,
  logger?: Logger,
): Promise<Database> {
  const options = driverOptions(url);
  const raw = postgres(url, { ...options, max, prepare: true, connection: { ...SESSION_LIMITS } });
  const availability = new Availability(async () => {
    await raw`SELECT 1`;
  });
  const client = gated(raw, availability);
  const db = drizzlePostgres({ client, ...(logger ? { logger } : {}) }) as unknown as Db;
  const dialect = new PgDialect();
  preparedRunners.set(db, (query) => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return client.unsafe(text, params as never[], { prepare: true }) as unknown as Promise<unknown[]>;
  });
  // Several instances may start together on one database: one migrates at a time, holding a
  // session-level advisory lock on a dedicated single connection.
  const migrator = postgres(url, { ...options, max: 1 });
  try {
    await lockForMigrations(migrator, waitMs);
    await migratePostgres(drizzlePostgres({ client: migrator }), { migrationsFolder: folder });
    await migrator`SELECT pg_advisory_unlock(424242)`;
  } finally {
    await migrator.end({ timeout: 5 });
  }
  return {
    db,
    driver: 'postgres',
    availability,
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    listen: async (channel, onPayload) => {
      const { unlisten } = await raw.listen(channel, onPayload);
      return unlisten;
    },
    close: () => {
      availability.close();
      return raw.end({ timeout: 5 });
    },
  };
}

async function openPglite(options: PgliteStart, logger?: Logger): Promise<Database> {
  const started = adoptPrestarted(options) ?? startPglite(options);
  const client = await started.client;
  const availability = new Availability(async () => {
    await client.query('SELECT 1');
  });
  // The drizzle driver calls only query and transaction, which the worker's client has as PGlite.
  // Their failures are reported: a stopped worker thread takes the database down for good.
  const driverClient = new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if ((property !== 'query' && property !== 'transaction') || typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch((error: unknown) => {
          availability.report(error);
          throw error;
        });
    },
  }) as PGlite;
  const db = drizzlePglite({ client: driverClient, ...(logger ? { logger } : {}) }) as unknown as Db;
  try {
    await migratePglite(drizzlePglite({ client: driverClient }), { migrationsFolder: options.migrations });
  } catch (error) {
    await client.close().catch(() => {});
    started.release();
    throw error;
  }
  return {
    db,
    driver: 'pglite',
    pglite: client,
    pgliteWorker: started.worker,
    availability,
    ping: async () => {
      try {
        await client.query('SELECT 1');
      } catch (error) {
        availability.report(error);
        throw error;
      }
    },
    listen: async (channel, onPayload) => {
      const unlisten = await client.listen(channel, onPayload);
      return async () => {
        if (!client.closed) await unlisten();
      };
    },
    close: async () => {
      availability.close();
      try {
        await client.close();
      } finally {
        started.release();
      }
    },
  };
}
