import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { type Db, queryRows, type Tx } from '../../db/client.ts';
import type { Clock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { idempotencyKeys } from './idempotency.table.ts';

/** Keys are kept 24 h of the merchant's clock time (API.md §1). */
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

class RollbackSignal extends Error {}

/** Requests of this process still running, per merchant and key (409 idempotency_key_in_use). */
const inFlight = new Set<string>();

/**
 * Runs `work` once per (merchant, key): the work, its writes and the stored outcome commit in one
 * transaction, so a crash never leaves a half-done keyed request. A second request with the same key
 * replays the stored outcome, or gets 422 when its fingerprint differs and 409 while the first runs.
 * Across instances on Postgres an advisory transaction lock plays the part of the in-process set.
 */
export async function runIdempotent(
  db: Db,
  clock: Clock,
  scope: { merchantId: string; key: string; fingerprint: string },
  work: (tx: Tx) => Promise<WorkResult>,
): Promise<{ outcome: StoredOutcome | null; replayed: boolean }> {
  // Merchant ids (mch_ + ULID) hold no ':', so the first ':' separates them from the key. Postgres
  // text cannot hold NUL, so no control character may serve as the separator.
  const slot = `${scope.merchantId}:${scope.key}`;
  if (inFlight.has(slot)) throw new SandbankError('idempotency_key_in_use');
  inFlight.add(slot);
  let rolledBack: StoredOutcome | null = null;
  try {
    return await db.transaction(async (tx) => {
      const [lock] = await queryRows<{ locked: boolean }>(
        tx,
        sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${slot}, 0)) AS locked`,
      );
      if (lock && lock.locked === false) throw new SandbankError('idempotency_key_in_use');
      const now = clock.now();
      const [existing] = await tx
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.merchantId, scope.merchantId), eq(idempotencyKeys.key, scope.key)));
      if (existing && existing.expiresAt > now) {
        if (existing.fingerprint !== scope.fingerprint) throw new SandbankError('idempotency_key_reused');
        return { outcome: { status: existing.status, body: existing.body }, replayed: true };
      }
      const result = await work(tx);
      if (!result.store || !result.outcome) {
        rolledBack = result.outcome;
        throw new RollbackSignal();
      }
      const row = {
        merchantId: scope.merchantId,
        key: scope.key,
        fingerprint: scope.fingerprint,
        status: result.outcome.status,
        body: result.outcome.body,
        createdAt: now,
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      };
      await tx
        .insert(idempotencyKeys)
        .values(row)
        .onConflictDoUpdate({ target: [idempotencyKeys.merchantId, idempotencyKeys.key], set: row });
      return { outcome: result.outcome, replayed: false };
    });
  } catch (error) {
    if (error instanceof RollbackSignal) return { outcome: rolledBack, replayed: false };
    throw error;
  } finally {
    inFlight.delete(slot);
  }
}
