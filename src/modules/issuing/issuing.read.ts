import { and, desc, eq, lt } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import type { VirtualCardState } from './issuing.machine.ts';
import type { IssuingAuthorizationRow, VirtualCardRow } from './issuing.resource.ts';
import { loadAuthorization, loadCard } from './issuing.rows.ts';
import { issuingAuthorizations, virtualCards } from './issuing.table.ts';

export function getVirtualCard(ctx: ServiceContext, id: string): Promise<VirtualCardRow> {
  return loadCard(dbOf(ctx), ctx.merchant.id, id);
}

/**
 * What a stored (idempotent) create response leaves out and a replay reads back from the card:
 * the number and CVC, kept only on the card itself.
 */
export const virtualCardSecrets = {
  fields: ['number', 'cvc'],
  async load(tx: Tx, merchantId: string, id: string) {
    const [row] = await tx
      .select({ number: virtualCards.number, cvc: virtualCards.cvc })
      .from(virtualCards)
      .where(and(eq(virtualCards.id, id), eq(virtualCards.merchantId, merchantId)));
    return row ?? null;
  },
} as const;

export async function listVirtualCards(
  ctx: ServiceContext,
  query: ListQuery & { state?: VirtualCardState | undefined },
): Promise<Page<VirtualCardRow>> {
  return merchantPage(ctx, virtualCards, query, [
    query.state ? eq(virtualCards.state, query.state) : undefined,
  ]);
}

export function getAuthorization(ctx: ServiceContext, id: string): Promise<IssuingAuthorizationRow> {
  return loadAuthorization(dbOf(ctx), ctx.merchant.id, id);
}

export async function listAuthorizations(
  ctx: ServiceContext,
  cardId: string,
  query: ListQuery,
): Promise<Page<IssuingAuthorizationRow>> {
  const card = await getVirtualCard(ctx, cardId);
  const conditions = [eq(issuingAuthorizations.cardId, card.id)];
  if (query.starting_after) conditions.push(lt(issuingAuthorizations.id, query.starting_after));
  const rows = await dbOf(ctx)
    .select()
    .from(issuingAuthorizations)
    .where(and(...conditions))
    .orderBy(desc(issuingAuthorizations.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit);
}

/** The merchant's virtual cards among `ids` (GraphQL's nodes(ids:)). */
export function virtualCardsByIds(ctx: ServiceContext, ids: string[]): Promise<VirtualCardRow[]> {
  return merchantRowsByIds<VirtualCardRow>(ctx, virtualCards, ids);
}

/** The merchant's issuing authorizations among `ids` (GraphQL's nodes(ids:)). */
export function authorizationsByIds(ctx: ServiceContext, ids: string[]): Promise<IssuingAuthorizationRow[]> {
  return merchantRowsByIds<IssuingAuthorizationRow>(ctx, issuingAuthorizations, ids);
}
