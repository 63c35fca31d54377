import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../../src/api/graphql/schema.ts';

/** schema.graphql is the committed SDL; it must be exactly what the code builds (no silent drift). */
const SCHEMA_FILE = fileURLToPath(new URL('../../schema.graphql', import.meta.url));
const HINT =
  'schema.graphql differs from the schema the code builds: run `npm run schema:print` and commit it';

describe('schema.graphql', () => {
  it('exists at the repository root', () => {
    expect(existsSync(SCHEMA_FILE), `schema.graphql is missing: run \`npm run schema:print\``).toBe(true);
  });

  it('matches printedSchema() exactly', () => {
    const committed = existsSync(SCHEMA_FILE) ? readFileSync(SCHEMA_FILE, 'utf8') : '';
    const current = printedSchema();
    expect(current, HINT).toContain('type Collection');
    expect(committed, HINT).toBe(current);
  });

  it('is valid SDL that round-trips through graphql-js', () => {
    const sdl = readFileSync(SCHEMA_FILE, 'utf8');
    const reparsed = printSchema(buildSchema(sdl));
    expect(reparsed.length).toBeGreaterThan(0);
    expect(reparsed).toContain('enum ErrorCode');
  });
});
