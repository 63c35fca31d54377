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

export function storageLabel(choice: DatabaseChoice): string {
  if (choice.driver === 'postgres') return 'PostgreSQL (DATABASE_URL)';
  return choice.dataDir
    ? `PGlite, persisted in ${choice.dataDir}/`
    : 'PGlite in memory (--memory: nothing is kept)';
}
