/**
 * Run by main.ts before the rest of the server is loaded: when the server will run on PGlite in its
 * worker thread (no DATABASE_URL, PGLITE_WORKER not 0), that thread starts opening the database
 * now, while this thread goes on loading the rest of the server (start-up overlaps instead of
 * adding up). loadConfig (config.ts) still validates every setting; anything unexpected here just
 * skips the head start, and openDatabase starts PGlite itself.
 */
import { pgliteWorkerByDefault, prestartPglite } from './db/pglite-start.ts';
import { migrationsInUse } from './db/snapshot.ts';
import type { DatabaseChoice } from './storage.ts';

/** The values loadConfig accepts for SANDBANK_MEMORY: any other is refused there, so no head start. */
const MEMORY_VALUES = new Set([undefined, '0', '1', 'true', 'false']);

export function prestart(database: DatabaseChoice, env: NodeJS.ProcessEnv): void {
  if (database.driver !== 'pglite' || !pgliteWorkerByDefault(env)) return;
  if (!MEMORY_VALUES.has(env.SANDBANK_MEMORY)) return;
  try {
    prestartPglite(database.dataDir, migrationsInUse());
  } catch {
    // no head start
  }
}
