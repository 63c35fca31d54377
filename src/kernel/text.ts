import { type ErrorCode, SandbankError } from './errors.ts';

/**
 * Text that no column can store: U+0000 (Postgres text refuses it) and a UTF-16 surrogate without
 * its other half (jsonb refuses the escape; a text column would silently get U+FFFD instead). Every
 * way into the server (JSON bodies, GraphQL variables and literals, forms, query strings, path
 * segments) refuses such text up front, so it never reaches a service or the database.
 */
export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

/** The path of the first string (object key or value) that is not storable text, or null. */
export function unstorableTextPath(value: unknown, path: readonly PropertyKey[] = []): PropertyKey[] | null {
  if (typeof value === 'string') return isStorableText(value) ? null : [...path];
  if (value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    if (!isStorableText(key)) return [...path, printable(key)];
    const found = unstorableTextPath(item, [...path, key]);
    if (found) return found;
  }
  return null;
}

/** A name safe to echo back in an error message: unstorable characters become U+FFFD. */
export function printable(text: string): string {
  return text.toWellFormed().replaceAll('\u0000', '\uFFFD');
}

/** The parameter error for text that cannot be stored at `path` (400 parameter_invalid). */
export function unstorableTextError(path: readonly PropertyKey[], code: ErrorCode = 'parameter_invalid') {
  const param = path.map(String).join('.');
  return new SandbankError(code, {
    ...(param ? { param } : {}),
    message: `Invalid ${param || 'request'}: text may not contain U+0000 or an unpaired UTF-16 surrogate.`,
  });
}

/** Throws 400 parameter_invalid when any string in `value` cannot be stored. */
export function assertStorableText(value: unknown, path: readonly PropertyKey[] = []): void {
  const found = unstorableTextPath(value, path);
  if (found) throw unstorableTextError(found);
}
