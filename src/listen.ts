import { randomBytes } from 'node:crypto';
import { createClient } from 'graphql-ws';
import { parse as parseExact, stringify as stringifyExact } from 'lossless-json';
import WebSocket from 'ws';
import { catchUpLine, idFloorAt, OVERLAP_MS, SavedCursor, timeOfId } from './listen-cursor.ts';
import { describe, forwardEvent, type Receiver, type StoredEvent, sleep } from './listen-forward.ts';
import {
  checkSecret,
  DEFAULT_MAX_ATTEMPTS,
  ListenError,
  type ListenOptions,
  resolveEventTypes,
} from './listen-options.ts';
import { CLI_USER_AGENT } from './user-agent.ts';

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
/** While connected, GET /v1/events is read this often too (live delivery is at most once). */
const RECONCILE_MS = 15_000;

const SUBSCRIPTION = `subscription ($types: [String!]) { events(types: $types) { id type } }`;

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
 * Where it starts (--since, the cursor a previous run saved, or live) is listen-cursor.ts's; the
 * events missed are forwarded first, in id order, then it goes live.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const listener = new Listener(options);
  await listener.run();
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
  /** Where this listener got to, saved for the next run (listen-cursor.ts). */
  readonly #cursor: SavedCursor;

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
    this.#cursor = new SavedCursor(options.cursorFile ?? null, this.#base, options, this.#warn);
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
    const from = await this.#cursor.start(this.#options, newestId, (id) => this.#getJson(`/v1/events/${id}`));
    this.#sinceTime = from.sinceTime;
    this.#baseline = from.after;
    for (const id of from.handled) this.#seen.add(id);
    if (from.label) {
      await this.#catchUpOnce((count) => log(catchUpLine(count, from.label as string)));
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
        const since = this.#sinceTime;
        if (since && id <= since.upTo && !(Date.parse(String(event.created_at)) >= since.time)) continue;
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
      if (outcome !== 'stopped') this.#cursor.handled(event.id, outcome === 'delivered');
    }
  }

  async #getJson(path: string, exact = false): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}`, {
        headers: { authorization: `Bearer ${this.#options.key}`, 'user-agent': CLI_USER_AGENT },
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
