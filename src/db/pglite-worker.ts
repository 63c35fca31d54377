/**
 * The thread that owns PGlite (see docs/internals/pglite-worker.md). PGlite runs Postgres as WebAssembly on
 * the thread that calls it: here, so that a long query blocks this thread and not the HTTP one.
 *
 * It runs the requests of the main thread's PgliteWorkerClient (pglite-proxy.ts) one at a time, in
 * the order they arrive, and answers each with its result or its error. It knows nothing of
 * transactions: the client sends BEGIN, the transaction's statements and COMMIT/ROLLBACK itself,
 * and keeps every other statement back until the transaction is over.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { messages, PGlite, parse, protocol, type QueryOptions, type Results } from '@electric-sql/pglite';
import type { SerializedError, WorkerReply, WorkerRequest, WorkerStart } from './pglite-protocol.ts';

const start = workerData as WorkerStart;
const requests = parentPort;
const replies = start.replies;
if (!requests || !replies || !start.signal)
  throw new Error('pglite-worker.ts runs as a worker thread (see pglite-proxy.ts)');
const signal = new Int32Array(start.signal);

/** Posts a reply, then bumps the signal, which wakes the main thread if it waits for it. */
function send(reply: WorkerReply, transfer: ArrayBuffer[] = []): void {
  replies?.postMessage(reply, transfer);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

/** Identity parsers for the types whose values the main thread parses itself (its own parsers). */
function rawParsers(oids: number[] | undefined): QueryOptions['parsers'] {
  if (!oids?.length) return undefined;
  return Object.fromEntries(oids.map((oid) => [oid, (value: string) => value]));
}

function serializeError(error: unknown): SerializedError {
  if (error instanceof messages.DatabaseError) {
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(error)) {
      // queryOptions may hold functions; the main thread puts its own back.
      if (key !== 'queryOptions' && (value === undefined || typeof value !== 'function')) fields[key] = value;
    }
    return { kind: 'database', message: error.message, length: error.length, name: error.name, fields };
  }
  if (error instanceof Error)
    return { kind: 'error', message: error.message, name: error.name, stack: error.stack };
  return { kind: 'error', message: String(error), name: 'Error' };
}

async function open(): Promise<PGlite> {
  let loadDataDir: Blob | undefined;
  if (start.loadDataDir) loadDataDir = new Blob([start.loadDataDir as Uint8Array<ArrayBuffer>]);
  else if (start.loadDataDirPath) loadDataDir = new Blob([readFileSync(start.loadDataDirPath)]);
  return PGlite.create({
    ...(start.dataDir ? { dataDir: start.dataDir } : {}),
    ...(loadDataDir ? { loadDataDir } : {}),
    startParams: [...PGlite.defaultStartParams, ...start.startParams],
    ...(start.relaxedDurability ? { relaxedDurability: true } : {}),
  });
}

/**
 * The statements prepared by name, by their text, least recently used first. Drizzle writes a
 * query of one shape as one text (values are parameters), so a server runs a few hundred texts at
 * most; past PREPARED_LIMIT the least recently used is closed.
 */
const prepared = new Map<string, { name: string; paramTypes: number[] }>();
const PREPARED_LIMIT = 512;
let preparedCount = 0;

/** Statements worth preparing: the ones that plan (not BEGIN, SAVEPOINT, LISTEN, SET…). */
const PLANNED = /^\s*(select|insert|update|delete|with)\b/i;

