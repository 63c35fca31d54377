import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { chooseDatabase, storageLabel } from './storage.ts';

describe('chooseDatabase', () => {
  const cases: [Record<string, string>, string[], string][] = [
    [{}, [], 'PGlite, persisted in .sandbank/'],
    [{ SANDBANK_DATA_DIR: 'data' }, [], 'PGlite, persisted in data/'],
    [{}, ['--memory'], 'PGlite in memory (--memory: nothing is kept)'],
    [{ SANDBANK_MEMORY: '1' }, [], 'PGlite in memory (--memory: nothing is kept)'],
    [{ SANDBANK_MEMORY: 'false' }, [], 'PGlite, persisted in .sandbank/'],
    [{ DATABASE_URL: 'postgres://127.0.0.1/x' }, ['--memory'], 'PostgreSQL (DATABASE_URL)'],
  ];
  it.each(cases)('%o %o → %s, as the loaded configuration says', (env, argv, label) => {
    expect(storageLabel(chooseDatabase(env, argv))).toBe(label);
    expect(storageLabel(loadConfig(env, argv).database)).toBe(label);
  });

  it('an empty DATABASE_URL means unset in the configuration', () => {
    expect(loadConfig({ DATABASE_URL: '' }, []).database).toEqual({ driver: 'pglite', dataDir: '.sandbank' });
  });
});
