import type { Database } from './client.ts';

/**
 * PGlite runs Postgres single-user, without the background processes a Postgres server has: no
 * autovacuum (the space of deleted and updated rows is never made reusable, tables only grow) and
 * no checkpointer (WAL segments are never recycled: pg_wal grows by every byte written, even
 * past max_wal_size). The server does their work itself: VACUUM and CHECKPOINT on the maintenance
 * interval, and a CHECKPOINT as soon as this much WAL was written since the last one, so pg_wal
 * stays within a few segments under any load. On Postgres these are no-ops.
 */
export const CHECKPOINT_AFTER_WAL_BYTES = 16 * 1024 * 1024;

/**
 * How much WAL a checkpoint keeps for reuse (recycled segments): the least Postgres allows (two
 * 16 MiB segments), passed to PGlite at start.
 */
export const PGLITE_WAL_SETTINGS = ['-c', 'min_wal_size=32MB', '-c', 'max_wal_size=32MB'];

/**
 * PGlite's buffer pool: Postgres zeroes all of shared_buffers when it starts, so its default
 * (128 MB) is resident from the first second. 32 MB holds a sandbox's working set and takes
 * 100 MB off the idle server (measured: 302 → 199 MB for an opened data folder).
 */
export const PGLITE_MEMORY_SETTINGS = ['-c', 'shared_buffers=32MB'];

/** SANDBANK_DURABILITY=relaxed on PGlite: a commit does not wait for its WAL to be flushed. */
export const PGLITE_RELAXED_SETTINGS = ['-c', 'synchronous_commit=off'];

/** Bytes of WAL written since the last checkpoint began (PGlite); 0 on Postgres. */
export async function walSinceCheckpoint(database: Database): Promise<number> {
  if (!database.pglite) return 0;
  const result = await database.pglite.query<{ bytes: string }>(
    `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::text AS bytes FROM pg_control_checkpoint()`,
  );
  return Number(result.rows[0]?.bytes ?? 0);
}

/** A CHECKPOINT on PGlite when CHECKPOINT_AFTER_WAL_BYTES were written since the last; true if it ran. */
export async function checkpointIfWalGrew(database: Database): Promise<boolean> {
  if (!database.pglite || (await walSinceCheckpoint(database)) < CHECKPOINT_AFTER_WAL_BYTES) return false;
  await database.pglite.exec('CHECKPOINT');
  return true;
}

/**
 * VACUUM (dead rows' space becomes reusable) then CHECKPOINT, on PGlite. One table per statement:
 * PGlite runs one statement at a time for every request, and a database-wide VACUUM of a sandbox
 * that took a load test held them all for 300–400 ms (the paced benchmark's p99); table by table,
 * the requests that queue meanwhile run between two tables.
 */
export async function vacuumAndCheckpoint(database: Database): Promise<void> {
  const pglite = database.pglite;
  if (!pglite) return;
  const tables = await pglite.query<{ name: string }>(
    "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
  );
  for (const { name } of tables.rows) await pglite.exec(`VACUUM ${name}`);
  await pglite.exec('CHECKPOINT');
}
