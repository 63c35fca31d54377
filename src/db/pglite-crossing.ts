/**
 * The parts of the PGlite worker client (pglite-proxy.ts) that stand alone: where the worker's
 * script is and how its thread starts, and how an answer is rebuilt on this side of the crossing
 * (an error as PGlite's own, a caller's parsers applied to the columns the worker left as text).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Transferable, Worker } from 'node:worker_threads';
import { messages, type QueryOptions, type Results } from '@electric-sql/pglite';
import type { SerializedError, WorkerStart } from './pglite-protocol.ts';

type Parsers = NonNullable<QueryOptions['parsers']>;

/** What an error is rebuilt with: the statement as PGlite attaches it to a database error. */
export interface StatementOf {
  options?: QueryOptions | undefined;
}

/** The worker's script: beside this file when run from sources, dist/pglite-worker.js when built. */
export function pgliteWorkerScript(): { url: URL; typescript: boolean } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return { url: new URL('./pglite-worker.ts', import.meta.url), typescript: true };
  let dir = dirname(here);
  for (let up = 0; up < 3; up++, dir = dirname(dir)) {
    const candidate = join(dir, 'pglite-worker.js');
    if (existsSync(candidate)) return { url: pathToFileURL(candidate), typescript: false };
  }
  throw new Error(`Cannot find pglite-worker.js near ${here}: run npm run build.`);
}

/** A worker thread running `script`; TypeScript sources (tests, tsx) are loaded through tsx. */
export function startWorker(
  script: { url: URL; typescript: boolean },
  workerData: WorkerStart,
  transfer: Transferable[],
) {
  if (!script.typescript) return new Worker(script.url, { workerData, transferList: transfer });
  // A module that registers tsx's loader in the new thread, then imports the worker's source.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(
    /\.cjs$/,
    '.mjs',
  );
  const bootstrap = new URL(
    `data:text/javascript,${encodeURIComponent(
      `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(script.url.href)});`,
    )}`,
  );
  return new Worker(bootstrap, { workerData, transferList: transfer, execArgv: [] });
}

export function rebuildError(serialized: SerializedError, pending: StatementOf | undefined): Error {
  if (serialized.kind === 'database') {
    const error = new messages.DatabaseError(
      serialized.message,
      serialized.length,
      serialized.name as ConstructorParameters<typeof messages.DatabaseError>[2],
    );
    Object.assign(error, serialized.fields);
    Object.assign(error, { queryOptions: pending?.options });
    return error;
  }
  const error = new Error(serialized.message);
  error.name = serialized.name;
  if (serialized.stack) error.stack = `${error.stack}\n    --- in the PGlite worker ---\n${serialized.stack}`;
  return error;
}

/** The caller's parsers applied to the columns the worker left as text (their type's OID). */
export function applyParsers(result: Results, parsers: Parsers, rowMode: 'object' | 'array'): Results {
  const columns: { key: number | string; oid: number }[] = [];
  result.fields.forEach((field, index) => {
    if (!parsers[field.dataTypeID]) return;
    // In object mode a repeated name keeps the last column's value, as PGlite builds the row.
    if (rowMode === 'object' && result.fields.findLastIndex((f) => f.name === field.name) !== index) return;
    columns.push({ key: rowMode === 'array' ? index : field.name, oid: field.dataTypeID });
  });
  if (columns.length === 0) return result;
  for (const row of result.rows as Record<string | number, unknown>[]) {
    for (const { key, oid } of columns) {
      const value = row[key];
      // PGlite calls a parser with the text and the type's OID.
      const parse = parsers[oid] as ((text: string, oid: number) => unknown) | undefined;
      if (value !== null && value !== undefined && parse) row[key] = parse(value as string, oid);
    }
  }
  return result;
}

export function unsupported(options: QueryOptions | undefined): void {
  if (options?.blob || options?.serializers || options?.onNotice) {
    throw new Error(
      'The PGlite worker client does not support the blob, serializers or onNotice query options',
    );
  }
}
