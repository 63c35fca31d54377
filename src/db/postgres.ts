import { type Logger, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { Availability, isConnectionFailureCode, isDatabaseUnavailable } from './availability.ts';
import type { Database, Db } from './client.ts';

/**
 * Postgres through postgres.js (openDatabase's `driver: 'postgres'`, src/db/client.ts): the
 * connection settings (docs/guide/deploy.md), the availability gate in front of the client, and the
 * migrations run under an advisory lock.
 */

/**
 * The session limits of the server's connections (docs/guide/deploy.md, "When the database is unreachable"). They are far above any
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
    // postgres.js's default first statement on every new connection reads the array types from the
    // catalog, and nothing handles that statement's failure: a connection lost at that moment (an
    // outage, a restart, a proxy cutting it) ended the process with an unhandled rejection. Sandbank
    // passes no array parameter and reads arrays as JSON, so it asks for none (docs/guide/deploy.md).
    fetch_types: false,
    ...(connectTimeoutSet ? {} : { connect_timeout: CONNECT_TIMEOUT_SECONDS }),
  };
}

/** A query refused before it was sent, in the shapes Drizzle uses (awaited, or `.values()` awaited). */
function refusedQuery(error: unknown) {
  const failed = Promise.reject(error);
  return Object.assign(failed, { values: () => failed });
}

/**
 * A query of postgres.js whose failure first goes through `onError` (which rethrows). Lazy, as the
 * driver's own: it is sent when awaited, in the mode asked for.
 */
function observedQuery(query: ReturnType<postgres.Sql['unsafe']>, onError: (error: unknown) => never) {
  return {
    values: () => query.values().then(undefined, onError),
    // biome-ignore lint/suspicious/noThenProperty: a thenable query, as the driver's own
    then: (resolve: never, reject: never) => query.then(undefined, onError).then(resolve, reject),
  };
}

/** The error that ended a transaction's connection, once one of its statements met it. */
interface Lost {
  error?: unknown;
}

/**
 * Whether an error says the statement's connection is gone: the socket's or the driver's error for
 * a connection that failed or closed, or the server's FATAL or PANIC (it closes the session after
 * one). A server error of lesser severity leaves the session open, whatever its SQLSTATE.
 */
function connectionGone(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 8) return false;
  const severity = (error as { severity?: unknown }).severity;
  if (typeof severity === 'string') return severity === 'FATAL' || severity === 'PANIC';
  return (
    isConnectionFailureCode((error as { code?: unknown }).code) || connectionGone(error.cause, depth + 1)
  );
}

/**
 * A transaction (or savepoint) whose connection was lost must send nothing more: postgres.js answers
 * its callback's failure with ROLLBACK on that connection, and a statement given to a connection that
 * is gone is written from a timer where nothing can catch it, which ended the process (a COMMIT
 * after a callback that caught the loss would be too). So once the connection is lost the
 * callback's promise never settles; begin() itself rejects with the connection's close, and the
 * server rolls the transaction back with the session.
 */
function untilLost<T>(work: () => T | Promise<T>, lost: Lost): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    Promise.resolve()
      .then(work)
      .then(
        // A callback that caught the loss and went on would be committed on the dead connection.
        (value) => {
          if (lost.error === undefined) resolve(value);
        },
        (error: unknown) => {
          // Only a statement of this transaction says the connection is gone (scopedUntilLost): a
          // callback's own network error (a socket of another service) must not hold it open.
          if (lost.error === undefined) reject(error);
        },
      );
  });
}

/** begin()'s or savepoint()'s arguments, the callback last, with the callback under untilLost's rule. */
function guarded(args: unknown[], lost: Lost): unknown[] {
  const work = args.at(-1) as (scoped: postgres.TransactionSql) => unknown;
  return [
    ...args.slice(0, -1),
    (scoped: postgres.TransactionSql) => untilLost(() => work(scopedUntilLost(scoped, lost)), lost),
  ];
}

/**
 * The transaction's client as Drizzle sees it: once a statement found the connection gone, later
 * statements fail at once with that error instead of being given to the dead connection, and a
 * savepoint's callback follows the transaction's rule (untilLost).
 */
function scopedUntilLost(scoped: postgres.TransactionSql, lost: Lost): postgres.TransactionSql {
  const note = (error: unknown): never => {
    if (connectionGone(error)) lost.error ??= error;
    throw error;
  };
  return new Proxy(scoped, {
    get(target, property) {
      if (property === 'unsafe') {
        return (...args: Parameters<postgres.Sql['unsafe']>) => {
          if (lost.error !== undefined) return refusedQuery(lost.error);
          return observedQuery(target.unsafe(...args), note);
        };
      }
      if (property === 'savepoint') {
        return (...args: unknown[]) => {
          // The SAVEPOINT statement is the driver's own, sent outside `unsafe`: the same rules.
          if (lost.error !== undefined) return Promise.reject(lost.error);
          return (target.savepoint as (...a: unknown[]) => Promise<unknown>)(...guarded(args, lost)).then(
            undefined,
            note,
          );
        };
      }
      return Reflect.get(target, property);
    },
  });
}

/**
 * The postgres.js client as Drizzle sees it, behind the availability gate: while the database is
 * down a query or a transaction fails at once with DatabaseUnavailableError (nothing is queued
 * behind connections that cannot open), and every failure of one is reported to `availability`.
 */
function gated(client: postgres.Sql, availability: Availability): postgres.Sql {
  const reported = (error: unknown): never => {
    availability.report(error);
    throw error;
  };
  const watch = <T>(work: Promise<T>): Promise<T> => work.then(undefined, reported);
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
          return error ? refusedQuery(error) : observedQuery(target.unsafe(...args), reported);
        };
      }
      if (property === 'begin') {
        return (...args: unknown[]) => {
          const error = refused();
          if (error) return Promise.reject(error);
          const lost: Lost = {};
          const begun = (target.begin as (...a: unknown[]) => Promise<unknown>)(...guarded(args, lost));
          // begin() rejects as soon as the connection closes, also while no statement of the
          // transaction is running (the callback awaits something else): from then on it sends
          // nothing more either. After a commit or a rollback this changes nothing.
          return watch(
            begun.then(undefined, (error: unknown) => {
              lost.error ??= error;
              throw error;
            }),
          );
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

/**
 * Opens the Postgres database (migrated first, one instance at a time); answers it with the way
 * its statements run prepared (queryRowsPrepared).
 */
export async function openPostgres(
  url: string,
  max: number,
  folder: string,
  waitMs: number,
  logger?: Logger,
  relaxedDurability = false,
): Promise<{ database: Database; runPrepared: (query: SQL) => Promise<unknown[]> }> {
  const options = driverOptions(url);
  // Relaxed durability: a commit is answered once written to the WAL's buffers, not once on disk
  // (a crash of Postgres may lose the last fraction of a second; nothing is ever half-applied).
  const connection = relaxedDurability
    ? { ...SESSION_LIMITS, synchronous_commit: 'off' }
    : { ...SESSION_LIMITS };
  const raw = postgres(url, { ...options, max, prepare: true, connection });
  const availability = new Availability(async () => {
    await raw`SELECT 1`;
  });
  const client = gated(raw, availability);
  const db = drizzlePostgres({ client, ...(logger ? { logger } : {}) }) as unknown as Db;
  const dialect = new PgDialect();
  const runPrepared = (query: SQL) => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return client.unsafe(text, params as never[], { prepare: true }) as unknown as Promise<unknown[]>;
  };
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
  const database: Database = {
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
  return { database, runPrepared };
}
