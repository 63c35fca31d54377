import { randomBytes } from 'node:crypto';
import { createClient } from 'graphql-ws';
import { parse as parseExact, stringify as stringifyExact } from 'lossless-json';
import { decodeTime, encodeTime } from 'ulid';
import WebSocket from 'ws';
import { type CursorEntry, cursorId, readCursor, saveCursor } from './listen-cursor.ts';
import { describe, forwardEvent, type Receiver, type StoredEvent, sleep } from './listen-forward.ts';
import {
  checkSecret,
  DEFAULT_MAX_ATTEMPTS,
  ListenError,
  type ListenOptions,
  parseSince,
  resolveEventTypes,
} from './listen-options.ts';

export { defaultCursorFile } from './listen-cursor.ts';
export {
  checkSecret,
  DEFAULT_MAX_ATTEMPTS,
  ListenError,
  type ListenOptions,
  resolveEventTypes,
} from './listen-options.ts';

/** Waits between attempts to reach the server again: 1 s doubling to 30 s. */
const RECONNECT_DELAYS_MS = [1000, 2000, 4000, 8000, 16000, 30000];
/** How far (by id time) catch-up reads below the newest event it has read: a transaction may commit after a later one. */
const OVERLAP_MS = 30_000;
/** While connected, GET /v1/events is read this often too (live delivery is at most once). */
const RECONCILE_MS = 15_000;

const SUBSCRIPTION = `subscription ($types: [String!]) {
  events(types: $types) { id type }
}`;

/**
 * `sandbank listen --forward-to URL`: forwards the merchant's events to a local URL, signed per
 * Standard Webhooks with a secret of its own (printed at start, or pinned with --secret), for
 * receivers the sandbox cannot reach.
 *
 * The graphql-ws subscription only says that something happened; what is forwarded is read from
 * GET /v1/events (the durable record, with exact decimals), after the newest event already read.
 * So a dropped connection loses nothing: the listener reconnects with backoff and catches up, and
 * it also reads the record every RECONCILE_MS while connected (the live stream is at most once).
 * Events are forwarded one at a time in id order, each once; a receiver that is down or answers
 * non-2xx is retried with backoff up to maxAttempts, then the event is reported as dropped
 * (listen-forward.ts). The options and their checks are listen-options.ts's.
 *
 * Where it starts: after `since` when given (an event id, or a time compared with created_at);
 * else after the cursor a previous run saved for the same server, key and forward URL
 * (listen-cursor.ts), unless `resume` is false; else at the newest event (live only). The events
 * before going live are forwarded first, in id order, and each event handled (delivered, or
 * dropped) moves the saved cursor, so a restart forwards what it missed and nothing it delivered.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const listener = new Listener(options);
  await listener.run();
}

/** The smallest id an event made at `ms` (server wall time, the ULID's time part) can have. */
function idFloorAt(ms: number): string {
  return `evt_${encodeTime(Math.max(0, ms), 10)}`;
}

function timeOfId(id: string): number | null {
  try {
    return decodeTime(id.slice(id.indexOf('_') + 1));
  } catch {
    return null;
  }
}

class Listener {
  readonly #options: ListenOptions;
  readonly #secret: string;
  readonly #base: string;
  readonly #warn: (line: string) => void;
  readonly #signal: AbortSignal;
  /** Where each event read is forwarded (listen-forward.ts). */
  readonly #receiver: Receiver;
  /** The exact types wanted (null: all). */
  #types: string[] | null = null;
  /** Ids at or below this were there before the listener started: never forwarded. */
  #baseline = '';
  /** The newest event id read from the record (any type). */
  #newest: string | null = null;
  /** Ids already queued for forwarding, within the overlap. */
  readonly #seen = new Set<string>();
  readonly #queue: StoredEvent[] = [];
  #forwarding: Promise<void> | null = null;
  #catchingUp: Promise<void> | null = null;
  #again = false;
  #catchUpFailed = false;
  /** --since TIME: events up to `upTo` (the newest at start) made before `time` are not forwarded. */
  #sinceTime: { time: number; upTo: string } | null = null;
  /** The saved cursor (null: none kept), its file and its entry's name. */
  #cursor: CursorEntry | null = null;
  #cursorFile: string | null = null;
  #cursorId = '';
  #cursorFailed = false;

