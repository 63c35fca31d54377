import { and, type Column, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { type Nested, nestedRows } from '../../db/nested.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { isStateOf } from '../../kernel/state-machine.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { type EntryKind, statesOf } from './transfers.machine.ts';
import type { Rail } from './transfers.rails.ts';
import type { TransferRow } from './transfers.resource.ts';
import { loadEntry } from './transfers.rows.ts';
import { transfers } from './transfers.table.ts';

export function getTransfer(ctx: ServiceContext, id: string): Promise<TransferRow> {
  return loadEntry(dbOf(ctx), ctx.merchant.id, 'transfer', id);
}

export function getPayout(ctx: ServiceContext, id: string): Promise<TransferRow> {
  return loadEntry(dbOf(ctx), ctx.merchant.id, 'payout', id);
}

/** The merchant's transfers among `ids` (GraphQL's nodes(ids:)). */
export function transfersByIds(ctx: ServiceContext, ids: string[]): Promise<TransferRow[]> {
  return merchantRowsByIds<TransferRow>(ctx, transfers, ids, [eq(transfers.kind, 'transfer')]);
}

/** The merchant's payouts among `ids` (GraphQL's nodes(ids:)). */
export function payoutsByIds(ctx: ServiceContext, ids: string[]): Promise<TransferRow[]> {
  return merchantRowsByIds<TransferRow>(ctx, transfers, ids, [eq(transfers.kind, 'payout')]);
}

async function listEntries(
  ctx: ServiceContext,
  kind: EntryKind,
  query: ListQuery & { rail?: Rail | undefined; state?: string | undefined },
): Promise<Page<TransferRow>> {
  const state = query.state || undefined; // an empty state filters nothing
  if (state !== undefined && !isStateOf(statesOf(kind), state)) return toPage([], query.limit);
  return merchantPage(ctx, transfers, query, [
    eq(transfers.kind, kind),
    query.rail ? eq(transfers.rail, query.rail) : undefined,
    state === undefined ? undefined : eq(transfers.state, state),
  ]);
}

export const listTransfers = (
  ctx: ServiceContext,
  query: ListQuery & { rail?: Rail | undefined; state?: string | undefined },
) => listEntries(ctx, 'transfer', query);

export const listPayouts = (
  ctx: ServiceContext,
  query: ListQuery & { method?: Rail | undefined; state?: string | undefined },
) => listEntries(ctx, 'payout', { ...query, rail: query.method });

/** The ACH debits that pay a collection (its checkout's bank-account payments), newest first. */
export function debitsOfCollection(exec: Executor, merchantId: string, collectionId: string) {
  return exec
    .select()
    .from(transfers)
    .where(and(eq(transfers.collectionId, collectionId), eq(transfers.merchantId, merchantId)))
    .orderBy(desc(transfers.id));
}

/** The same debits as a relation the collection's own query reads (the outer query's columns). */
export function debitsOfCollectionRelation(collectionId: Column, merchantId: Column): Nested<TransferRow> {
  return nestedRows(transfers, {
    where: sql`${transfers.collectionId} = ${collectionId} AND ${transfers.merchantId} = ${merchantId}`,
    orderBy: sql`${transfers.id} DESC`,
  });
}
