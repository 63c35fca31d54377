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
