import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { printedOpenApi } from '../../src/api/rest/openapi-print.ts';

/** openapi.json is the committed REST contract; it must be exactly what the code builds. */
const OPENAPI_FILE = fileURLToPath(new URL('../../openapi.json', import.meta.url));
const HINT =
  'openapi.json differs from the document the code builds: run `npm run schema:print` and commit it';

describe('openapi.json', () => {
  it('matches the document the code builds, byte for byte', () => {
    expect(existsSync(OPENAPI_FILE), 'openapi.json is missing: run `npm run schema:print`').toBe(true);
    const current = printedOpenApi();
    expect(JSON.parse(current).paths['/collect'], HINT).toBeDefined();
    expect(readFileSync(OPENAPI_FILE, 'utf8'), HINT).toBe(current);
  });
});
