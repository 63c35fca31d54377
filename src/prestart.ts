/**
 * Run by main.ts before the rest of the server is loaded: when the server will run on PGlite in its worker thread (no
 * DATABASE_URL, PGLITE_WORKER not 0), that thread starts opening the database now, while this
 * thread goes on loading the rest of the server (start-up overlaps instead of adding up). It reads
 * the same settings as loadConfig (config.ts), which still validates them; anything unexpected
 * here just skips the head start.
 */
import { pgliteWorkerByDefault, prestartPglite } from './db/pglite-start.ts';
import { migrationsInUse } from './db/snapshot.ts';

function prestart(env: NodeJS.ProcessEnv, argv: readonly string[]): void {
  if (env.DATABASE_URL || !pgliteWorkerByDefault(env)) return;
  const memory = argv.includes('--memory') || env.SANDBANK_MEMORY === '1' || env.SANDBANK_MEMORY === 'true';
  prestartPglite(memory ? undefined : env.SANDBANK_DATA_DIR || '.sandbank', migrationsInUse());
}

try {
  prestart(process.env, process.argv.slice(2));
} catch {
  // openDatabase starts PGlite itself
}
