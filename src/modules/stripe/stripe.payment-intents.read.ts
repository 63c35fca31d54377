import { and, desc, eq, gt, inArray, lt } from 'drizzle-orm';
import { getCardPayment } from '../card-payments/card-payments.read.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import { dbOf, type ServiceContext, type Tx } from '../context.ts';
import { noSuch } from './stripe.errors.ts';
import { type StripePaymentIntentRow, stripePaymentIntents } from './stripe.table.ts';

/**
 * Reading the Stripe dialect's PaymentIntents: an intent with its latest attempt, its status as
 * Stripe says it, pages of them (stripe.payment-intents.ts changes them).
 */

export type IntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'requires_capture'
  | 'succeeded'
  | 'canceled';

/** An intent with the card payment of its latest confirmation: what its object is rendered from. */
export interface IntentView {
  row: StripePaymentIntentRow;
  payment: CardPaymentDetail | null;
}

export interface IntentFields {
  amount?: bigint | undefined;
  currency?: string | undefined;
  captureMethod?: 'automatic' | 'manual' | undefined;
  paymentMethod?: string | undefined;
  description?: string | null | undefined;
  /** Merged into the intent's metadata; a key set to "" is removed, `null` empties it. */
  metadata?: Record<string, string> | null | undefined;
  receiptEmail?: string | null | undefined;
  returnUrl?: string | undefined;
}

/** The payment method the intent's next confirmation would use (null after a declined attempt with it). */
export function pendingPaymentMethod({ row, payment }: IntentView): string | null {
  if (payment?.state === 'declined' && row.paymentMethod === row.attemptPaymentMethod) return null;
  return row.paymentMethod;
}

export function intentStatus(view: IntentView): IntentStatus {
  const { row, payment } = view;
  if (row.canceledAt) return 'canceled';
  switch (payment?.state) {
    case 'requires_action':
      return 'requires_action';
    case 'authorized':
      return 'requires_capture';
    case 'captured':
    case 'partially_refunded':
    case 'refunded':
      return 'succeeded';
    case 'voided':
    case 'expired':
      return 'canceled';
    default:
      return pendingPaymentMethod(view) ? 'requires_confirmation' : 'requires_payment_method';
  }
}

export const paymentOf = async (ctx: ServiceContext, row: StripePaymentIntentRow) =>
  row.cardPaymentId ? getCardPayment(ctx, row.cardPaymentId) : null;

export async function load(ctx: ServiceContext, id: string, tx?: Tx): Promise<StripePaymentIntentRow> {
  const exec = tx ?? dbOf(ctx);
  const query = exec
    .select()
    .from(stripePaymentIntents)
    .where(and(eq(stripePaymentIntents.id, id), eq(stripePaymentIntents.merchantId, ctx.merchant.id)));
  const [row] = id.includes('\u0000') ? [] : await (tx ? query.for('update') : query);
  if (!row) throw noSuch('payment_intent', id, 'intent');
  return row;
}

export async function retrieveIntent(ctx: ServiceContext, id: string): Promise<IntentView> {
  const row = await load(ctx, id);
  return { row, payment: await paymentOf(ctx, row) };
}

/** A page of the merchant's intents, newest first (`starting_after`/`ending_before`: ids). */
export async function listIntents(
  ctx: ServiceContext,
  query: { limit: number; startingAfter?: string | undefined; endingBefore?: string | undefined },
): Promise<{ data: IntentView[]; hasMore: boolean }> {
  const t = stripePaymentIntents;
  const before = query.endingBefore !== undefined;
  const rows = await dbOf(ctx)
    .select()
    .from(t)
    .where(
      and(
        eq(t.merchantId, ctx.merchant.id),
        query.startingAfter ? lt(t.id, query.startingAfter) : undefined,
        query.endingBefore ? gt(t.id, query.endingBefore) : undefined,
      ),
    )
    .orderBy(before ? t.id : desc(t.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  if (before) page.reverse();
  const data = await Promise.all(page.map(async (row) => ({ row, payment: await paymentOf(ctx, row) })));
  return { data, hasMore: rows.length > query.limit };
}

/** A card payment's id as the dialect's charge id (`cp_X` ↔ `ch_X`). */
export function chargeId(cardPaymentId: string): string {
  return `ch_${cardPaymentId.slice(cardPaymentId.indexOf('_') + 1)}`;
}

/** The merchant's intents among `ids` (the intents of a page of charges). */
export async function intentRows(
  ctx: ServiceContext,
  ids: readonly string[],
): Promise<StripePaymentIntentRow[]> {
  const wanted = [...new Set(ids)].filter((id) => !id.includes('\u0000'));
  if (wanted.length === 0) return [];
  return dbOf(ctx)
    .select()
    .from(stripePaymentIntents)
    .where(
      and(eq(stripePaymentIntents.merchantId, ctx.merchant.id), inArray(stripePaymentIntents.id, wanted)),
    );
}
