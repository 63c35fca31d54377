import { eq, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/client.ts';
import { runTransaction } from '../../db/tx.ts';
import { systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { oneClockChange } from '../clock/clock.change.ts';
import { type ClockView, forget, lockClock, putClockBack, REAL_TIME, view } from '../clock/clock.service.ts';
import type { ServiceContext } from '../context.ts';
import { derived, type ResetKindDecl } from '../registry.ts';
import { flushRequestLog } from '../request-log/request-log.writer.ts';
import { webhookEndpoints } from '../webhooks/webhooks.table.ts';

/**
 * A clean slate: every object of one merchant deleted and its clock back to where a new merchant's
 * starts (real time, running), in one transaction. The merchant, its API keys, its dashboard
 * sessions and its webhook endpoints (URL, events, enabled state, secrets) are kept; an endpoint only
 * forgets its failure streak, which belonged to deliveries that are gone. No event is written: the
 * events are among what is wiped, and the answer is the record of the reset.
 */

/**
 * What a reset deletes, in the answer's order: each module's manifest declares the kinds of its
 * rows (`reset`), placed by their `order`. A new table holding a merchant's objects gets a kind in
 * its module's manifest (test/api/sandbox/sandbox-reset.test.ts fails on a table it does not know).
 */
export const resetKinds: () => readonly ResetKindDecl[] = derived((modules) => {
  const kinds = modules.flatMap((module) => module.reset ?? []).sort((a, b) => a.order - b.order);
  const names = new Set(kinds.map((kind) => kind.kind));
  const orders = new Set(kinds.map((kind) => kind.order));
  if (names.size !== kinds.length || orders.size !== kinds.length)
    throw new Error("two reset kinds share a name or an order (the manifests' `reset`)");
  return kinds;
});

/** The name of a reset kind (`card_payments`). */
export type ResetKind = string;

/** The tables a reset deletes from (every table holding a merchant's rows but those it keeps). */
export function resetTables(): readonly string[] {
  return [...new Set(resetKinds().map((kind) => kind.table))];
}

/** The tables a reset keeps: the merchant, its keys and sign-ins, its endpoints, its clock's row, its chaos setting, its snapshots. */
export const KEPT_TABLES = [
  'merchants',
  'api_keys',
  'dashboard_sessions',
  'dashboard_sign_in_links',
  'webhook_endpoints',
  'merchant_clocks',
  'chaos_settings',
  'sandbox_snapshots',
] as const;

/**
 * The rows a concurrent request could attach new rows to (a refund to its payment, an attempt to its
 * collection, a posting to the ledger, an attempt's log line to its delivery), locked before anything
 * is deleted: objects first (the kinds marked `lock`, in the answer's order) and the ledger last, in
 * account-id order (docs/internals/concurrency.md). A request that got there first finishes before the
 * deletion reads anything, so its rows are deleted with the rest; one that comes after finds its
 * object gone (404) or starts a new ledger.
 */
function lockedFirst(): string[] {
  return [...new Set(resetKinds().flatMap((kind) => (kind.lock ? [kind.table] : [])))];
}

export interface ResetResult {
  merchantId: string;
  clock: ClockView;
  deleted: Record<ResetKind, number>;
}

/** Locks the rows concurrent requests could attach new rows to (lockedFirst, then the ledger). */
export async function lockBeforeWipe(tx: Tx, merchantId: string): Promise<void> {
  for (const table of lockedFirst())
    await tx.execute(sql`SELECT 1 FROM ${sql.raw(table)} WHERE merchant_id = ${merchantId} FOR UPDATE`);
  await tx.execute(
    sql`SELECT 1 FROM ledger_accounts WHERE merchant_id = ${merchantId} ORDER BY id FOR UPDATE`,
  );
}

export async function wipe(tx: Tx, merchantId: string): Promise<Record<ResetKind, number>> {
  await lockBeforeWipe(tx, merchantId);
  // One statement, one snapshot: every kind is deleted as of the same instant, and the foreign keys
  // (refunds to payments, attempts to collections, entries to postings and accounts) are checked
  // once all of it is gone.
  const kinds = resetKinds();
  const ctes = kinds.map(({ kind, table, where }) => {
    const also = where ? sql.raw(` AND ${where}`) : sql``;
    return sql`${sql.raw(`d_${kind}`)} AS (DELETE FROM ${sql.raw(table)} WHERE merchant_id = ${merchantId}${also} RETURNING 1)`;
  });
  const counts = kinds.map(
    ({ kind }) => sql`(SELECT count(*) FROM ${sql.raw(`d_${kind}`)})::int AS ${sql.raw(`"${kind}"`)}`,
  );
  const [row] = await queryRows<Record<ResetKind, number | string>>(
    tx,
    sql`WITH ${sql.join(ctes, sql`, `)} SELECT ${sql.join(counts, sql`, `)}`,
  );
  if (!row) throw new Error('the reset statement answered no row');
  return Object.fromEntries(kinds.map(({ kind }) => [kind, Number(row[kind])])) as Record<ResetKind, number>;
}

/**
 * Resets the calling merchant's sandbox: deletes every object it has and puts its clock back to
 * real time, in one transaction that locks the clock first (so no advance or due work runs halfway
 * through it). Never touches another merchant's rows.
 */
export async function resetMerchant(ctx: ServiceContext): Promise<ResetResult> {
  const merchantId = ctx.merchant.id;
  // The requests answered before this one are written first, so that the reset deletes them too.
  await flushRequestLog(ctx.db);
  // After an advance of this process has run its window (one on another instance stops at its next
  // batch, finding its hold gone).
  const deleted = await oneClockChange(ctx, () => wipeAll(ctx, merchantId));
  forget(ctx.db, merchantId);
  return { merchantId, clock: view(REAL_TIME, systemClock), deleted };
}

function wipeAll(ctx: ServiceContext, merchantId: string): Promise<ResetResult['deleted']> {
  const realNow = systemClock.now();
  return runTransaction(ctx.db, async (tx) => {
    await lockClock(tx, merchantId, realNow);
    const counts = await wipe(tx, merchantId);
    await putClockBack(tx, merchantId, REAL_TIME, realNow);
    await tx
      .update(webhookEndpoints)
      .set({ failingSince: null })
      .where(eq(webhookEndpoints.merchantId, merchantId));
    return counts;
  });
}

/**
 * A reset is never stored for replay: it deletes the merchant's idempotency records (its own would
 * be the only one left), and sending it again simply resets again.
 */
export function refuseIdempotentReset(idempotencyKey: string | null | undefined): void {
  if (idempotencyKey)
    throw new SandbankError('idempotency_key_invalid', {
      message:
        "A reset takes no Idempotency-Key (it deletes the merchant's idempotency records; sending it again resets again).",
    });
}
