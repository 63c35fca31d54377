import type { Logger } from 'pino';
import { isDatabaseUnavailable } from './db/availability.ts';
import type { Database } from './db/client.ts';
import { checkpointIfWalGrew, vacuumAndCheckpoint } from './db/maintenance.ts';
import { systemClock } from './kernel/clock.ts';
import { type PurgeOptions, purgeExpired } from './modules/retention.ts';

/**
 * One maintenance pass: the retention rules (expired secrets and records, in short batches), then
 * on PGlite VACUUM and CHECKPOINT, so that what was deleted is reused and pg_wal is recycled.
 * Returns the rows purged per rule.
 */
export async function runMaintenance(
  database: Database,
  realNow: Date,
  options: PurgeOptions = {},
): Promise<Record<string, number>> {
  const purged = await purgeExpired(database.db, realNow, options);
  if (!options.signal?.aborted) await vacuumAndCheckpoint(database);
  return purged;
}

/** How often PGlite's WAL is looked at between passes (a cheap query). */
const WAL_CHECK_MS = 1000;

/**
 * The background maintenance of a server: a pass every `intervalMs` (MAINTENANCE_INTERVAL_MS; 0
 * turns it off), and on PGlite a CHECKPOINT in between whenever enough WAL was written. `stop()`
 * ends it between two statements.
 */
export function startMaintenance(database: Database, intervalMs: number, logger: Logger) {
  if (intervalMs <= 0) return { stop: async () => {} };
  const abort = new AbortController();
  const step = database.pglite ? Math.min(WAL_CHECK_MS, intervalMs) : intervalMs;
  let lastPass = performance.now();
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    // Skipped while the database is unreachable (logged once by the server; db/availability.ts).
    if (!database.availability.up) {
      timer = setTimeout(tick, step);
      return;
    }
    const due = performance.now() - lastPass >= intervalMs;
    if (due) lastPass = performance.now();
    const work = due
      ? runMaintenance(database, systemClock.now(), { signal: abort.signal }).then((purged) =>
          logger.debug({ purged }, 'maintenance pass'),
        )
      : checkpointIfWalGrew(database);
    running = work
      .catch((error: unknown) => {
        if (!isDatabaseUnavailable(error)) logger.error({ err: error }, 'maintenance failed');
      })
      .finally(() => {
        if (!abort.signal.aborted) timer = setTimeout(tick, step);
      });
  };
  timer = setTimeout(tick, step);
  return {
    async stop() {
      abort.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
