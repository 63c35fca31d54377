/**
 * PGlite in a worker thread, seen from the main thread as a PGlite client (see
 * docs/internals/pglite-worker.md): the drizzle-orm/pglite driver, the migrator and the raw uses (maintenance,
 * tests) call query, exec, transaction, listen and dumpDataDir on it as on a PGlite instance.
 *
 * - One statement at a time reaches the worker, in order. A transaction holds the client: until it
 *   commits or rolls back, only its own statements are sent, and everything else queues behind it
 *   (as PGlite's own transaction lock does). BEGIN, COMMIT and ROLLBACK are sent from here.
 * - Results come back structurally as PGlite makes them (the worker runs PGlite's own parsing);
 *   a caller's custom parsers (functions, which cannot cross threads) are applied here to the
 *   columns the worker left as text.
 * - A database error comes back as PGlite's DatabaseError with every field (code, detail,
 *   constraint…), plus `query`, `params` and `queryOptions` as PGlite sets them.
 * - Notifications of a LISTEN are forwarded to the callback, before the reply to the statement
 *   that delivered them (a COMMIT), as PGlite calls them.
 * - The main thread waits for an answer blocked (Atomics.wait on a counter the worker bumps), for
 *   a few milliseconds per turn of its event loop at most: short statements go on at once, as
 *   in-thread, and a long one is left to answer in the background (see #waitBriefly).
 * - If the thread dies, every waiting call fails and `onFailure` runs (by default: a log line
 *   and exit code 1), so the server stops loudly instead of hanging.
 */

import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  type Transferable,
  type Worker,
} from 'node:worker_threads';
import {
  type QueryOptions,
  type Results,
  type Transaction,
  TransactionAbortedError,
} from '@electric-sql/pglite';
import { query as templateQuery } from '@electric-sql/pglite/template';
import { PGLITE_WORKER_STOPPED } from './availability.ts';
import {
  applyParsers,
  pgliteWorkerScript,
  rebuildError,
  startWorker,
  unsupported,
} from './pglite-crossing.ts';
import type { WorkerPrefix, WorkerReply, WorkerRequest, WorkerStart } from './pglite-protocol.ts';

/** What the app needs of a PGlite client: PGlite itself, or PgliteWorkerClient. */
export interface PgliteClient {
  query<T>(query: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(query: string, options?: QueryOptions): Promise<Array<Results>>;
  transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T>;
  listen(
    channel: string,
    callback: (payload: string) => void,
    tx?: Transaction,
  ): Promise<(tx?: Transaction) => Promise<void>>;
  dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<File | Blob>;
  close(): Promise<void>;
  readonly closed: boolean;
}

/** A statement that only reads: a SELECT (a row lock changes nothing with one session)... */
const READ_ONLY = /^\s*select\b/i;
/** ...that calls no function with a side effect. */
const WRITING_FUNCTION = /\b(pg_notify|nextval|setval|set_config|pg_advisory\w*|txid_current)\s*\(/i;
type Request = WorkerRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** For a database error: the statement as PGlite attaches it to the error. */
  query?: string | undefined;
  params?: unknown[] | undefined;
  options?: QueryOptions | undefined;
}

/**
 * How long the main thread may block per turn of its event loop waiting for the worker's answers
 * (see #waitBriefly): for the statements of transactions, which hold the database between their
 * statements, and separately for statements outside transactions. Measured on 2 cores
 * (docs/internals/pglite-worker.md): 10 ms for transactions keeps the slowest /healthz during a large clock
 * advance in the tens of milliseconds with more collections per second than PGlite on the main
 * thread; outside transactions waiting only costs (the main thread blocked while the next requests
 * queue), so a statement there is picked up only if its answer is already in.
 */
export const SYNC_WAIT_BUDGET_MS = 0;
export const TRANSACTION_WAIT_BUDGET_MS = 10;

export interface PgliteWorkerOptions {
  /** Called once if the worker thread stops without being closed. Default: log and exit 1. */
  onFailure?: (error: Error) => void;
}

function exitOnFailure(error: Error): void {
  process.stderr.write(`sandbank: fatal: ${error.message}; exiting.\n`);
  process.exit(1);
}

export class PgliteWorkerClient implements PgliteClient {
  readonly worker: Worker;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #listeners = new Map<number, (payload: string) => void>();
  #nextListener = 1;
  /** The tail of the queue of exclusive work (a statement outside a transaction, a transaction). */
  #lock: Promise<unknown> = Promise.resolve();
  #failure: Error | undefined;
  #closing = false;
  #closed = false;
  #exited: Promise<void>;
  /** Where the worker answers, and the counter it bumps after each answer (see #waitBriefly). */
  #replies: MessagePort;
  #signal: Int32Array;
  #receive: (reply: WorkerReply) => void;
  /** Whether this turn of the event loop has waited already, and for how long (ms). */
  #turnStarted = false;
  #waited = 0;
  #waitedInTx = 0;
  /** Whether a transaction is open (between its BEGIN and its COMMIT or ROLLBACK). */
  #inTransaction = false;
  /** The transaction's BEGIN, not sent yet: it goes with its first statement. */
  #beginPending = false;
  /** A read-only transaction's COMMIT, not sent yet: it goes before the next request. */
  #commitPending = false;
  /** Whether the open transaction has only read so far (and none of its statements failed). */
  #readOnly = true;