function joined(parts: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/**
 * A statement prepared once by name, then run by binding its parameters and executing it: one
 * call into Postgres per run, and its plan may be cached (PGlite's own query() parses, describes
 * and plans the text on every run, in five calls). Messages, serializers and results are PGlite's.
 */
async function queryPrepared(
  pg: PGlite,
  text: string,
  params: unknown[],
  options: QueryOptions,
): Promise<Results> {
  let ran: messages.BackendMessage[];
  try {
    let statement = prepared.get(text);
    if (statement) {
      prepared.delete(text); // most recently used: to the end
      prepared.set(text, statement);
    } else {
      const oldest = prepared.size >= PREPARED_LIMIT ? prepared.entries().next().value : undefined;
      if (oldest) prepared.delete(oldest[0]); // closed below, whatever becomes of the new one
      const name = `sandbank_${++preparedCount}`;
      const described = await pg.execProtocolStream(
        joined([
          ...(oldest ? [protocol.serialize.close({ type: 'S', name: oldest[1].name })] : []),
          protocol.serialize.parse({
            name,
            text,
            ...(options.paramTypes ? { types: options.paramTypes } : {}),
          }),
          protocol.serialize.describe({ type: 'S', name }),
          protocol.serialize.sync(),
        ]),
        { syncToFs: false },
      );
      statement = { name, paramTypes: parse.parseDescribeStatementResults(described) };
      prepared.set(text, statement);
    }
    const { name, paramTypes } = statement;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = pg.serializers[paramTypes[i] as number];
      return serializer ? serializer(value) : String(value);
    });
    ran = await pg.execProtocolStream(
      joined([
        protocol.serialize.bind({ statement: name, values }),
        protocol.serialize.describe({ type: 'P' }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
      { syncToFs: true },
    );
  } catch (error) {
    // As PGlite's query() leaves them: the statement, its parameters and options on the error.
    if (error instanceof messages.DatabaseError)
      Object.assign(error, { query: text, params, queryOptions: options });
    throw error;
  }
  const [result] = parse.parseResults(ran, pg.parsers, options);
  if (!result) throw new Error('a prepared statement returned no result');
  return result;
}

/** The functions that stop each LISTEN of the main thread, by its id. */
const listeners = new Map<number, () => Promise<void>>();

async function handle(pg: PGlite, request: WorkerRequest): Promise<unknown> {
  switch (request.op) {
    case 'query': {
      const options: QueryOptions = { rowMode: request.rowMode ?? 'object' };
      const parsers = rawParsers(request.rawOids);
      if (parsers) options.parsers = parsers;
      if (request.paramTypes) options.paramTypes = request.paramTypes;
      if (PLANNED.test(request.sql)) return queryPrepared(pg, request.sql, request.params, options);
      return pg.query(request.sql, request.params, options);
    }
    case 'exec': {
      const parsers = rawParsers(request.rawOids);
      return pg.exec(request.sql, {
        ...(request.rowMode ? { rowMode: request.rowMode } : {}),
        ...(parsers ? { parsers } : {}),
      });
    }
    case 'listen': {
      const id = request.listenerId;
      const stop = await pg.listen(request.channel, (payload) => {
        send({ type: 'notify', listenerId: id, payload });
      });
      listeners.set(id, stop);
      return null;
    }
    case 'unlisten': {
      const stop = listeners.get(request.listenerId);
      listeners.delete(request.listenerId);
      if (stop && !pg.closed) await stop();
      return null;
    }
    case 'dump': {
      const file = await pg.dumpDataDir(request.compression);
      return new Uint8Array(await file.arrayBuffer());
    }
    case 'close': {
      if (!pg.closed) await pg.close();
      return null;
    }
  }
}

/** Results as they cross to the main thread: a COPY TO's blob (unused here) stays behind. */
function plain(result: unknown): unknown {
  if (Array.isArray(result)) return result.map(plain);
  if (result && typeof result === 'object' && 'blob' in result) {
    const { blob: _blob, ...rest } = result as Results;
    return rest;
  }
  return result;
}

async function main(): Promise<void> {
  let pg: PGlite;
  // Nothing else holds this thread's event loop open while PGlite starts (what it awaits is not a
  // handle Node counts), and a thread whose loop empties exits with code 0 before it is ready: seen
  // under load. A timer holds it until the request port's listener does.
  const opening = setInterval(() => {}, 60_000);
  try {
    pg = await open();
  } catch (error) {
    send({ type: 'failed', error: serializeError(error) });
    return;
  } finally {
    clearInterval(opening);
  }
  send({ type: 'ready' });
  // One request at a time, in arrival order (PGlite would serialize them anyway; this keeps order).
  let queue: Promise<void> = Promise.resolve();
  requests?.on('message', (request: WorkerRequest) => {
    queue = queue.then(async () => {
      let reply: WorkerReply;
      // The read-only transaction the client left open: its COMMIT cannot fail (nothing was
      // written and no statement of it failed), but if it did, nothing may stay open.
      if (request.commitFirst) await pg.exec('COMMIT').catch(() => pg.exec('ROLLBACK').catch(() => {}));
      try {
        if (request.beginFirst) await pg.exec('BEGIN');
        const result = plain(await handle(pg, request));
        reply = { type: 'result', id: request.id, result };
      } catch (error) {
        reply = { type: 'error', id: request.id, error: serializeError(error) };
      }
      const dump =
        request.op === 'dump' && reply.type === 'result' ? (reply.result as Uint8Array) : undefined;
      send(reply, dump ? [dump.buffer as ArrayBuffer] : []);
      // After close the thread has nothing left to do: let it end.
      if (request.op === 'close' && reply.type === 'result') {
        requests.close();
        replies?.close();
      }
    });
  });
}

void main();
