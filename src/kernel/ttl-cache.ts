import { systemClock } from './clock.ts';

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * A short-lived in-process cache of values read from the database (an API key's merchant, a
 * merchant's clock), read through `get(key, load)`:
 * - a value is kept for `ttlMs` of real time (cache bookkeeping, not business time), and only when
 *   `keep(value)` says so (an unknown API key is never kept);
 * - concurrent misses of one key share one load (single flight): a burst of requests arriving as
 *   an entry expires reads the row once, not once per request;
 * - `forget(key)` (a change made in this process) drops the entry and makes a load already under
 *   way answer only the callers that were waiting for it, without filling the cache: the next
 *   caller reads again, after the change.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly keep: (value: V) => boolean = () => true,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = systemClock.now().getTime();
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > now) return Promise.resolve(hit.value);
    const loading = this.#loading.get(key);
    if (loading) return loading;
    const started = load().then(
      (value) => {
        if (this.#loading.get(key) === started) {
          this.#loading.delete(key);
          if (this.keep(value)) {
            if (this.#entries.size >= this.maxEntries) this.#entries.clear();
            this.#entries.set(key, { value, expiresAt: now + this.ttlMs });
          }
        }
        return value;
      },
      (error: unknown) => {
        if (this.#loading.get(key) === started) this.#loading.delete(key);
        throw error;
      },
    );
    this.#loading.set(key, started);
    return started;
  }

  forget(key: string): void {
    this.#entries.delete(key);
    this.#loading.delete(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#loading.clear();
  }
}
