/**
 * Writes the GraphQL SDL to schema.graphql at the repository root (`npm run schema:print`).
 * test/schema.test.ts fails when the committed file differs from the schema the code builds.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printedSchema } from '../src/graphql/schema.ts';

const SCHEMA_FILE = fileURLToPath(new URL('../schema.graphql', import.meta.url));

writeFileSync(SCHEMA_FILE, printedSchema());
console.log(`wrote ${SCHEMA_FILE}`);
