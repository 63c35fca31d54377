/**
 * Run by main.ts before the rest of the server is loaded: when the server will run on PGlite in its
 * worker thread (no DATABASE_URL, PGLITE_WORKER not 0), that thread starts opening the database
 * now, while this thread goes on loading the rest of the server (start-up overlaps instead of
 * adding up). loadConfig (config.ts) still validates every setting; anything unexpected here just
 * skips the head start, and openDatabase starts PGlite itself.
 */
import { pgliteWorkerByDefault, prestartPglite } from './db/pglite-start.ts';
import { migrationsInUse } from './db/snapshot.ts';
import { chooseDurability, type DatabaseChoice, DURABILITY_SETTINGS, MEMORY_SETTINGS } from './storage.ts';

export function prestart(database: DatabaseChoice, env: NodeJS.ProcessEnv): void {
  if (database.driver !== 'pglite' || !pgliteWorkerByDefault(env)) return;
  // A value loadConfig will refuse: no head start (it would leave a data folder behind).
  const memory = env.SANDBANK_MEMORY;
  if (memory !== undefined && !(MEMORY_SETTINGS as readonly string[]).includes(memory)) return;
  const durability = env.SANDBANK_DURABILITY;
  if (durability !== undefined && !(DURABILITY_SETTINGS as readonly string[]).includes(durability)) return;
  try {
    prestartPglite(database.dataDir, migrationsInUse(), chooseDurability(env) === 'relaxed');
  } catch {
    // no head start
  }
}
