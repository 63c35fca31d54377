import { signPayload } from './modules/webhooks/webhooks.signing.ts';

/**
 * `sandbank listen`'s side towards the local receiver: one event POSTed, signed per Standard
 * Webhooks, and retried with backoff while the receiver is down or answers non-2xx (src/listen.ts
 * reads the events from the server and hands them here one at a time, in id order).
 */

/** Waits between attempts at the local receiver: 1 s doubling to 30 s, then 30 s. */
const RETRY_DELAYS_MS = [1000, 2000, 4000, 8000, 16000, 30000];
/** A POST to the local receiver gives up after this long (then it is retried like a failure). */
const RECEIVER_TIMEOUT_MS = 30_000;

/** One event as GET /v1/events renders it, with its exact JSON text (decimals as the server wrote them). */
export interface StoredEvent {
  id: string;
  type: string;
  body: string;
}

/** Where events go and how hard to try: the listener's receiver, signing secret and retry budget. */
export interface Receiver {
  url: string;
  secret: string;
  maxAttempts: number;
  log: (line: string) => void;
  /** Where a dropped event is reported. */
  warn: (line: string) => void;
  signal: AbortSignal;
}

/** An error (a fetch failure, a socket close, GraphQL errors) in one line. */
export function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  if (Array.isArray(error))
    return error.map((e) => (e as { message?: string }).message ?? String(e)).join('; ');
  const close = error as { code?: number; reason?: string; message?: string } | null;
  if (close && typeof close.code === 'number')
    return `closed with ${close.code}${close.reason ? ` ${close.reason}` : ''}`;
  return close?.message ?? String(error);
}

/** How forwarding one event ended: answered 2xx, given up after maxAttempts, or stopped first. */
export type ForwardOutcome = 'delivered' | 'dropped' | 'stopped';

/** POSTs one event until the receiver answers 2xx, or maxAttempts attempts failed. */
export async function forwardEvent(event: StoredEvent, receiver: Receiver): Promise<ForwardOutcome> {
  const log = receiver.log;
  for (let attempt = 1; ; attempt++) {
    const headers = signPayload(event.id, event.body, [receiver.secret], new Date());
    let outcome: string;
    try {
      const response = await fetch(receiver.url, {
        method: 'POST',
        body: event.body,
        headers,
        redirect: 'manual',
        signal: AbortSignal.any([receiver.signal, AbortSignal.timeout(RECEIVER_TIMEOUT_MS)]),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) {
        log(`${event.type} ${event.id} → ${response.status}`);
        return 'delivered';
      }
      outcome = String(response.status);
    } catch (error) {
      if (receiver.signal.aborted) return 'stopped';
      outcome = describe(error);
    }
    if (attempt >= receiver.maxAttempts) {
      receiver.warn(
        `DROPPED ${event.type} ${event.id} after ${attempt} attempt${attempt > 1 ? 's' : ''} (last: ${outcome}); ` +
          `GET /v1/events/${event.id} still has it`,
      );
      return 'dropped';
    }
    const delay = RETRY_DELAYS_MS[Math.min(attempt - 1, RETRY_DELAYS_MS.length - 1)] as number;
    log(
      `${event.type} ${event.id} → ${outcome} (attempt ${attempt} of ${receiver.maxAttempts}; retrying in ${delay / 1000}s)`,
    );
    await sleep(delay, receiver.signal);
    if (receiver.signal.aborted) return 'stopped';
  }
}

/** Waits `ms`, or less when `signal` aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
