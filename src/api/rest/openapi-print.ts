import { buildRestApp } from './app.ts';
import { buildDocument } from './openapi.ts';

/** The server address the committed openapi.json names (a served document names its own). */
export const PRINTED_PUBLIC_URL = 'http://localhost:3000';

/** `value` with every object's keys in sorted order (arrays keep theirs). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

/** The OpenAPI document as openapi.json holds it: keys sorted, two-space indent, a final newline. */
export function printedOpenApi(): string {
  const document = buildDocument(buildRestApp(100), PRINTED_PUBLIC_URL);
  return `${JSON.stringify(sortedKeys(document), null, 2)}\n`;
}
