import type { Logger } from 'pino';
import type { Database } from '../../db/client.ts';
import { systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { Credential } from '../context.ts';
import { authenticate, forgetCachedKeys, requireSecretKey } from './authentication.ts';
import { CREDENTIALS_CHANNEL } from './credentials.ts';

/** What a live connection or stream authenticated with (its type lives with the service context). */
export type { Credential };

interface Watcher {
  credential: Credential;
  onEnded: (error: SandbankError) => void;
  timer: NodeJS.Timeout | null;
}

const SESSION_ENDED = 'The dashboard session has ended.';

/**
 * The merchant whose dashboard session a cookie token still opens, or null (unknown, ended or
 * expired). The dashboard module registers it (modules/reactions.ts): it depends on the merchants
 * module, not the other way round. Until then no session is live.
 */
type SessionMerchant = (db: Database['db'], token: string) => Promise<string | null>;
let sessionMerchant: SessionMerchant = async () => null;

export function registerSessionCheck(check: SessionMerchant): void {
  sessionMerchant = check;
}

/**
 * Ends whatever a credential opened once the credential stops authenticating: a key rolled (or
 * otherwise revoked), a dashboard session signed out, ended by a roll, or expired.
 *
 * One per process, shared by every transport (graphql-ws connections, the event streams of GraphQL
 * subscriptions over any transport). A change of a merchant's credentials is announced on
 * CREDENTIALS_CHANNEL in the transaction that makes it, so every instance LISTENing on the database
 * hears it after commit; each then forgets its cached keys and checks again, at once, every
 * credential it watches for that merchant (one check per distinct credential), and calls `onEnded`
 * for each that no longer authenticates. A session is also checked again when it expires.
 */
export class CredentialWatch {
  readonly #watchers = new Map<string, Set<Watcher>>();
  #epoch = 0;
  #listening: Promise<() => Promise<void>> | null = null;
  #closed = false;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
  ) {}

  /** LISTENs (once); resolves when announcements of credential changes flow. */
  async start(): Promise<void> {
    if (this.#closed) throw new Error('The credential watch is closed.');
    this.#listening ??= this.database.listen(CREDENTIALS_CHANNEL, (merchantId) => this.#onChange(merchantId));
    await this.#listening.catch((error: unknown) => {
      this.#listening = null;
      throw error;
    });
  }

  /**
   * Counts the credential changes this process has heard. Read it before checking a credential and
   * pass it in the Credential: a change heard between that check and `watch()` (which the watcher
   * would otherwise miss) makes `watch()` check the credential again at once.
   */
  get epoch(): number {
    return this.#epoch;
  }

  /**
   * Calls `onEnded` (once) when the credential no longer authenticates. Returns the function that
   * stops watching (call it when what the credential opened ends on its own).
   */
  watch(credential: Credential, onEnded: (error: SandbankError) => void): () => void {
    const watcher: Watcher = { credential, onEnded, timer: null };
    let set = this.#watchers.get(credential.merchantId);
    if (!set) {
      set = new Set();
      this.#watchers.set(credential.merchantId, set);
    }
    set.add(watcher);
    if (credential.kind === 'session') {
      const wait = Math.max(0, credential.expiresAt.getTime() - systemClock.now().getTime()) + 10;
      watcher.timer = setTimeout(() => void this.#check([watcher]), Math.min(wait, 2 ** 31 - 1));
      watcher.timer.unref();
    }
    if (credential.epoch !== this.#epoch) void this.#check([watcher]);
    return () => this.#unwatch(watcher);
  }

  /** Credentials watched now (all merchants). */
  get size(): number {
    let n = 0;
    for (const set of this.#watchers.values()) n += set.size;
    return n;
  }

  /** Stops listening; nothing watched is ended (the server is shutting down and closes it all). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const set of this.#watchers.values()) for (const watcher of set) this.#clearTimer(watcher);
    this.#watchers.clear();
    const unlisten = await this.#listening?.catch(() => null);
    await unlisten?.().catch((error: unknown) => this.logger.warn({ err: error }, 'UNLISTEN failed'));
  }

  #onChange(merchantId: string): void {
    if (this.#closed) return;
    this.#epoch++;
    forgetCachedKeys();
    const set = this.#watchers.get(merchantId);
    if (set) void this.#check([...set]);
  }

  /** Checks the watchers' credentials (each distinct one once) and ends those that fail. */
  async #check(watchers: Watcher[]): Promise<void> {
    const outcomes = new Map<string, Promise<SandbankError | null>>();
    await Promise.all(
      watchers.map(async (watcher) => {
        const id = identityOf(watcher.credential);
        let outcome = outcomes.get(id);
        if (!outcome) {
          outcome = this.#refusal(watcher.credential);
          outcomes.set(id, outcome);
        }
        try {
          const error = await outcome;
          if (error && this.#unwatch(watcher)) watcher.onEnded(error);
        } catch (error) {
          this.logger.error({ err: error }, 'could not check a live credential again');
        }
      }),
    );
  }

  /** Why the credential no longer authenticates, or null when it still does. */
  async #refusal(credential: Credential): Promise<SandbankError | null> {
    if (credential.kind === 'session') {
      return (await sessionMerchant(this.database.db, credential.token)) === credential.merchantId
        ? null
        : new SandbankError('api_key_invalid', { message: SESSION_ENDED });
    }
    try {
      const principal = await authenticate(this.database.db, credential.authorization);
      requireSecretKey(principal);
      return principal.merchant.id === credential.merchantId ? null : new SandbankError('api_key_invalid');
    } catch (error) {
      if (error instanceof SandbankError) return error;
      throw error;
    }
  }

  /** Stops watching; false when it was not watched any more. */
  #unwatch(watcher: Watcher): boolean {
    const set = this.#watchers.get(watcher.credential.merchantId);
    if (!set?.delete(watcher)) return false;
    if (set.size === 0) this.#watchers.delete(watcher.credential.merchantId);
    this.#clearTimer(watcher);
    return true;
  }

  #clearTimer(watcher: Watcher): void {
    if (watcher.timer) clearTimeout(watcher.timer);
    watcher.timer = null;
  }
}

function identityOf(credential: Credential): string {
  return credential.kind === 'key' ? `key ${credential.authorization}` : `session ${credential.token}`;
}
