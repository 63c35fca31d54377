import { and, desc, eq, inArray, lt, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable, SelectedFields } from 'drizzle-orm/pg-core';
import { type ListQuery, type Page, toPage } from '../kernel/pagination.ts';
import type { Db, Tx } from './client.ts';

/** What a page is read with: the database, the caller's transaction if any, and whose rows. */
export interface PageReader {
  db: Db;
  tx?: Tx | undefined;
  merchant: { id: string };
}

/**
 * One page of a merchant's rows of `table`, newest first (ids grow with time), after the query's
 * cursor (`starting_after`), narrowed by `filters` (an undefined filter is no filter), read in the
 * caller's transaction when there is one. `columns` picks what to read (default: the whole row).
 */
export async function merchantPage<R extends { id: string }>(
  reader: PageReader,
  table: PgTable & { id: PgColumn; merchantId: PgColumn },
  query: ListQuery,
  filters: (SQL | undefined)[] = [],
  columns?: SelectedFields,
): Promise<Page<R>> {
  const exec = reader.tx ?? reader.db;
  const select = columns ? exec.select(columns) : exec.select();
  const rows = await select
    .from(table)
    .where(
      and(
        eq(table.merchantId, reader.merchant.id),
        query.starting_after ? lt(table.id, query.starting_after) : undefined,
        ...filters,
      ),
    )
    .orderBy(desc(table.id))
    .limit(query.limit + 1);
  return toPage(rows as R[], query.limit);
}

/** The distinct ids of a list that may name a row (Postgres text cannot hold U+0000). */
export function storableIds(ids: readonly string[]): string[] {
  return [...new Set(ids)].filter((id) => !id.includes('\u0000'));
}

/**
 * A merchant's rows of `table` among `ids`, in one query (`id IN (…) AND merchant_id = …`),
 * narrowed by `filters`; in no particular order, and without the ids the merchant has no row for.
 * An id Postgres text cannot hold (U+0000) names no row. `columns` picks what to read.
 */
export async function merchantRowsByIds<R extends { id: string }>(
  reader: PageReader,
  table: PgTable & { id: PgColumn; merchantId: PgColumn },
  ids: readonly string[],
  filters: (SQL | undefined)[] = [],
  columns?: SelectedFields,
): Promise<R[]> {
  const wanted = storableIds(ids);
  if (wanted.length === 0) return [];
  const exec = reader.tx ?? reader.db;
  const select = columns ? exec.select(columns) : exec.select();
  const rows = await select
    .from(table)
    .where(and(inArray(table.id, wanted), eq(table.merchantId, reader.merchant.id), ...filters));
  return rows as R[];
}
