/**
 * Which database a start uses, decided from the environment and flags alone. This module imports
 * nothing, so the entry point can name the storage in its first line before it loads the server.
 */

export const DEFAULT_DATA_DIR = '.sandbank';

/** The values SANDBANK_MEMORY may take (any other is a configuration error). */
export const MEMORY_SETTINGS = ['0', '1', 'true', 'false'] as const;

export type DatabaseChoice =
  | { driver: 'postgres'; url: string }
  | { driver: 'pglite'; dataDir: string | undefined };

/** DATABASE_URL → Postgres; --memory or SANDBANK_MEMORY → PGlite in memory; else a PGlite folder. */
export function chooseDatabase(
  env: Readonly<Record<string, string | undefined>>,
  argv: readonly string[],
): DatabaseChoice {
  if (env.DATABASE_URL) return { driver: 'postgres', url: env.DATABASE_URL };
  const memory = argv.includes('--memory') || env.SANDBANK_MEMORY === '1' || env.SANDBANK_MEMORY === 'true';
  return { driver: 'pglite', dataDir: memory ? undefined : env.SANDBANK_DATA_DIR || DEFAULT_DATA_DIR };
}

/** The values SANDBANK_DURABILITY may take (any other is a configuration error). */
export const DURABILITY_SETTINGS = ['full', 'relaxed'] as const;
export type Durability = (typeof DURABILITY_SETTINGS)[number];

/**
 * SANDBANK_DURABILITY: `full` (the default) answers a write once its commit is on disk; `relaxed`
 * answers once it is committed in the database's memory, and a crash may lose the last moments'
 * writes (docs/reference/configuration.md). The testing API starts with `relaxed`.
 */
export function chooseDurability(env: Readonly<Record<string, string | undefined>>): Durability {
  return env.SANDBANK_DURABILITY === 'relaxed' ? 'relaxed' : 'full';
}

export function durabilityLabel(durability: Durability): string {
  return durability === 'relaxed'
    ? "relaxed (SANDBANK_DURABILITY: a crash may lose the last moments' writes; for test suites)"
    : 'full (every answer waits for its commit to reach the disk)';
}

export function storageLabel(choice: DatabaseChoice): string {
  if (choice.driver === 'postgres') return 'PostgreSQL (DATABASE_URL)';
  return choice.dataDir
    ? `PGlite, persisted in ${choice.dataDir}/`
    : 'PGlite in memory (--memory: nothing is kept)';
}
