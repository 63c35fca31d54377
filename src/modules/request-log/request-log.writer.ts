import { type Db, queryRowsPrepared } from '../../db/client.ts';
import { isDatabaseUnavailable } from '../context.ts';
import { batchStatement, noteFloors, type TrimState } from './request-log.batch.ts';
import type { CapturedRequest } from './request-log.entry.ts';

/**
 * The request log's writer: the HTTP stack hands it each request as it ends (`add`, no waiting), and
 * it writes them in batches — one multi-row INSERT every FLUSH_MS, or at once when BATCH_ROWS are
 * waiting — so that a request never waits for its own log line. Bodies are masked at write time,
 * off the request's path. A read of the log flushes first (`flush`), so a request is visible to the
 * very next read in the same process; on shutdown what is buffered is written (server.ts).
 * Each batch is one statement, with the trims that keep each merchant to its cap
 * (request-log.batch.ts).
 */

export interface RequestLogSettings {
  /** Whether requests are logged (REQUEST_LOG=off: none are; the reads still answer). */
  enabled: boolean;
  /** How long an entry is kept, real time (REQUEST_LOG_RETENTION_HOURS). */
  retentionHours: number;
  /** The most entries kept per merchant; the oldest go first (REQUEST_LOG_MAX_PER_MERCHANT). */
  maxPerMerchant: number;
}

export const DEFAULT_REQUEST_LOG_SETTINGS: RequestLogSettings = Object.freeze({
  enabled: true,
  retentionHours: 24,
  maxPerMerchant: 1000,
});

/** How long an entry may wait in the buffer (a few statements a second, whatever the load). */
const FLUSH_MS = 100;
/** Rows per INSERT; a buffer this full is written at once. */
const BATCH_ROWS = 200;
/** The most rows kept waiting while the database cannot be reached; older ones are dropped. */
const MAX_BUFFERED = 10_000;

/** Where the writer says what went wrong (the server's logger). */
export interface WarnLogger {
  warn(details: object, message: string): void;
}

export class RequestLogWriter {
  settings: RequestLogSettings;
  readonly #db: Db;
  #logger: WarnLogger | undefined;
  #buffer: CapturedRequest[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** The writes so far, chained: a flush waits for the one under way, then writes what is left. */
  #chain: Promise<void> = Promise.resolve();
  /** Where each merchant's trims stand. */
  readonly #trims: TrimState = { sinceTrim: new Map(), floors: new Map() };

  constructor(db: Db, settings: RequestLogSettings, logger?: WarnLogger) {
    this.#db = db;
    this.settings = settings;
    this.#logger = logger;
  }

  /** Takes one request to write soon (nothing when the log is off). */
  add(entry: CapturedRequest): void {
    if (!this.settings.enabled) return;
    this.#buffer.push(entry);
    if (this.#buffer.length === BATCH_ROWS) this.#schedule(0);
    else if (!this.#timer) this.#schedule(FLUSH_MS);
  }

  /** Writes every request taken so far; resolves once they are in the database (never rejects). */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#chain = this.#chain.then(() => this.#writeAll());
    return this.#chain;
  }

  #schedule(ms: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, ms);
    this.#timer.unref();
  }

  /**
   * Writes what is buffered now, BATCH_ROWS a statement; what arrives meanwhile waits for its own
   * turn (FLUSH_MS later), so that the log's writes stay a few statements a second under load.
   */
  async #writeAll(): Promise<void> {
    const pending = this.#buffer.splice(0);
    for (let at = 0; at < pending.length; at += BATCH_ROWS) {
      const batch = pending.slice(at, at + BATCH_ROWS);
      try {
        const statement = batchStatement(batch, this.settings.maxPerMerchant, this.#trims);
        const [answer] = await queryRowsPrepared<{ floors?: unknown }>(this.#db, statement);
        noteFloors(answer, this.#trims);
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          // Kept for the next try (the newest ones, at most MAX_BUFFERED).
          this.#buffer = [...pending.slice(at), ...this.#buffer].slice(-MAX_BUFFERED);
          this.#schedule(1000);
          return;
        }
        this.#logger?.warn({ err: error, rows: batch.length }, 'request log: a batch could not be written');
      }
    }
  }
}

/** The writer of each database (a test process opens several). */
const writers = new WeakMap<Db, RequestLogWriter>();

/**
 * The request log writer of a database, made on first use; `settings` (when given) replace those
 * it had, as the app built last on this database says them.
 */
export function requestLogWriter(
  db: Db,
  settings?: RequestLogSettings,
  logger?: WarnLogger,
): RequestLogWriter {
  let writer = writers.get(db);
  if (!writer) {
    writer = new RequestLogWriter(db, settings ?? DEFAULT_REQUEST_LOG_SETTINGS, logger);
    writers.set(db, writer);
  } else if (settings) writer.settings = settings;
  return writer;
}

/** The settings in force on a database (the defaults where no app has been built on it). */
export function requestLogSettings(db: Db): RequestLogSettings {
  return writers.get(db)?.settings ?? DEFAULT_REQUEST_LOG_SETTINGS;
}

/**
 * Writes what this process has buffered for the database: before the log is read, and before a
 * reset or a snapshot (so that what they delete or save includes the requests already answered).
 */
export async function flushRequestLog(db: Db): Promise<void> {
  await writers.get(db)?.flush();
}
