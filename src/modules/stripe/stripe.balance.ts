import { and, eq, getTableColumns, inArray, ne, sql } from 'drizzle-orm';
import { CURRENCY_CODES, type CurrencyCode } from '../../kernel/currency.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { fundsAvailableAt } from '../ledger/ledger.funds.ts';
import { getBalances } from '../ledger/ledger.queries.ts';
import type { PostingRow } from '../ledger/ledger.rows.ts';
import { ledgerPostings } from '../ledger/ledger.table.ts';
import { cursorOf, type PageOf, pageOf, type StripePage } from './stripe.balance-pages.ts';
import {
  type BalanceTransactionView,
  renderBalance,
  renderBalanceTransaction,
  stripeTypeSql,
} from './stripe.balance-render.ts';
import { invalidParam, noSuch } from './stripe.errors.ts';

/**
 * GET /v1/balance and /v1/balance_transactions of the Stripe dialect, read from the native ledger
 * (its balances and postings; stripe.balance-render.ts says how they map).
 */

export async function stripeBalance(ctx: ServiceContext) {
  return renderBalance(await getBalances(ctx));
}

/** The columns a balance transaction is read with: the posting, and its Stripe type. */
const COLUMNS = { ...getTableColumns(ledgerPostings), stripeType: sql<string>`${stripeTypeSql()}` };
type Read = PostingRow & { stripeType: string };

/** Postings that change available + pending: the ones Stripe has a balance transaction for. */
const shown = ne(sql`${ledgerPostings.availableDelta} + ${ledgerPostings.pendingDelta}`, 0);

/** Each credit into pending with when it became available (a later funds_available posting of its source). */
async function views(ctx: ServiceContext, rows: readonly Read[]): Promise<BalanceTransactionView[]> {
  const credits = rows.filter((row) => row.pendingDelta > 0n).map((row) => row.sourceId);
  const released = new Map<string, Date>();
  if (credits.length > 0) {
    const found = await dbOf(ctx)
      .select({ sourceId: ledgerPostings.sourceId, at: ledgerPostings.createdAt })
      .from(ledgerPostings)
      .where(
        and(
          eq(ledgerPostings.merchantId, ctx.merchant.id),
          eq(ledgerPostings.type, 'funds_available'),
          inArray(ledgerPostings.sourceId, [...new Set(credits)]),
        ),
      );
    for (const { sourceId, at } of found) {
      const earlier = released.get(sourceId);
      if (!earlier || at < earlier) released.set(sourceId, at);
    }
  }
  return rows.map(({ stripeType, ...row }) => ({
    row,
    type: stripeType,
    releasedAt: row.pendingDelta > 0n ? (released.get(row.sourceId) ?? null) : null,
  }));
}

export const renderTransaction = (view: BalanceTransactionView) =>
  renderBalanceTransaction(view, (paidAt) => fundsAvailableAt(paidAt));

export interface BalanceTransactionFilters {
  type?: string | undefined;
  /** A charge (`ch_`), refund, payout, dispute or other source object's id. */
  source?: string | undefined;
  currency?: string | undefined;
}

/** The native id of a source as Stripe names it: a charge is its card payment. */
const nativeSource = (id: string) => (id.startsWith('ch_') ? `cp_${id.slice(3)}` : id);

function currencyOf(currency: string | undefined): CurrencyCode | undefined {
  if (currency === undefined) return undefined;
  const code = currency.toUpperCase();
  if (!(CURRENCY_CODES as readonly string[]).includes(code))
    throw invalidParam(
      'currency',
      `Sandbank holds balances in ${CURRENCY_CODES.map((c) => c.toLowerCase()).join(', ')}; '${currency}' is none of them.`,
    );
  return code as CurrencyCode;
}

export async function listStripeBalanceTransactions(
  ctx: ServiceContext,
  page: StripePage,
  filters: BalanceTransactionFilters,
): Promise<PageOf<ReturnType<typeof renderTransaction>>> {
  const currency = currencyOf(filters.currency);
  const cursor = cursorOf(page, 'balance_transaction', 'txn_', 'btx_');
  const found = await pageOf<Read>(
    ctx,
    ledgerPostings,
    { limit: page.limit, ...cursor },
    [
      shown,
      filters.type !== undefined ? eq(sql`${stripeTypeSql()}`, filters.type) : undefined,
      filters.source !== undefined ? eq(ledgerPostings.sourceId, nativeSource(filters.source)) : undefined,
      currency ? eq(ledgerPostings.currency, currency) : undefined,
    ],
    COLUMNS,
  );
  return { data: (await views(ctx, found.data)).map(renderTransaction), hasMore: found.hasMore };
}

export async function retrieveStripeBalanceTransaction(ctx: ServiceContext, id: string) {
  // Postgres text cannot hold U+0000: such an id names nothing.
  const postingId = id.startsWith('txn_') && !id.includes('\u0000') ? `btx_${id.slice(4)}` : null;
  const rows = postingId
    ? ((await dbOf(ctx)
        .select(COLUMNS)
        .from(ledgerPostings)
        .where(
          and(eq(ledgerPostings.merchantId, ctx.merchant.id), eq(ledgerPostings.id, postingId), shown),
        )) as Read[])
    : [];
  if (rows.length === 0) throw noSuch('balance_transaction', id);
  const [view] = await views(ctx, rows);
  return renderTransaction(view as BalanceTransactionView);
}

/**
 * The balance transactions of some source objects (a dispute's, a payout's), oldest first;
 * `types` narrows them to these native posting types.
 */
export async function balanceTransactionsOf(
  ctx: ServiceContext,
  sourceIds: readonly string[],
  types?: readonly string[],
): Promise<BalanceTransactionView[]> {
  if (sourceIds.length === 0) return [];
  const rows = (await dbOf(ctx)
    .select(COLUMNS)
    .from(ledgerPostings)
    .where(
      and(
        eq(ledgerPostings.merchantId, ctx.merchant.id),
        inArray(ledgerPostings.sourceId, [...new Set(sourceIds)]),
        types ? inArray(ledgerPostings.type, [...types]) : undefined,
        shown,
      ),
    )
    .orderBy(ledgerPostings.id)) as Read[];
  return views(ctx, rows);
}