  private constructor(
    worker: Worker,
    replies: MessagePort,
    signal: Int32Array,
    options: PgliteWorkerOptions,
    ready: (error?: Error) => void,
  ) {
    this.worker = worker;
    this.#replies = replies;
    this.#signal = signal;
    const onFailure = options.onFailure ?? exitOnFailure;
    let started = false;
    this.#receive = (reply: WorkerReply) => {
      switch (reply.type) {
        case 'ready':
          started = true;
          ready();
          return;
        case 'failed':
          ready(rebuildError(reply.error, undefined));
          return;
        case 'notify':
          this.#listeners.get(reply.listenerId)?.(reply.payload);
          return;
        case 'result':
        case 'error': {
          const pending = this.#pending.get(reply.id);
          this.#pending.delete(reply.id);
          this.#refIfBusy();
          if (!pending) return;
          if (reply.type === 'result') pending.resolve(reply.result);
          else pending.reject(rebuildError(reply.error, pending));
        }
      }
    };
    replies.on('message', this.#receive);
    let crash: Error | undefined;
    worker.on('error', (error) => {
      crash = error;
    });
    this.#exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        resolve();
        // What the thread said before it ended comes first: its own 'failed' (with PGlite's error)
        // can still be on the port when the exit is seen.
        for (let left = receiveMessageOnPort(replies); left; left = receiveMessageOnPort(replies)) {
          this.#receive(left.message as WorkerReply);
        }
        replies.close();
        if (this.#closed) return;
        // Its code marks it as the database being unavailable (availability.ts): 503, not 500.
        const failure = Object.assign(
          new Error(
            `the PGlite worker thread stopped (exit code ${code}${crash ? `: ${crash.message}` : ''})`,
          ),
          { code: PGLITE_WORKER_STOPPED },
        );
        this.#failure = failure;
        for (const pending of this.#pending.values()) pending.reject(failure);
        this.#pending.clear();
        if (!started) ready(failure);
        else if (!this.#closing) onFailure(failure);
      });
    });
  }

