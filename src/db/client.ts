import { closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { type ExtractTablesWithRelations, type SQL, sql } from 'drizzle-orm';
import { type PgDatabase, PgDialect, type PgQueryResultHKT, type PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { PGLITE_MEMORY_SETTINGS, PGLITE_WAL_SETTINGS } from './maintenance.ts';
import * as schema from './schema.ts';
import { pgliteSnapshot } from './snapshot.ts';

export type Schema = typeof schema;
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
 * PGlite runs it as any other query.
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

export type DatabaseOptions =
  | { driver: 'postgres'; url: string; maxConnections?: number }
  | { driver: 'pglite'; dataDir?: string; loadDataDir?: Blob };

export interface Database {
  db: Db;
  driver: 'postgres' | 'pglite';
  /** Raw PGlite instance (for snapshots in tests); undefined on Postgres. */
  pglite?: PGlite;
  ping(): Promise<void>;
  /**
   * LISTENs on a channel (its own connection on Postgres, reconnected by postgres.js) and calls
   * `onPayload` for each notification, in commit order. Resolves once the LISTEN is in place, with
   * a function that stops listening. Notifications queued in a transaction arrive only after commit.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** The committed SQL migrations, found beside the project root whether run from src/ or dist/. */
export function migrationsFolder(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(candidate, 'meta', '_journal.json'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error('Cannot find the migrations/ folder; set SANDBANK_MIGRATIONS_DIR.');
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const folder = process.env.SANDBANK_MIGRATIONS_DIR ?? migrationsFolder();
  if (options.driver === 'postgres') return openPostgres(options.url, options.maxConnections ?? 10, folder);
  return openPglite(options.dataDir, options.loadDataDir, folder);
}

async function openPostgres(url: string, max: number, folder: string): Promise<Database> {
  const client = postgres(url, { max, onnotice: () => {}, prepare: true });
  const db = drizzlePostgres({ client, schema }) as unknown as Db;
  const dialect = new PgDialect();
  preparedRunners.set(db, (query) => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return client.unsafe(text, params as never[], { prepare: true });
  });
  // Several instances may start together on one database: one migrates at a time, holding a
  // session-level advisory lock on a dedicated single connection.
  const migrator = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrator`SELECT pg_advisory_lock(424242)`;
    await migratePostgres(drizzlePostgres({ client: migrator }), { migrationsFolder: folder });
    await migrator`SELECT pg_advisory_unlock(424242)`;
  } finally {
    await migrator.end({ timeout: 5 });
  }
  return {
    db,
    driver: 'postgres',
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    listen: async (channel, onPayload) => {
      const { unlisten } = await client.listen(channel, onPayload);
      return unlisten;
    },
    close: () => client.end({ timeout: 5 }),
  };
}

async function openPglite(
  dataDir: string | undefined,
  loadDataDir: Blob | undefined,
  folder: string,
): Promise<Database> {
  const release = dataDir ? lockDataDir(resolve(dataDir)) : () => {};
  let client: PGlite;
  try {
    // Start from the build's pre-migrated snapshot where there is one: a fresh folder gets a copy
    // of it (under the lock just taken), and a database in memory loads its tar.
    const snapshot = loadDataDir ? null : pgliteSnapshot(folder);
    if (snapshot && dataDir && !existsSync(join(resolve(dataDir), 'PG_VERSION')))
      cpSync(snapshot.dir, resolve(dataDir), { recursive: true });
    if (snapshot && !dataDir) loadDataDir = new Blob([readFileSync(snapshot.tar)]);
    client = await PGlite.create({
      ...(dataDir ? { dataDir: resolve(dataDir) } : {}),
      ...(loadDataDir ? { loadDataDir } : {}),
      startParams: [...PGlite.defaultStartParams, ...PGLITE_WAL_SETTINGS, ...PGLITE_MEMORY_SETTINGS],
    });
  } catch (error) {
    release();
    throw error;
  }
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  await migratePglite(drizzlePglite({ client }), { migrationsFolder: folder });
  return {
    db,
    driver: 'pglite',
    pglite: client,
    ping: async () => {
      await client.query('SELECT 1');
    },
    listen: async (channel, onPayload) => {
      const unlisten = await client.listen(channel, onPayload);
      return async () => {
        if (!client.closed) await unlisten();
      };
    },
    close: async () => {
      await client.close();
      release();
    },
  };
}

/**
 * PGlite has no cross-process lock: two processes on one folder lose committed rows. We take an
 * exclusive lock file and refuse to start while another live process holds it.
 */
function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const lockPath = join(dir, 'sandbank.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `The data directory ${dir} is in use by process ${holder}. Stop that server first, or start with --memory or another SANDBANK_DATA_DIR.`,
        );
      }
      rmSync(lockPath, { force: true }); // stale lock from a process that died
    }
  }
  throw new Error(`Could not lock the data directory ${dir}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