  constructor(options: ListenOptions) {
    this.#options = options;
    this.#secret = options.secret
      ? checkSecret(options.secret)
      : `whsec_${randomBytes(32).toString('base64')}`;
    const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 1000)
      throw new ListenError('--max-attempts must be a whole number from 1 to 1000.');
    this.#base = options.api.replace(/\/+$/, '');
    this.#warn = options.warn ?? options.log;
    this.#signal = options.signal ?? new AbortController().signal;
    this.#receiver = {
      url: options.forwardTo,
      secret: this.#secret,
      maxAttempts,
      log: options.log,
      warn: this.#warn,
      signal: this.#signal,
    };
  }

  async run(): Promise<void> {
    const log = this.#options.log;
    log(`Signing secret ${this.#secret}`);
    const known = (await this.#getJson('/v1/event_types')) as { data: { type: string }[] };
    this.#types = resolveEventTypes(
      this.#options.events,
      known.data.map((t) => t.type),
    );
    const newest = (await this.#getJson('/v1/events?limit=1')) as { data: { id: string }[] };
    const newestId = newest.data[0]?.id ?? '';
    const from = await this.#startingPoint(newestId);
    this.#baseline = from.after;
    for (const id of from.handled) this.#seen.add(id);
    if (from.label) {
      await this.#catchUpOnce((count) =>
        log(
          count > 0
            ? `Catching up: ${count} event${count === 1 ? '' : 's'} after ${from.label}`
            : `Catching up: nothing missed after ${from.label}`,
        ),
      );
      // The missed events first, in order; the live stream and its catch-ups then go on after them.
      await this.#forwarding;
      if (this.#signal.aborted) return;
    }
    let failures = 0;
    let first = true;
    while (!this.#signal.aborted) {
      const session = await this.#session(first);
      if (session.connected) {
        first = false;
        failures = 0;
      }
      if (this.#signal.aborted) break;
      const delay = RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length - 1)] as number;
      failures++;
      this.#warn(
        `${session.connected ? 'Lost the connection to' : 'Cannot reach'} ${this.#base} (${session.reason}); reconnecting in ${delay / 1000}s`,
      );
      await sleep(delay, this.#signal);
    }
    await this.#forwarding;
  }

  /**
   * Where forwarding starts: the floor (ids at or below it are not forwarded), the ids above it
   * already handled, and what to call the point when catching up (null: live only).
   */
  async #startingPoint(
    newestId: string,
  ): Promise<{ after: string; handled: string[]; label: string | null }> {
    const options = this.#options;
    if (options.cursorFile) {
      this.#cursorFile = options.cursorFile;
      this.#cursorId = cursorId(this.#base, options.key, options.forwardTo);
    }
    const saved =
      this.#cursorFile && options.resume !== false && options.since === undefined
        ? readCursor(this.#cursorFile, this.#cursorId)
        : null;
    const entry = (after: string, handled: string[] = []): CursorEntry => ({
      api: this.#base,
      forward_to: options.forwardTo,
      key_last4: options.key.slice(-4),
      after,
      handled,
      last_delivered: saved?.last_delivered ?? null,
      updated_at: new Date().toISOString(),
    });
    if (options.since !== undefined) {
      const since = parseSince(options.since);
      if ('id' in since) {
        await this.#getJson(`/v1/events/${since.id}`).catch((error: unknown) => {
          if (error instanceof ListenError) throw error;
          throw new ListenError(`--since ${since.id}: ${describe(error)}`);
        });
        this.#cursor = entry(since.id);
        this.#saveCursor();
        return { after: since.id, handled: [], label: since.id };
      }
      this.#sinceTime = { time: since.time, upTo: newestId };
      this.#cursor = entry('');
      return { after: '', handled: [], label: `${new Date(since.time).toISOString()} (created_at)` };
    }
    if (saved) {
      this.#cursor = { ...saved, handled: [...saved.handled] };
      const point = saved.last_delivered ?? (saved.after || 'the start of the record');
      return {
        after: saved.after,
        handled: saved.handled,
        label: `${point}, the cursor saved in ${this.#cursorFile}`,
      };
    }
    this.#cursor = entry(newestId);
    this.#saveCursor();
    return { after: newestId, handled: [], label: null };
  }

  /** Records an event as handled: the saved floor follows the newest handled, OVERLAP_MS behind. */
  #handled(id: string, delivered: boolean): void {
    const cursor = this.#cursor;
    if (!cursor) return;
    const handled = new Set(cursor.handled);
    handled.add(id);
    if (delivered && (!cursor.last_delivered || id > cursor.last_delivered)) cursor.last_delivered = id;
    const newestTime = timeOfId([...handled].sort().at(-1) ?? id);
    if (newestTime !== null) {
      const floor = idFloorAt(newestTime - OVERLAP_MS);
      if (floor > cursor.after) cursor.after = floor;
    }
    cursor.handled = [...handled].filter((h) => h > cursor.after).sort();
    cursor.updated_at = new Date().toISOString();
    this.#saveCursor();
  }

  #saveCursor(): void {
    if (!this.#cursorFile || !this.#cursor) return;
    try {
      saveCursor(this.#cursorFile, this.#cursorId, this.#cursor);
      this.#cursorFailed = false;
    } catch (error) {
      if (!this.#cursorFailed)
        this.#warn(
          `Cannot save the cursor in ${this.#cursorFile} (${describe(error)}): a restart may forward events again or miss some`,
        );
      this.#cursorFailed = true;
    }
  }

  /** One graphql-ws connection: resolves when it ends (rejects when it must not be retried). */
  #session(first: boolean): Promise<{ connected: boolean; reason: string }> {
    const url = `${this.#base.replace(/^http/, 'ws')}/graphql`;
    return new Promise((resolve, reject) => {
      let connected = false;
      let done = false;
      const timers: NodeJS.Timeout[] = [];
      const client = createClient({
        url,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${this.#options.key}` },
        retryAttempts: 0,
        on: {
          connected: () => {
            connected = true;
            this.#options.log(
              first
                ? `Ready: forwarding ${this.#types ? this.#types.join(', ') : 'every event'} to ${this.#options.forwardTo}`
                : `Reconnected to ${this.#base}; catching up after ${this.#newest ?? 'the start'}`,
            );
            this.#catchUp();
            // The subscription is live a moment after the connection: read the record once more then.
            timers.push(setTimeout(() => this.#catchUp(), 1000));
            timers.push(setInterval(() => this.#catchUp(), RECONCILE_MS));
          },
        },
      });
      const finish = (outcome: { reason: string } | { fatal: Error }) => {
        if (done) return;
        done = true;
        for (const timer of timers) clearInterval(timer);
        this.#signal.removeEventListener('abort', onAbort);
        void client.dispose();
        if ('fatal' in outcome) reject(outcome.fatal);
        else resolve({ connected, reason: outcome.reason });
      };
      const onAbort = () => finish({ reason: 'stopped' });
      this.#signal.addEventListener('abort', onAbort);
      client.subscribe<{ events: { id: string; type: string } }>(
        { query: SUBSCRIPTION, variables: { types: this.#types } },
        {
          next: (result) => {
            // The stream failed (e.g. it fell behind): subscribe again, and catch up on reconnecting.
            if (result.errors?.length) return finish({ reason: describe(result.errors) });
            const id = result.data?.events.id;
            if (id && !this.#seen.has(id)) this.#catchUp();
          },
          error: (error) => {
            const code = (error as { code?: unknown } | null)?.code;
            if (code === 4401 || code === 4403)
              finish({ fatal: new ListenError(`The server refused the key: ${describe(error)}`) });
            else if (Array.isArray(error) && !describe(error).includes('again'))
              finish({ fatal: new ListenError(`The server refused the subscription: ${describe(error)}`) });
            else finish({ reason: describe(error) });
          },
          complete: () => finish({ reason: 'the server ended the subscription' }),
        },
      );
    });
  }

  /** Reads the record after the newest event read (one run at a time; a request during a run runs it again). */
  #catchUp(): void {
    if (this.#catchingUp) {
      this.#again = true;
      return;
    }
    this.#catchingUp = (async () => {
      do {
        this.#again = false;
        try {
          await this.#catchUpOnce();
          this.#catchUpFailed = false;
        } catch (error) {
          // The connection's end says so too, and the next connection catches up.
          if (!this.#catchUpFailed) this.#warn(`Could not read GET /v1/events: ${describe(error)}`);
          this.#catchUpFailed = true;
          return;
        }
      } while (this.#again && !this.#signal.aborted);
    })().finally(() => {
      this.#catchingUp = null;
    });
  }

  async #catchUpOnce(found_?: (count: number) => void): Promise<void> {
    const newestTime = this.#newest ? timeOfId(this.#newest) : null;
    const overlapFloor = newestTime === null ? '' : idFloorAt(newestTime - OVERLAP_MS);
    const floor = [overlapFloor, this.#baseline].sort().at(-1) ?? '';
    const single = this.#types?.length === 1 ? `&type=${encodeURIComponent(this.#types[0] as string)}` : '';
    const found: StoredEvent[] = [];
    let after: string | null = null;
    let newest: string | null = null;
    pages: for (;;) {
      const query = `/v1/events?limit=100${single}${after ? `&starting_after=${encodeURIComponent(after)}` : ''}`;
      const page = (await this.#getJson(query, true)) as {
        data: Record<string, unknown>[];
        has_more: boolean;
        next_cursor: string | null;
      };
      for (const event of page.data) {
        const id = String(event.id);
        const type = String(event.type);
        if (newest === null || id > newest) newest = id;
        if (id <= floor) break pages;
        if (this.#seen.has(id) || (this.#types && !this.#types.includes(type))) continue;
        if (this.#sinceTime && id <= this.#sinceTime.upTo) {
          const created = Date.parse(String(event.created_at));
          if (!(created >= this.#sinceTime.time)) continue;
        }
        found.push({ id, type, body: stringifyExact(event) as string });
      }
      if (!page.has_more || !page.next_cursor) break;
      after = page.next_cursor;
    }
    if (newest && (!this.#newest || newest > this.#newest)) this.#newest = newest;
    found.sort((a, b) => (a.id < b.id ? -1 : 1));
    found_?.(found.length);
    for (const event of found) {
      this.#seen.add(event.id);
      this.#queue.push(event);
    }
    for (const id of this.#seen) if (id <= floor) this.#seen.delete(id);
    if (found.length > 0 && !this.#forwarding)
      this.#forwarding = this.#drain().finally(() => {
        this.#forwarding = null;
      });
  }

  async #drain(): Promise<void> {
    for (let event = this.#queue.shift(); event; event = this.#queue.shift()) {
      if (this.#signal.aborted) return;
      const outcome = await forwardEvent(event, this.#receiver);
      if (outcome !== 'stopped') this.#handled(event.id, outcome === 'delivered');
    }
  }

  async #getJson(path: string, exact = false): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}`, {
        headers: { authorization: `Bearer ${this.#options.key}` },
        signal: AbortSignal.any([this.#signal, AbortSignal.timeout(30_000)]),
      });
    } catch (error) {
      throw new Error(`cannot reach ${this.#base}: ${describe(error)}`);
    }
    const text = await response.text();
    if (!response.ok) {
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // not JSON: the text itself
      }
      const problem = `GET ${path.split('?')[0]} answered ${response.status}: ${message}`;
      throw response.status === 401 || response.status === 403
        ? new ListenError(problem)
        : new Error(problem);
    }
    return exact ? parseExact(text) : JSON.parse(text);
  }
}
