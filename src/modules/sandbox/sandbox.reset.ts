import { eq, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/client.ts';
import { runTransaction } from '../../db/tx.ts';
import { systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { oneClockChange } from '../clock/clock.change.ts';
import { type ClockView, forget, lockClock, REAL_TIME, saveClock, view } from '../clock/clock.service.ts';
import { merchantClocks } from '../clock/clock.table.ts';
import type { ServiceContext } from '../context.ts';
import { webhookEndpoints } from '../webhooks/webhooks.table.ts';

/**
 * A clean slate: every object of one merchant deleted and its clock back to where a new merchant's
 * starts (real time, running), in one transaction. The merchant, its API keys, its dashboard
 * sessions and its webhook endpoints (URL, events, enabled state, secrets) are kept; an endpoint only
 * forgets its failure streak, which belonged to deliveries that are gone. No event is written: the
 * events are among what is wiped, and the answer is the record of the reset.
 */

/**
 * What a reset deletes, in the answer's order: the kind's name and the merchant's rows of it. A
 * new table holding a merchant's objects gets a line here (test/sandbox-reset.test.ts fails on a
 * table it does not know).
 */
export const RESET_KINDS = [
  ['collections', 'collections'],
  ['payment_attempts', 'payment_attempts'],
  ['card_payments', 'card_payments'],
  ['refunds', 'card_refunds'],
  ['disputes', 'disputes'],
  ['tokens', 'card_tokens'],
  ['transfers', 'transfers', "kind = 'transfer'"],
  ['payouts', 'transfers', "kind = 'payout'"],
  ['inbound_transfers', 'inbound_transfers'],
  ['counterparties', 'counterparties'],
  ['virtual_cards', 'virtual_cards'],
  ['issuing_authorizations', 'issuing_authorizations'],
  ['fx_quotes', 'fx_quotes'],
  ['fx_conversions', 'fx_conversions'],
  ['fx_settlements', 'fx_settlements'],
  ['ledger_accounts', 'ledger_accounts'],
  ['ledger_postings', 'ledger_postings'],
  ['ledger_entries', 'ledger_entries'],
  ['events', 'events'],
  ['webhook_deliveries', 'webhook_deliveries'],
  ['webhook_attempts', 'webhook_attempts'],
  ['scheduled_jobs', 'scheduled_jobs'],
  ['idempotency_keys', 'idempotency_keys'],
] as const satisfies readonly (readonly [string, string, string?])[];

export type ResetKind = (typeof RESET_KINDS)[number][0];

/** The tables a reset deletes from (every table holding a merchant's rows but those it keeps). */
export const RESET_TABLES: readonly string[] = [...new Set(RESET_KINDS.map(([, table]) => table))];

/** The tables a reset keeps: the merchant, its keys and sign-ins, its endpoints, its clock's row, its chaos setting. */
export const KEPT_TABLES = [
  'merchants',
  'api_keys',
  'dashboard_sessions',
  'dashboard_sign_in_links',
  'webhook_endpoints',
  'merchant_clocks',
  'chaos_settings',
] as const;

/**
 * The rows a concurrent request could attach new rows to (a refund to its payment, an attempt to its
 * collection, a posting to the ledger, an attempt's log line to its delivery), locked before anything
 * is deleted: objects first and the ledger last, in account-id order (docs/concurrency.md). A request
 * that got there first finishes before the deletion reads anything, so its rows are deleted with
 * the rest; one that comes after finds its object gone (404) or starts a new ledger.
 */
const LOCKED_FIRST = [
  'collections',
  'card_payments',
  'card_tokens',
  'transfers',
  'inbound_transfers',
  'counterparties',
  'virtual_cards',
  'issuing_authorizations',
  'fx_quotes',
  'fx_conversions',
  'fx_settlements',
  'webhook_deliveries',
] as const;

export interface ResetResult {
  merchantId: string;
  clock: ClockView;
  deleted: Record<ResetKind, number>;
}

async function wipe(tx: Tx, merchantId: string): Promise<Record<ResetKind, number>> {
  for (const table of LOCKED_FIRST)
    await tx.execute(sql`SELECT 1 FROM ${sql.raw(table)} WHERE merchant_id = ${merchantId} FOR UPDATE`);
  await tx.execute(
    sql`SELECT 1 FROM ledger_accounts WHERE merchant_id = ${merchantId} ORDER BY id FOR UPDATE`,
  );
  // One statement, one snapshot: every kind is deleted as of the same instant, and the foreign keys
  // (refunds to payments, attempts to collections, entries to postings and accounts) are checked
  // once all of it is gone.
  const ctes = RESET_KINDS.map((entry) => {
    const [kind, table] = entry;
    const also = entry[2] ? sql.raw(` AND ${entry[2]}`) : sql``;
    return sql`${sql.raw(`d_${kind}`)} AS (DELETE FROM ${sql.raw(table)} WHERE merchant_id = ${merchantId}${also} RETURNING 1)`;
  });
  const counts = RESET_KINDS.map(
    ([kind]) => sql`(SELECT count(*) FROM ${sql.raw(`d_${kind}`)})::int AS ${sql.raw(`"${kind}"`)}`,
  );
  const [row] = await queryRows<Record<ResetKind, number | string>>(
    tx,
    sql`WITH ${sql.join(ctes, sql`, `)} SELECT ${sql.join(counts, sql`, `)}`,
  );
  if (!row) throw new Error('the reset statement answered no row');
  return Object.fromEntries(RESET_KINDS.map(([kind]) => [kind, Number(row[kind])])) as Record<
    ResetKind,
    number
  >;
}

/**
 * Resets the calling merchant's sandbox: deletes every object it has and puts its clock back to
 * real time, in one transaction that locks the clock first (so no advance or due work runs halfway
 * through it). Never touches another merchant's rows.
 */
export async function resetMerchant(ctx: ServiceContext): Promise<ResetResult> {
  const merchantId = ctx.merchant.id;
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
    await saveClock(tx, merchantId, REAL_TIME, realNow);
    await tx
      .update(merchantClocks)
      .set({ advancingId: null, advancingUntil: null, advancingTo: null })
      .where(eq(merchantClocks.merchantId, merchantId));
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
