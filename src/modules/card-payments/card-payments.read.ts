import { and, type Column, eq, sql } from 'drizzle-orm';
import { type Nested, nestedRows } from '../../db/nested.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import type { CardPaymentRow, RefundRow, TokenRow } from './card-payments.resource.ts';
import { type CardPaymentDetail, noSuchPayment, paymentOf, refundsOf } from './card-payments.rows.ts';
import { cardPayments, cardRefunds, cardTokens } from './card-payments.table.ts';

/** A payment's refunds, oldest first, as a relation the payment's own query reads. */
let refunds: Nested<RefundRow> | undefined;
function refundsRelation(): Nested<RefundRow> {
  refunds ??= nestedRows(cardRefunds, {
    where: sql`${cardRefunds.cardPaymentId} = ${cardPayments.id}`,
    orderBy: sql`${cardRefunds.id} ASC`,
  });
  return refunds;
}

/** A payment with its refunds, in one statement. */
export async function getCardPayment(ctx: ServiceContext, id: string): Promise<CardPaymentDetail> {
  const relation = refundsRelation();
  const [found] = await dbOf(ctx)
    .select({ row: cardPayments, refunds: relation.sql })
    .from(cardPayments)
    .where(paymentOf(ctx, id));
  if (!found) throw noSuchPayment(id);
  return { ...found.row, refunds: relation.decode(found.refunds) };
}

/** A refund and its payment as they are now (an idempotent replay of a refund). */
export async function getRefund(
  ctx: ServiceContext,
  id: string,
): Promise<{ refund: RefundRow; payment: CardPaymentDetail }> {
  const exec = dbOf(ctx);
  const [refund] = id.includes('\u0000')
    ? []
    : await exec
        .select()
        .from(cardRefunds)
        .where(and(eq(cardRefunds.id, id), eq(cardRefunds.merchantId, ctx.merchant.id)));
  if (!refund) throw new SandbankError('resource_not_found', { message: 'No such refund.' });
  return { refund, payment: await getCardPayment(ctx, refund.cardPaymentId) };
}

/**
 * A collection's card payments (its checkout's card attempts), newest first, each with its refunds
 * (oldest first), as a relation the collection's own query reads (`collectionId`, `merchantId`: the
 * outer query's columns).
 */
export function cardPaymentsOfCollection(
  collectionId: Column,
  merchantId: Column,
): Nested<CardPaymentDetail> {
  return nestedRows(cardPayments, {
    where: sql`${cardPayments.collectionId} = ${collectionId} AND ${cardPayments.merchantId} = ${merchantId}`,
    orderBy: sql`${cardPayments.id} DESC`,
    children: { refunds: refundsRelation() },
  });
}

export async function listCardPayments(
  ctx: ServiceContext,
  query: ListQuery & { collection?: string | undefined },
): Promise<Page<CardPaymentDetail>> {
  const exec = dbOf(ctx);
  const page = await merchantPage<CardPaymentRow>(ctx, cardPayments, query, [
    query.collection ? eq(cardPayments.collectionId, query.collection) : undefined,
  ]);
  const refunds = await refundsOf(
    exec,
    page.data.map((row) => row.id),
  );
  return { ...page, data: page.data.map((row) => ({ ...row, refunds: refunds.get(row.id) ?? [] })) };
}

/** The merchant's card payments among `ids`, with their refunds (GraphQL's nodes(ids:)). */
export async function cardPaymentsByIds(ctx: ServiceContext, ids: string[]): Promise<CardPaymentDetail[]> {
  const rows = await merchantRowsByIds<CardPaymentRow>(ctx, cardPayments, ids);
  const refunds = await refundsOf(
    dbOf(ctx),
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({ ...row, refunds: refunds.get(row.id) ?? [] }));
}

/** The merchant's refunds among `ids` (GraphQL's nodes(ids:)). */
export function refundsByIds(ctx: ServiceContext, ids: string[]): Promise<RefundRow[]> {
  return merchantRowsByIds<RefundRow>(ctx, cardRefunds, ids);
}

/** The merchant's card tokens among `ids` (GraphQL's nodes(ids:)); their numbers are never rendered. */
export function tokensByIds(ctx: ServiceContext, ids: string[]): Promise<TokenRow[]> {
  return merchantRowsByIds<TokenRow>(ctx, cardTokens, ids);
}
