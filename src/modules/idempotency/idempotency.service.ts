import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import { type Db, queryRows, type Tx } from '../../db/client.ts';
import { purgePerMerchant } from '../../db/per-merchant.ts';
import { retryInSavepoints } from '../../db/tx.ts';
import type { Clock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { idempotencyKeys } from './idempotency.table.ts';

/** Keys are kept 24 h of the merchant's clock time. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export interface StoredOutcome {
  status: number;
  body: string;
}

export interface WorkResult {
  outcome: StoredOutcome | null;
  /** False when the operation failed before writing anything: its transaction rolls back, nothing is kept. */
  store: boolean;
}

/** Reads an Idempotency-Key header value: 1-255 printable characters, optionally in double quotes. */
export function parseIdempotencyKey(raw: string): string {
  const unquoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  if (!KEY_PATTERN.test(unquoted))
    throw new SandbankError('idempotency_key_invalid', { param: 'Idempotency-Key' });
  return unquoted;
}

export function fingerprintOf(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

/**
 * Fields of a kind of object that are secrets (a virtual card's number and CVC): a stored response
 * keeps them as null, and a replay reads them back from where they live (`load`, in the replay's
 * transaction), so the idempotency table never holds them.
 */
export interface StoredSecrets {
  fields: readonly string[];
  load(tx: Tx, merchantId: string, id: string): Promise<Record<string, string> | null>;
}

const secretsByObject = new Map<string, StoredSecrets>();

/** A module declares the secrets of its objects' responses (wired once in src/modules/reactions.ts). */
export function registerStoredSecrets(object: string, secrets: StoredSecrets): void {
  secretsByObject.set(object, secrets);
}

type JsonObject = Record<string, unknown>;

/**
 * The registered secrets of a response body that is one object (`{"object": "virtual_card", …}`),
 * parsed losslessly so that a rewritten body keeps its numbers exactly as written (`25.50`).
 */
function secretsOf(body: string): { parsed: JsonObject; fields: string[]; secrets: StoredSecrets } | null {
  if (![...secretsByObject.keys()].some((kind) => body.includes(`"object":"${kind}"`))) return null;
  const parsed = parseLossless(body) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const secrets = secretsByObject.get(String((parsed as JsonObject).object));
  const fields = secrets?.fields.filter((field) => field in parsed) ?? [];
  return secrets && fields.length > 0 ? { parsed: parsed as JsonObject, fields, secrets } : null;
}

/** The body to store: its secret fields nulled. */
function withoutSecrets(body: string): string {
  const found = secretsOf(body);
  if (!found) return body;
  for (const field of found.fields) found.parsed[field] = null;
  return stringifyLossless(found.parsed) ?? body;
}

/** The body a replay answers: the stored one with its secrets read back in place. */
async function withSecrets(tx: Tx, merchantId: string, body: string): Promise<string> {
  const found = secretsOf(body);
  if (!found || typeof found.parsed.id !== 'string') return body;
  const values = await found.secrets.load(tx, merchantId, found.parsed.id);
  if (!values) return body;
  for (const field of found.fields) if (field in values) found.parsed[field] = values[field];
  return stringifyLossless(found.parsed) ?? body;
}

/**
 * Retention: deletes up to `limit` keys that have expired by their merchant's clock (24 h after
 * the request; an expired key is ignored anyway). Returns how many.
 */
export function purgeExpiredKeys(db: Db, realNow: Date, limit: number): Promise<number> {
  return purgePerMerchant(db, realNow, limit, {
    table: 'idempotency_keys',
    keys: ['merchant_id', 'key'],
    where: (now) => sql`t.expires_at <= ${now}`,
  });
}

class RollbackSignal extends Error {}

/** Requests of this process still running, per merchant and key (409 idempotency_key_in_use). */
const inFlight = new Set<string>();

/**
 * Runs `work` once per (merchant, key): the work, its writes and the stored outcome commit in one
 * transaction, so a crash never leaves a half-done keyed request. A second request with the same key
 * replays the stored outcome, or gets 422 when its fingerprint differs and 409 while the first runs.
 * Across instances on Postgres an advisory transaction lock plays the part of the in-process set.
 *
 * With `ownTransactions` (an operation that commits in several transactions of its own: a clock
 * advance, batch by batch), `work` runs outside any transaction (its `tx` is undefined) and its
 * outcome is stored after it, in a short transaction of its own: a crash in between keeps what the
 * work committed and stores no answer, so the same key runs the operation again.
 */
export async function runIdempotent(
  db: Db,
  clock: Clock,
  scope: { merchantId: string; key: string; fingerprint: string },
  work: (tx: Tx | undefined) => Promise<WorkResult>,
  options: { ownTransactions?: boolean } = {},
): Promise<{ outcome: StoredOutcome | null; replayed: boolean }> {
  // Merchant ids (mch_ + ULID) hold no ':', so the first ':' separates them from the key. Postgres
  // text cannot hold NUL, so no control character may serve as the separator.
  const slot = `${scope.merchantId}:${scope.key}`;
  if (inFlight.has(slot)) throw new SandbankError('idempotency_key_in_use');
  inFlight.add(slot);
  let rolledBack: StoredOutcome | null = null;
  try {
    if (options.ownTransactions) return await runThenStore(db, clock, scope, work);
    // Not rerun whole on a deadlock: `work` is the rest of the request and runs once. The services
    // it calls run theirs in savepoints of this transaction, and those are rerun (db/tx.ts).
    return await db.transaction(async (tx) => {
      retryInSavepoints(tx);
      const [lock] = await queryRows<{ locked: boolean }>(
        tx,
        sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${slot}, 0)) AS locked`,
      );
      if (lock && lock.locked === false) throw new SandbankError('idempotency_key_in_use');
      const stored = await storedOutcome(tx, scope, clock.now());
      if (stored) return { outcome: stored, replayed: true };
      const result = await work(tx);
      if (!result.store || !result.outcome) {
        rolledBack = result.outcome;
        throw new RollbackSignal();
      }
      await store(tx, scope, result.outcome, clock.now());
      return { outcome: result.outcome, replayed: false };
    });
  } catch (error) {
    if (error instanceof RollbackSignal) return { outcome: rolledBack, replayed: false };
    throw error;
  } finally {
    inFlight.delete(slot);
  }
}

type Scope = { merchantId: string; key: string; fingerprint: string };

/** The outcome stored under the key and not yet expired (422 when it was another request's). */
async function storedOutcome(tx: Tx, scope: Scope, now: Date): Promise<StoredOutcome | null> {
  const [existing] = await tx
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.merchantId, scope.merchantId), eq(idempotencyKeys.key, scope.key)));
  if (!existing || existing.expiresAt <= now) return null;
  if (existing.fingerprint !== scope.fingerprint) throw new SandbankError('idempotency_key_reused');
  return { status: existing.status, body: await withSecrets(tx, scope.merchantId, existing.body) };
}

async function store(tx: Tx, scope: Scope, outcome: StoredOutcome, now: Date): Promise<void> {
  const row = {
    merchantId: scope.merchantId,
    key: scope.key,
    fingerprint: scope.fingerprint,
    status: outcome.status,
    body: withoutSecrets(outcome.body),
    createdAt: now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
  };
  await tx
    .insert(idempotencyKeys)
    .values(row)
    .onConflictDoUpdate({ target: [idempotencyKeys.merchantId, idempotencyKeys.key], set: row });
}

/** runIdempotent's way for an operation that commits in transactions of its own. */
async function runThenStore(
  db: Db,
  clock: Clock,
  scope: Scope,
  work: (tx: Tx | undefined) => Promise<WorkResult>,
): Promise<{ outcome: StoredOutcome | null; replayed: boolean }> {
  const stored = await db.transaction((tx) => storedOutcome(tx, scope, clock.now()));
  if (stored) return { outcome: stored, replayed: true };
  const result = await work(undefined);
  if (!result.store || !result.outcome) return { outcome: result.outcome, replayed: false };
  const outcome = result.outcome;
  await db.transaction((tx) => store(tx, scope, outcome, clock.now()));
  return { outcome, replayed: false };
}
