import { and, eq, inArray } from 'drizzle-orm';
import { getCardPayment } from '../card-payments/card-payments.read.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import { dbOf, type ServiceContext, type Tx } from '../context.ts';
import { pageOf } from './stripe.balance-pages.ts';
import { type CustomerRow, customersByIds } from './stripe.customers.rows.ts';
import { noSuch } from './stripe.errors.ts';
import { methodsByIds, type SavedMethodRow } from './stripe.saved-methods.ts';
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
  /** Its saved payment methods (the pending one, the latest attempt's), by id (`relateIntents`). */
  methods?: ReadonlyMap<string, SavedMethodRow>;
  /** Its customer, when an answer expands it. */
  customer?: CustomerRow | null;
  /** setup_future_usage, as the call that confirmed it gave it (it is not kept on the intent). */
  setupFutureUsage?: 'on_session' | 'off_session' | null;
  /** An off-session confirmation whose card asked for 3-D Secure: declined, authentication_required. */
  authenticationRequired?: boolean;
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
  /** The Customer it is for (`cus_`): it must exist; its saved payment methods are then usable. */
  customer?: string | undefined;
  /** After a successful confirmation, its payment method is attached to its customer. */
  setupFutureUsage?: 'on_session' | 'off_session' | undefined;
  /** The customer is not there: a card that asks for 3-D Secure declines (authentication_required). */
  offSession?: boolean | undefined;
}

/** What a confirmation takes (create with confirm=true, or /confirm). */
export type ConfirmFields = Pick<
  IntentFields,
  'paymentMethod' | 'returnUrl' | 'captureMethod' | 'setupFutureUsage' | 'offSession'
>;

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

/**
 * The intents with what their objects render beside their rows: their saved payment methods, and
 * their customers when `customer` says so (an expansion).
 */
export async function relateIntents(
  ctx: ServiceContext,
  views: readonly IntentView[],
  options: { customer?: boolean } = {},
): Promise<IntentView[]> {
  const methods = await methodsByIds(
    ctx,
    views.flatMap(({ row }) => [row.paymentMethod, row.attemptPaymentMethod]),
  );
  const customers = options.customer
    ? await customersByIds(
        ctx,
        views.map(({ row }) => row.customerId),
      )
    : null;
  return views.map((view) => ({
    ...view,
    methods,
    ...(customers ? { customer: customers.get(view.row.customerId ?? '') ?? null } : {}),
  }));
}

export async function retrieveIntent(
  ctx: ServiceContext,
  id: string,
  options: { customer?: boolean } = {},
): Promise<IntentView> {
  const row = await load(ctx, id);
  const [view] = await relateIntents(ctx, [{ row, payment: await paymentOf(ctx, row) }], options);
  return view ?? { row, payment: null };
}

/** A page of the merchant's intents, newest first (`starting_after`/`ending_before`: ids). */
export async function listIntents(
  ctx: ServiceContext,
  query: {
    limit: number;
    startingAfter?: string | undefined;
    endingBefore?: string | undefined;
    customer?: string | undefined;
  },
  options: { customer?: boolean } = {},
): Promise<{ data: IntentView[]; hasMore: boolean }> {
  const page = await pageOf<StripePaymentIntentRow>(
    ctx,
    stripePaymentIntents,
    { limit: query.limit, after: query.startingAfter, before: query.endingBefore },
    [query.customer !== undefined ? eq(stripePaymentIntents.customerId, query.customer) : undefined],
  );
  const data = await Promise.all(page.data.map(async (row) => ({ row, payment: await paymentOf(ctx, row) })));
  return { data: await relateIntents(ctx, data, options), hasMore: page.hasMore };
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
