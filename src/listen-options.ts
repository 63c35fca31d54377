/**
 * `sandbank listen`'s options, and the checks of what the user asked for (a pinned signing secret,
 * the event types) that listen() (src/listen.ts) makes before it forwards anything.
 */

export interface ListenOptions {
  api: string;
  key: string;
  forwardTo: string;
  /** Event types as the user wrote them: exact types, "*", or a prefix ending in "*" (null: all). */
  events: string[] | null;
  /** A pinned signing secret (`whsec_` + base64); a fresh one is made when absent. */
  secret?: string;
  /** Attempts per event before it is dropped (default DEFAULT_MAX_ATTEMPTS; 1 = never retry). */
  maxAttempts?: number;
  /**
   * Forward the events after this point first: an event id (those after it), or an ISO 8601 time
   * (those whose created_at is at or after it). Overrides the saved cursor for this run.
   */
  since?: string;
  /** The file the cursor is saved in (listen-cursor.ts); null: none is read or saved. */
  cursorFile?: string | null;
  /** Resume from the saved cursor (default true); false starts live-only (and saves from there). */
  resume?: boolean;
  log: (line: string) => void;
  /** Where the loud lines go (a dropped event, a lost connection); default `log`. */
  warn?: (line: string) => void;
  /** Ends listening: listen() then resolves. */
  signal?: AbortSignal;
}

/** Attempts per event, by default: about 2.5 minutes of retries (see RETRY_DELAYS_MS, listen-forward.ts). */
export const DEFAULT_MAX_ATTEMPTS = 10;

/** A fatal problem: listen() rejects with it instead of reconnecting. */
export class ListenError extends Error {}

/** A signing secret as Standard Webhooks defines it: `whsec_` and 24 to 64 base64-encoded random bytes. */
export function checkSecret(secret: string): string {
  const encoded = secret.startsWith('whsec_') ? secret.slice(6) : null;
  const bytes =
    encoded !== null && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : null;
  if (!bytes || bytes.length < 24 || bytes.length > 64)
    throw new ListenError(
      '--secret must be "whsec_" followed by 24 to 64 bytes in base64 (e.g. the secret a previous run printed).',
    );
  return secret;
}

/**
 * Resolves the user's --events against the server's event types: exact types, "*" (everything),
 * or a prefix such as "collection.*". Refuses anything that names no type. Returns the exact
 * types to subscribe to, or null for all.
 */
export function resolveEventTypes(requested: string[] | null, known: string[]): string[] | null {
  if (requested === null || requested.includes('*')) return null;
  if (requested.length === 0) throw new ListenError('--events is empty: name event types, or "*" for all.');
  const types = new Set<string>();
  const unknown: string[] = [];
  for (const entry of requested) {
    const matches = entry.endsWith('*')
      ? known.filter((type) => type.startsWith(entry.slice(0, -1)))
      : known.filter((type) => type === entry);
    if (matches.length === 0) unknown.push(entry);
    for (const type of matches) types.add(type);
  }
  if (unknown.length > 0)
    throw new ListenError(
      `Unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.map((t) => `"${t}"`).join(', ')}. ` +
        `Known types (GET /v1/event_types): ${known.join(', ')}. A prefix such as "collection.*" or "*" also works.`,
    );
  return [...types];
}

/** What --since names: an event id, or a time (ms) that events' created_at is compared with. */
export type SincePoint = { id: string } | { time: number };

const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** Reads --since: an event id (evt_…) or an ISO 8601 time (a date, or a date-time with its zone). */
export function parseSince(since: string): SincePoint {
  const value = since.trim();
  if (EVENT_ID.test(value)) return { id: value };
  const time = ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(time))
    throw new ListenError(
      `--since must be an event id (evt_ and 26 characters, as GET /v1/events shows) or an ISO 8601 time ` +
        `with its zone, such as 2026-11-28T15:00:00Z or 2026-11-28 (got "${value.slice(0, 60)}").`,
    );
  return { time };
}
