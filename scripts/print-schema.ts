/**
 * Writes the two contracts the code builds, at the repository root (`npm run schema:print`): the
 * GraphQL SDL to schema.graphql and the REST API's OpenAPI document to openapi.json (object keys
 * sorted, so the file changes only when the contract does). test/unit/schema.test.ts and
 * test/unit/openapi-snapshot.test.ts fail when a committed file differs from what the code builds.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printedSchema } from '../src/api/graphql/schema.ts';
import { printedOpenApi } from '../src/api/rest/openapi-print.ts';

const SCHEMA_FILE = fileURLToPath(new URL('../schema.graphql', import.meta.url));
const OPENAPI_FILE = fileURLToPath(new URL('../openapi.json', import.meta.url));

writeFileSync(SCHEMA_FILE, printedSchema());
console.log(`wrote ${SCHEMA_FILE}`);
writeFileSync(OPENAPI_FILE, printedOpenApi());
console.log(`wrote ${OPENAPI_FILE}`);
