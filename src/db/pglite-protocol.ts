import type { MessagePort } from 'node:worker_threads';

/** The messages between the PGlite worker thread (pglite-worker.ts) and its client (pglite-proxy.ts). */

/** What the worker opens, and where it answers: passed as its workerData. */
export interface WorkerStart {
  /** The port the worker posts every reply to (the client may read it synchronously). */
  replies?: MessagePort;
  /** An Int32Array's memory: the worker adds 1 to its first element after posting each reply. */
  signal?: SharedArrayBuffer;
  dataDir?: string;
  /** A data folder tar to load (a database in memory), as bytes... */
  loadDataDir?: Uint8Array;
  /** ...or as a file the worker reads itself. */
  loadDataDirPath?: string;
  /** Postgres settings (`-c name=value` pairs) added to PGlite's defaults. */
  startParams: string[];
  /** PGlite's relaxed durability (SANDBANK_DURABILITY=relaxed). */
  relaxedDurability?: boolean;
}

type RowMode = 'object' | 'array';

/**
 * What the worker runs before the request itself, saving a crossing each: the COMMIT of the
 * read-only transaction before it (left pending by the client), then the BEGIN of the transaction
 * the request opens.
 */
export interface WorkerPrefix {
  commitFirst?: true;
  beginFirst?: true;
}

export type WorkerRequest = { id: number } & WorkerPrefix &
  (
    | {
        op: 'query';
        sql: string;
        params: unknown[];
        rowMode?: RowMode;
        paramTypes?: number[];
        /** Types the main thread parses with its own parsers: the worker leaves them as text. */
        rawOids?: number[];
      }
    | { op: 'exec'; sql: string; rowMode?: RowMode; rawOids?: number[] }
    | { op: 'listen'; channel: string; listenerId: number }
    | { op: 'unlisten'; listenerId: number }
    | { op: 'dump'; compression?: 'none' | 'gzip' | 'auto' }
    | { op: 'close' }
  );

/** A thrown error as it crosses: a DatabaseError keeps every field (code, detail, constraint…). */
export type SerializedError =
  | { kind: 'database'; message: string; length: number; name: string; fields: Record<string, unknown> }
  | { kind: 'error'; message: string; name: string; stack?: string | undefined };

export type WorkerReply =
  | { type: 'ready' }
  | { type: 'failed'; error: SerializedError }
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; error: SerializedError }
  | { type: 'notify'; listenerId: number; payload: string };
