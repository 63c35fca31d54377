import type { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations, Logger, SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { Availability } from './availability.ts';
import type { PgliteClient } from './pglite-proxy.ts';
import { adoptPrestarted, type PgliteStart, pgliteWorkerByDefault, startPglite } from './pglite-start.ts';
import { openPostgres } from './postgres.ts';
import { migrationsInUse } from './snapshot.ts';

export { pgliteWorkerByDefault } from './pglite-start.ts';
export { CONNECT_TIMEOUT_SECONDS, SESSION_LIMITS } from './postgres.ts';
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
  /**
   * Relaxed durability (SANDBANK_DURABILITY=relaxed, the testing API's default): a commit is
   * answered before it reaches the disk (Postgres `synchronous_commit = off` for the server's
   * sessions; PGlite the same, and its own relaxed mode). Off by default.
   */
  relaxedDurability?: boolean;
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
  if (options.driver === 'postgres') {
    const { database, runPrepared } = await openPostgres(
      options.url,
      options.maxConnections ?? 10,
      folder,
      options.waitForDatabaseMs ?? 0,
      logger,
      options.relaxedDurability ?? false,
    );
    preparedRunners.set(database.db, runPrepared);
    return database;
  }
  return openPglite(
    {
      dataDir: options.dataDir,
      loadDataDir: options.loadDataDir,
      migrations: folder,
      worker: options.worker ?? pgliteWorkerByDefault(),
      onWorkerFailure: options.onWorkerFailure,
      relaxedDurability: options.relaxedDurability ?? false,
    },
    logger,
  );
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
