import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** The migrations the code runs: SANDBANK_MIGRATIONS_DIR, else the committed ones. */
export function migrationsInUse(): string {
  return process.env.SANDBANK_MIGRATIONS_DIR ?? migrationsFolder();
}

/** The pre-migrated PGlite data folder the build made (dist/pglite), as a folder and as a tar. */
export interface PgliteSnapshot {
  dir: string;
  tar: string;
  /** Every folder of `dir`, relative to it, parents first (empty ones too: see copySnapshot). */
  folders: string;
}

/**
 * Copies the snapshot into a fresh data folder, with every folder it had: npm packs no empty
 * folder, so an installed package's snapshot lacks the ones Postgres needs to start (pg_notify,
 * pg_tblspc…); the build listed them all.
 */
export function copySnapshot(snapshot: PgliteSnapshot, dataDir: string): void {
  cpSync(snapshot.dir, dataDir, { recursive: true });
  if (!existsSync(snapshot.folders)) return;
  for (const folder of JSON.parse(readFileSync(snapshot.folders, 'utf8')) as string[])
    mkdirSync(join(dataDir, folder), { recursive: true });
}

/** The migrations of the code that runs (migrations/meta/_journal.json), in order. */
function journalTags(migrations: string): string[] {
  const journal = JSON.parse(readFileSync(join(migrations, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  return journal.entries.map((entry) => entry.tag);
}

/**
 * The build's PGlite snapshot, when there is one that this code can start from: its migrations
 * are the first ones of the code's own (migrations added since the build are applied on open).
 * Null when running from sources that were never built, or when the build is of other migrations.
 */
export function pgliteSnapshot(migrations: string): PgliteSnapshot | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 4; up++, dir = dirname(dir)) {
    const base = existsSync(join(dir, 'pglite', 'migrations.json'))
      ? join(dir, 'pglite')
      : join(dir, 'dist', 'pglite');
    const stamp = join(base, 'migrations.json');
    if (!existsSync(stamp) || !existsSync(join(base, 'data', 'PG_VERSION'))) continue;
    const held = JSON.parse(readFileSync(stamp, 'utf8')) as string[];
    const current = journalTags(migrations);
    if (held.length > current.length || held.some((tag, i) => tag !== current[i])) return null;
    return { dir: join(base, 'data'), tar: join(base, 'data.tar'), folders: join(base, 'folders.json') };
  }
  return null;
}
