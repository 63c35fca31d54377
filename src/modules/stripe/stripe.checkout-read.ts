import { and, desc, eq, gt, lt } from 'drizzle-orm';
import { SandbankError } from '../../kernel/errors.ts';
import { type CollectionDetail, getCollection } from '../collections/collections.service.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { syncSession } from './stripe.checkout-intent.ts';
import type { StoredLineItem } from './stripe.checkout-items.ts';
import { type CheckoutSessionRow, lineItemsOf } from './stripe.checkout-render.ts';
import { noSuch } from './stripe.errors.ts';
import { stripeCheckoutSessions } from './stripe.objects.table.ts';

/**
 * Reading the dialect's Checkout Sessions: each with its collection as it now stands (expired
 * first when due), the session kept in step with it (stripe.checkout-intent.ts).
 */

/** A session and its collection: what its object is rendered from (renderCheckoutSession). */
export interface CheckoutSessionView {
  row: CheckoutSessionRow;
  collection: CollectionDetail;
}

export interface PageQuery {
  limit: number;
  startingAfter?: string | undefined;
  endingBefore?: string | undefined;
}

const storable = (id: string) => !id.includes('\u0000');

async function viewOf(ctx: ServiceContext, row: CheckoutSessionRow): Promise<CheckoutSessionView> {
  const collection = await getCollection(ctx, row.collectionId);
  return { row: await syncSession(ctx, row, collection), collection };
}

export async function loadSession(ctx: ServiceContext, id: string): Promise<CheckoutSessionRow> {
  const t = stripeCheckoutSessions;
  const [row] = storable(id)
    ? await dbOf(ctx)
        .select()
        .from(t)
        .where(and(eq(t.id, id), eq(t.merchantId, ctx.merchant.id)))
    : [];
  if (!row) throw noSuch('checkout.session', id, 'session');
  return row;
}

export async function retrieveCheckoutSession(ctx: ServiceContext, id: string): Promise<CheckoutSessionView> {
  return viewOf(ctx, await loadSession(ctx, id));
}

/**
 * The sessions over a collection (one, for a collection a session made; none for any other), each
 * in step with it: what an event of the collection (`checkout.session.completed`) renders.
 */
export async function checkoutSessionsOfCollection(
  ctx: ServiceContext,
  collectionId: string,
): Promise<CheckoutSessionView[]> {
  const t = stripeCheckoutSessions;
  const rows = storable(collectionId)
    ? await dbOf(ctx)
        .select()
        .from(t)
        .where(and(eq(t.collectionId, collectionId), eq(t.merchantId, ctx.merchant.id)))
        .orderBy(t.id)
    : [];
  const views: CheckoutSessionView[] = [];
  for (const row of rows) views.push(await viewOf(ctx, row));
  return views;
}

/**
 * Where the hosted checkout of a session's collection sends a payer who turns back: the session's
 * cancel_url (null for a collection no session made, or a session without one).
 */
export async function checkoutCancelUrl(ctx: ServiceContext, collectionId: string): Promise<string | null> {
  const t = stripeCheckoutSessions;
  if (!storable(collectionId)) return null;
  const [row] = await dbOf(ctx)
    .select({ cancelUrl: t.cancelUrl })
    .from(t)
    .where(and(eq(t.collectionId, collectionId), eq(t.merchantId, ctx.merchant.id)))
    .limit(1);
  return row?.cancelUrl ?? null;
}

/** The collection named by a PaymentIntent's id (a session's collection has it as its reference). */
async function collectionOfIntent(ctx: ServiceContext, intentId: string): Promise<string | null> {
  if (!intentId.startsWith('pi_') || !storable(intentId)) return null;
  try {
    return (await getCollection(ctx, intentId)).id;
  } catch (error) {
    if (error instanceof SandbankError && error.code === 'resource_not_found') return null;
    throw error;
  }
}

/**
 * A page of the merchant's sessions, newest first; `paymentIntent` keeps the one whose payment made
 * that intent, `customer` those of a customer.
 */
export async function listCheckoutSessions(
  ctx: ServiceContext,
  query: PageQuery & { paymentIntent?: string | undefined; customer?: string | undefined },
): Promise<{ data: CheckoutSessionView[]; hasMore: boolean }> {
  const t = stripeCheckoutSessions;
  const collectionId =
    query.paymentIntent === undefined ? undefined : await collectionOfIntent(ctx, query.paymentIntent);
  if (collectionId === null) return { data: [], hasMore: false };
  const before = query.endingBefore !== undefined;
  const cursor = (id: string | undefined) => (id !== undefined && storable(id) ? id : undefined);
  const rows = await dbOf(ctx)
    .select()
    .from(t)
    .where(
      and(
        eq(t.merchantId, ctx.merchant.id),
        collectionId ? eq(t.collectionId, collectionId) : undefined,
        query.customer !== undefined
          ? eq(t.customerId, storable(query.customer) ? query.customer : '')
          : undefined,
        cursor(query.startingAfter) ? lt(t.id, query.startingAfter as string) : undefined,
        cursor(query.endingBefore) ? gt(t.id, query.endingBefore as string) : undefined,
      ),
    )
    .orderBy(before ? t.id : desc(t.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  if (before) page.reverse();
  const data: CheckoutSessionView[] = [];
  for (const row of page) data.push(await viewOf(ctx, row));
  return { data, hasMore: rows.length > query.limit };
}

/** A page of a session's line items, in their order (`starting_after`/`ending_before`: item ids). */
export async function checkoutLineItems(
  ctx: ServiceContext,
  id: string,
  query: PageQuery,
): Promise<{ row: CheckoutSessionRow; items: StoredLineItem[]; hasMore: boolean }> {
  const row = await loadSession(ctx, id);
  const all = lineItemsOf(row);
  const at = (itemId: string, param: string) => {
    const index = all.findIndex((item) => item.id === itemId);
    if (index === -1) throw noSuch('line item', itemId, param);
    return index;
  };
  if (query.endingBefore !== undefined) {
    const end = at(query.endingBefore, 'ending_before');
    const start = Math.max(0, end - query.limit);
    return { row, items: all.slice(start, end), hasMore: start > 0 };
  }
  const start = query.startingAfter === undefined ? 0 : at(query.startingAfter, 'starting_after') + 1;
  return { row, items: all.slice(start, start + query.limit), hasMore: start + query.limit < all.length };
}
