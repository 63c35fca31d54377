import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../db/client.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { CURRENCY_CODES, type CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { MERCHANT_ACCOUNTS } from './ledger.accounts.ts';
import type { PostingRow } from './ledger.rows.ts';
import { ledgerAccounts, ledgerEntries, ledgerPostings } from './ledger.table.ts';

export interface Balance {
  currency: CurrencyCode;
  available: bigint;
  pending: bigint;
  reserved: bigint;
}

/** One row per currency the merchant has touched; USD always. */
export async function getBalances(ctx: ServiceContext): Promise<Balance[]> {
  const rows = await dbOf(ctx)
    .select({ currency: ledgerAccounts.currency, kind: ledgerAccounts.kind, balance: ledgerAccounts.balance })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.merchantId, ctx.merchant.id),
        inArray(ledgerAccounts.kind, [...MERCHANT_ACCOUNTS]),
      ),
    );
  const byCurrency = new Map<string, Balance>([
    ['USD', { currency: 'USD', available: 0n, pending: 0n, reserved: 0n }],
  ]);
  for (const row of rows) {
    const currency = row.currency as CurrencyCode;
    const balance = byCurrency.get(currency) ?? { currency, available: 0n, pending: 0n, reserved: 0n };
    balance[row.kind as (typeof MERCHANT_ACCOUNTS)[number]] = row.balance;
    byCurrency.set(currency, balance);
  }
  return CURRENCY_CODES.flatMap((code) => {
    const balance = byCurrency.get(code);
    return balance ? [balance] : [];
  });
}

/**
 * The merchant's postings, newest first; optionally in one currency, or only those whose source is
 * one of `source_ids` (a transaction's postings: GET /v1/balance_transactions?source_id=…).
 */
/** The most source objects one balance-transactions query names. */
const MAX_SOURCE_IDS = 50;

export async function listBalanceTransactions(
  ctx: ServiceContext,
  query: ListQuery & { currency?: CurrencyCode | undefined; source_ids?: readonly string[] | undefined },
): Promise<Page<PostingRow>> {
  if (query.source_ids && (query.source_ids.length === 0 || query.source_ids.length > MAX_SOURCE_IDS))
    throw new SandbankError('parameter_invalid', {
      param: 'source_id',
      message: `Name 1 to ${MAX_SOURCE_IDS} source objects.`,
    });
  return merchantPage(ctx, ledgerPostings, query, [
    query.currency ? eq(ledgerPostings.currency, query.currency) : undefined,
    query.source_ids ? inArray(ledgerPostings.sourceId, [...query.source_ids]) : undefined,
  ]);
}

/** One of the merchant's postings by its id (a replayed top-up answers with it). */
export async function getBalanceTransaction(ctx: ServiceContext, id: string): Promise<PostingRow> {
  const [row] = await dbOf(ctx)
    .select()
    .from(ledgerPostings)
    .where(and(eq(ledgerPostings.id, id), eq(ledgerPostings.merchantId, ctx.merchant.id)));
  if (!row) throw new SandbankError('resource_not_found');
  return row;
}

/** The merchant's balance transactions among `ids` (GraphQL's nodes(ids:)). */
export function balanceTransactionsByIds(ctx: ServiceContext, ids: string[]): Promise<PostingRow[]> {
  return merchantRowsByIds<PostingRow>(ctx, ledgerPostings, ids);
}

export interface LedgerCheck {
  /** Per currency, the sum of every entry: zero when every posting balanced. */
  sums: Record<string, bigint>;
  /** Accounts whose maintained balance differs from the sum of their entries. */
  mismatches: { accountId: string; kind: string; currency: string; stored: bigint; recomputed: bigint }[];
}

/** Recomputes a merchant's balances from its entries and compares them with the maintained ones. */
export async function verifyLedger(exec: Executor, merchantId: string): Promise<LedgerCheck> {
  const accounts = await exec
    .select({
      accountId: ledgerAccounts.id,
      kind: ledgerAccounts.kind,
      currency: ledgerAccounts.currency,
      stored: ledgerAccounts.balance,
      // A join, not a correlated subquery: in a single-table select Drizzle leaves column names
      // unqualified, and inside the subquery "id" would be the entry's id, not the account's.
      recomputed: sql<string>`COALESCE(SUM(${ledgerEntries.amount}), 0)::text`,
    })
    .from(ledgerAccounts)
    .leftJoin(ledgerEntries, eq(ledgerEntries.accountId, ledgerAccounts.id))
    .where(eq(ledgerAccounts.merchantId, merchantId))
    .groupBy(ledgerAccounts.id);
  const sums: Record<string, bigint> = {};
  const mismatches: LedgerCheck['mismatches'] = [];
  for (const account of accounts) {
    const recomputed = BigInt(account.recomputed);
    sums[account.currency] = (sums[account.currency] ?? 0n) + recomputed;
    if (recomputed !== account.stored) mismatches.push({ ...account, recomputed });
  }
  return { sums, mismatches };
}

export interface BalancePoint {
  at: Date;
  available: bigint;
  pending: bigint;
  reserved: bigint;
}

/**
 * The merchant's balances in one currency after each of its last `limit` postings, oldest first:
 * running sums of the postings' effects (what GET /v1/balance_transactions lists), for a chart of
 * balance over clock time.
 */
export async function balanceHistory(
  ctx: ServiceContext,
  currency: CurrencyCode,
  limit = 200,
): Promise<BalancePoint[]> {
  const rows = await queryRows<{ at: string | Date; available: string; pending: string; reserved: string }>(
    dbOf(ctx),
    sql`
    SELECT at, available, pending, reserved FROM (
      SELECT id, created_at AS at,
        (SUM(available_delta) OVER w)::text AS available,
        (SUM(pending_delta) OVER w)::text AS pending,
        (SUM(reserved_delta) OVER w)::text AS reserved
      FROM ledger_postings
      WHERE merchant_id = ${ctx.merchant.id} AND currency = ${currency}
      WINDOW w AS (ORDER BY created_at, id)
      ORDER BY created_at DESC, id DESC
      LIMIT ${limit}
    ) recent ORDER BY at, id`,
  );
  return rows.map((r) => ({
    at: new Date(r.at),
    available: BigInt(r.available),
    pending: BigInt(r.pending),
    reserved: BigInt(r.reserved),
  }));
}