  /** Starts the worker and resolves once PGlite is open in it. */
  static async start(start: WorkerStart, options: PgliteWorkerOptions = {}): Promise<PgliteWorkerClient> {
    const { port1: replies, port2: workerEnd } = new MessageChannel();
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const transfer: Transferable[] = [workerEnd];
    if (start.loadDataDir) transfer.push(start.loadDataDir.buffer as ArrayBuffer);
    const worker = startWorker(
      pgliteWorkerScript(),
      { ...start, replies: workerEnd, signal: signal.buffer },
      transfer,
    );
    let client: PgliteWorkerClient | undefined;
    await new Promise<void>((resolve, reject) => {
      client = new PgliteWorkerClient(worker, replies, signal, options, (error) =>
        error ? reject(error) : resolve(),
      );
    });
    if (!client) throw new Error('unreachable');
    // From now on the process is kept alive by what waits for an answer, not by the thread.
    worker.unref();
    client.#refIfBusy();
    return client;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Keeps the process alive while an answer is awaited, and only then (as PGlite in-thread). */
  #refIfBusy(): void {
    if (this.#pending.size > 0) this.#replies.ref();
    else this.#replies.unref();
  }

  #call(request: Request, statement: Omit<Pending, 'resolve' | 'reject'> = {}): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(new Error('PGlite is closed'));
    const id = this.#nextId++;
    const answered = new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, ...statement });
    });
    this.#refIfBusy();
    const prefix: WorkerPrefix = {
      ...(this.#commitPending ? { commitFirst: true } : {}),
      ...(this.#beginPending ? { beginFirst: true } : {}),
    };
    this.#commitPending = false;
    this.#beginPending = false;
    this.worker.postMessage({ ...request, ...prefix, id } as WorkerRequest);
    this.#waitBriefly(id);
    return answered;
  }

  /**
   * Waits for the answer to `id` with this thread blocked, for as long as this turn of the event
   * loop has budget left (SYNC_WAIT_BUDGET_MS, or TRANSACTION_WAIT_BUDGET_MS for the statements of
   * a transaction). A statement is usually answered well within it:
   * the caller then goes on at once, as with PGlite in-thread, instead of after a turn of the event
   * loop — which matters inside a transaction, which holds the database all the while. A longer
   * statement is left to finish in the background and this thread goes back to its event loop, so
   * it never stalls for more than the budget per turn.
   */
  #waitBriefly(id: number): void {
    const started = performance.now();
    if (!this.#turnStarted) {
      this.#turnStarted = true;
      this.#waited = 0;
      this.#waitedInTx = 0;
      setImmediate(() => {
        this.#turnStarted = false;
      });
    }
    // A transaction's statements have a budget of their own: the transaction holds the database,
    // and each turn of the event loop between its statements leaves the database idle meanwhile.
    const deadline = this.#inTransaction
      ? started + TRANSACTION_WAIT_BUDGET_MS - this.#waitedInTx
      : started + SYNC_WAIT_BUDGET_MS - this.#waited;
    for (;;) {
      // Read the signal first: an answer posted after this read changes it and ends the wait.
      const seen = Atomics.load(this.#signal, 0);
      for (
        let message = receiveMessageOnPort(this.#replies);
        message;
        message = this.#pending.has(id) ? receiveMessageOnPort(this.#replies) : undefined
      ) {
        this.#receive(message.message as WorkerReply);
      }
      if (!this.#pending.has(id)) break;
      const left = deadline - performance.now();
      if (left <= 0) break;
      Atomics.wait(this.#signal, 0, seen, left);
    }
    if (this.#inTransaction) this.#waitedInTx += performance.now() - started;
    else this.#waited += performance.now() - started;
  }

  /** Runs `work` alone: after everything queued before it, and before anything queued after. */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(work);
    this.#lock = run.catch(() => {});
    return run;
  }

  async #query<T>(sql: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    unsupported(options);
    const rowMode = options?.rowMode ?? 'object';
    const parsers = options?.parsers;
    const rawOids = parsers ? Object.keys(parsers).map(Number) : undefined;
    const result = (await this.#call(
      {
        op: 'query',
        sql,
        params,
        rowMode,
        ...(options?.paramTypes ? { paramTypes: options.paramTypes } : {}),
        ...(rawOids?.length ? { rawOids } : {}),
      },
      { query: sql, params, options },
    )) as Results<T>;
    return parsers ? (applyParsers(result as Results, parsers, rowMode) as Results<T>) : result;
  }

  async #exec(sql: string, options?: QueryOptions): Promise<Array<Results>> {
    unsupported(options);
    const parsers = options?.parsers;
    const rawOids = parsers ? Object.keys(parsers).map(Number) : undefined;
    const results = (await this.#call(
      {
        op: 'exec',
        sql,
        ...(options?.rowMode ? { rowMode: options.rowMode } : {}),
        ...(rawOids?.length ? { rawOids } : {}),
      },
      { query: sql, params: undefined, options },
    )) as Results[];
    if (!parsers) return results;
    return results.map((result) => applyParsers(result, parsers, options?.rowMode ?? 'object'));
  }

  async #listen(
    channel: string,
    callback: (payload: string) => void,
  ): Promise<(tx?: Transaction) => Promise<void>> {
    const listenerId = this.#nextListener++;
    this.#listeners.set(listenerId, callback);
    try {
      await this.#call({ op: 'listen', channel, listenerId });
    } catch (error) {
      this.#listeners.delete(listenerId);
      throw error;
    }
    return async (tx?: Transaction) => {
      const stop = async () => {
        if (!this.#listeners.delete(listenerId)) return;
        await this.#call({ op: 'unlisten', listenerId });
      };
      await (tx ? stop() : this.#exclusive(stop));
    };
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.#exclusive(() => this.#query<T>(sql, params, options));
  }

  sql<T>(strings: TemplateStringsArray, ...values: unknown[]): Promise<Results<T>> {
    const { query, params } = templateQuery(strings, ...values);
    return this.query<T>(query, params);
  }

  exec(sql: string, options?: QueryOptions): Promise<Array<Results>> {
    return this.#exclusive(() => this.#exec(sql, options));
  }

  /**
   * BEGIN, `callback` with a transaction whose statements go straight to the worker, then COMMIT
   * (or ROLLBACK when it throws), all while holding the client: as PGlite's own transaction.
   */
  transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.#exclusive(async () => {
      // The transaction holds the database from its BEGIN: that wait counts as the transaction's.
      // BEGIN is sent with the transaction's first statement (one crossing fewer).
      this.#inTransaction = true;
      this.#beginPending = true;
      this.#readOnly = true;
      let closed = false;
      const open = () => {
        if (closed) throw new Error('Transaction is closed');
      };
      const tx: Transaction = {
        query: async <R>(sql: string, params?: unknown[], options?: QueryOptions) => {
          open();
          return this.#inTx(sql, () => this.#query<R>(sql, params, options));
        },
        sql: async <R>(strings: TemplateStringsArray, ...values: unknown[]) => {
          open();
          const { query, params } = templateQuery(strings, ...values);
          return this.#inTx(query, () => this.#query<R>(query, params));
        },
        exec: async (sql: string, options?: QueryOptions) => {
          open();
          return this.#inTx(null, () => this.#exec(sql, options));
        },
        rollback: async () => {
          open();
          closed = true;
          await this.#end('ROLLBACK');
        },
        listen: async (channel: string, onPayload: (payload: string) => void) => {
          open();
          this.#readOnly = false;
          return this.#listen(channel, onPayload);
        },
        get closed() {
          return closed;
        },
      };
      try {
        const result = await callback(tx);
        if (!closed) {
          closed = true;
          const commit = await this.#end('COMMIT');
          // COMMIT of a transaction in which a statement failed: Postgres rolled it back.
          if (commit?.command === 'ROLLBACK') {
            throw Object.assign(new TransactionAbortedError(), {
              query: 'COMMIT',
              params: undefined,
              queryOptions: undefined,
            });
          }
        }
        return result;
      } catch (error) {
        if (!closed) {
          closed = true;
          await this.#end('ROLLBACK');
        }
        throw error;
      } finally {
        this.#inTransaction = false;
      }
    });
  }

  /**
   * A statement of the open transaction: one that may write (anything but a plain SELECT, or
   * `null` for exec), or one that fails, makes the transaction's COMMIT a statement of its own.
   */
  async #inTx<T>(sql: string | null, run: () => Promise<T>): Promise<T> {
    if (sql === null || !READ_ONLY.test(sql) || WRITING_FUNCTION.test(sql)) this.#readOnly = false;
    try {
      return await run();
    } catch (error) {
      this.#readOnly = false;
      throw error;
    }
  }

  /**
   * Ends the open transaction. Nothing sent yet (BEGIN still pending): nothing to end. A COMMIT of
   * a transaction that only read, with no failed statement, changes nothing and cannot fail: it
   * is left to go before the next request, and the caller goes on at once. Otherwise it is sent
   * and its answer awaited (a COMMIT after a failed statement answers ROLLBACK).
   */
  async #end(command: 'COMMIT' | 'ROLLBACK'): Promise<Results | undefined> {
    if (this.#beginPending) {
      this.#beginPending = false;
      return undefined;
    }
    if (command === 'COMMIT' && this.#readOnly) {
      this.#commitPending = true;
      return undefined;
    }
    const [result] = await this.#exec(command);
    return result;
  }

  listen(
    channel: string,
    callback: (payload: string) => void,
    tx?: Transaction,
  ): Promise<(tx?: Transaction) => Promise<void>> {
    return tx ? this.#listen(channel, callback) : this.#exclusive(() => this.#listen(channel, callback));
  }

  /** The data folder as a tar (gzipped unless 'none'), as PGlite's dumpDataDir. */
  async dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<File | Blob> {
    const bytes = (await this.#exclusive(() =>
      this.#call({ op: 'dump', ...(compression ? { compression } : {}) }),
    )) as Uint8Array<ArrayBuffer>;
    const gzip = compression !== 'none';
    return new File([bytes], gzip ? 'pgdata.tar.gz' : 'pgdata.tar', {
      type: gzip ? 'application/x-gzip' : 'application/x-tar',
    });
  }

  /** Closes PGlite in the worker (after the work queued before), then waits for the thread to end. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closing = true;
    if (!this.#failure) await this.#exclusive(() => this.#call({ op: 'close' }));
    this.#closed = true;
    this.worker.ref();
    await this.#exited;
    this.worker.unref();
  }
}
