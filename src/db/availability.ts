/**
 * Whether the database can be reached, and what the server does while it cannot
 * (docs/guide/deploy.md, "When the database is unreachable"): every request that needs it answers at once with
 * 503 database_unavailable and Retry-After instead of waiting on a dead connection, background work
 * skips its turns, and a probe finds out when the database is back.
 */

/** Node socket and DNS codes of a connection that could not be made or was cut. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** postgres.js's own codes for a connection that timed out, closed or was ended under a query. */
const DRIVER_CODES = new Set([
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
]);

/** Whether a code is a socket's or the driver's own for a connection that failed or closed. */
export function isConnectionFailureCode(code: unknown): boolean {
  return typeof code === 'string' && (SOCKET_CODES.has(code) || DRIVER_CODES.has(code));
}

/**
 * SQLSTATEs of a server that is going away or not taking connections: 57P01 admin shutdown (also
 * pg_terminate_backend), 57P02 crash shutdown, 57P03 cannot connect now (starting up, shutting
 * down), 53300 too many connections. Class 08 (connection exception) is matched as a class.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** The code of the error a query gets at once while the database is known to be unreachable. */
export const DATABASE_UNAVAILABLE = 'DATABASE_UNAVAILABLE';
/** The code of the error every query gets once the PGlite worker thread has stopped. */
export const PGLITE_WORKER_STOPPED = 'PGLITE_WORKER_STOPPED';

/** A query refused without being sent: the database was unreachable a moment ago (see Availability). */
export class DatabaseUnavailableError extends Error {
  readonly code = DATABASE_UNAVAILABLE;
  constructor(cause?: unknown) {
    super('The database is unreachable.', cause === undefined ? {} : { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

function isUnavailableCode(code: unknown): boolean {
  if (typeof code !== 'string') return false;
  return (
    code === DATABASE_UNAVAILABLE ||
    code === PGLITE_WORKER_STOPPED ||
    SOCKET_CODES.has(code) ||
    DRIVER_CODES.has(code) ||
    UNAVAILABLE_STATES.has(code) ||
    /^08[0-9A-Z]{3}$/.test(code)
  );
}

/**
 * Whether an error says the database could not be reached (rather than that a statement failed):
 * the error, its causes (Drizzle wraps the driver's) and, for an AggregateError (a host name with
 * several addresses), the errors it gathers.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 8) return false;
  if (isUnavailableCode((error as { code?: unknown }).code)) return true;
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))
  )
    return true;
  return isDatabaseUnavailable(error.cause, depth + 1);
}

export interface AvailabilityOptions {
  /** Time between two probes while the database is down. */
  probeIntervalMs?: number;
  /** How long one probe may take before it counts as failed. */
  probeTimeoutMs?: number;
}

export type AvailabilityListener = (change: { up: boolean; cause?: unknown }) => void;

/**
 * Resolves with `work`, or rejects once `ms` have passed without an answer. A slow answer alone
 * does not take the database down (its code is none of the unreachable ones): a busy database is
 * not an unreachable one.
 */
export function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(message), { code: 'PROBE_TIMEOUT' })), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The database's reachability as this process last saw it. It goes down on the first error that
 * says the database cannot be reached (`report`); while it is down, `check` throws at once (the
 * database's client calls it before every query), and a probe (`SELECT 1`, bounded) runs every
 * `probeIntervalMs` until one answers, which brings it back up. Listeners hear each change once,
 * so a long outage is one line in the log, not one per request or per background turn.
 */
export class Availability {
  readonly #probe: () => Promise<void>;
  readonly #intervalMs: number;
  readonly #timeoutMs: number;
  readonly #listeners = new Set<AvailabilityListener>();
  #cause: unknown = null;
  #down = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(probe: () => Promise<void>, options: AvailabilityOptions = {}) {
    this.#probe = probe;
    this.#intervalMs = options.probeIntervalMs ?? 500;
    this.#timeoutMs = options.probeTimeoutMs ?? 1000;
  }

  /** Whether the database was reachable at the last look. */
  get up(): boolean {
    return !this.#down;
  }

  /** Throws DatabaseUnavailableError while the database is down. */
  check(): void {
    if (this.#down) throw new DatabaseUnavailableError(this.#cause);
  }

  /** Looks at an error a query got: one that says the database is unreachable takes it down. */
  report(error: unknown): void {
    if (this.#down || this.#closed || error instanceof DatabaseUnavailableError) return;
    if (!isDatabaseUnavailable(error)) return;
    this.#down = true;
    this.#cause = error;
    this.#emit({ up: false, cause: error });
    this.#schedule(0);
  }

  /** Calls `listener` on every change; returns a function that stops it. */
  onChange(listener: AvailabilityListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Runs the probe now, within the probe's timeout: resolves if the database answered (bringing it
   * back up), rejects with the probe's error otherwise (taking it down if the error says so).
   */
  async probe(timeoutMs = this.#timeoutMs): Promise<void> {
    try {
      await withTimeout(this.#probe(), timeoutMs, `the database did not answer within ${timeoutMs} ms`);
    } catch (error) {
      this.report(error);
      throw error;
    }
    if (this.#down) {
      this.#down = false;
      this.#cause = null;
      clearTimeout(this.#timer);
      this.#emit({ up: true });
    }
  }

  /** Stops probing (the database is being closed). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.probe().catch(() => {
        if (this.#down) this.#schedule(this.#intervalMs);
      });
    }, ms);
    this.#timer.unref();
  }

  #emit(change: { up: boolean; cause?: unknown }): void {
    for (const listener of this.#listeners) listener(change);
  }
}
