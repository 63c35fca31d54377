import { and, asc, desc, eq, gt, lt, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable, SelectedFields } from 'drizzle-orm/pg-core';
import { dbOf, type ServiceContext } from '../context.ts';
import { noSuch } from './stripe.errors.ts';

/**
 * Stripe's pages over a merchant's rows (balance transactions, payouts, disputes, test clocks):
 * newest first, `starting_after` an id to go on after, `ending_before` an id to stop before (the
 * page just newer than it, still newest first). Ids grow with time, so they order the rows.
 */

export interface StripePage {
  limit: number;
  startingAfter?: string | undefined;
  endingBefore?: string | undefined;
}

export interface PageOf<R> {
  data: R[];
  hasMore: boolean;
}

/**
 * A cursor as the table's id: `prefix` is the dialect's (`txn_`), `native` the row's (`btx_`, the
 * same when the dialect shows native ids). A cursor of another prefix names no such object.
 */
export function cursorOf(
  page: StripePage,
  object: string,
  prefix: string,
  native = prefix,
): { after?: string | undefined; before?: string | undefined } {
  const toNative = (id: string | undefined, param: string) => {
    if (id === undefined) return undefined;
    if (!id.startsWith(prefix)) throw noSuch(object, id, param);
    return native + id.slice(prefix.length);
  };
  return {
    after: toNative(page.startingAfter, 'starting_after'),
    before: toNative(page.endingBefore, 'ending_before'),
  };
}

/** One page of the merchant's rows of `table` narrowed by `filters`, with `columns` (default: the row). */
export async function pageOf<R>(
  ctx: ServiceContext,
  table: PgTable & { id: PgColumn; merchantId: PgColumn },
  page: { limit: number; after?: string | undefined; before?: string | undefined },
  filters: (SQL | undefined)[] = [],
  columns?: SelectedFields,
): Promise<PageOf<R>> {
  const backwards = page.before !== undefined;
  const exec = dbOf(ctx);
  const select = columns ? exec.select(columns) : exec.select();
  const rows = (await select
    .from(table)
    .where(
      and(
        eq(table.merchantId, ctx.merchant.id),
        page.after !== undefined ? lt(table.id, page.after) : undefined,
        page.before !== undefined ? gt(table.id, page.before) : undefined,
        ...filters,
      ),
    )
    .orderBy(backwards ? asc(table.id) : desc(table.id))
    .limit(page.limit + 1)) as R[];
  const data = rows.slice(0, page.limit);
  if (backwards) data.reverse();
  return { data, hasMore: rows.length > page.limit };
}
