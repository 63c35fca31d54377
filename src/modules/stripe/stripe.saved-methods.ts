import { and, eq, inArray } from 'drizzle-orm';
import { newId } from '../../kernel/ids.ts';
import type { CardBrand } from '../cards/card-numbers.ts';
import { dbOf, inContextTx, type ServiceContext, type Tx } from '../context.ts';
import { pageOf } from './stripe.balance-pages.ts';
import { findCustomer, mergedMetadata } from './stripe.customers.rows.ts';
import { noSuch, StripeError } from './stripe.errors.ts';
import { stripeCustomers, stripePaymentMethods } from './stripe.objects.table.ts';
import {
  isTestPaymentMethod,
  renderPaymentMethod,
  type TestPaymentMethod,
  testPaymentMethod,
} from './stripe.payment-methods.ts';
import { defaultCvc, type NewCard, newExpiry } from './stripe.saved-methods.card.ts';

/**
 * Saved PaymentMethods (`pm_…` rows): made from card details or a test token, attached to a
 * customer or not, and charged again by later PaymentIntents. A test id (`pm_card_visa`) stands
 * beside them: every merchant has each, and attaching one saves a new payment method with its card.
 */

export type SavedMethodRow = typeof stripePaymentMethods.$inferSelect;

/** A payment method as a confirmation uses it and an answer renders it: its card, and its row if saved. */
export interface MethodView {
  card: TestPaymentMethod;
  saved: SavedMethodRow | null;
  created: Date;
}

const usableId = (id: string) => !id.includes('\u0000') && id.length <= 255;

/** The card of a saved payment method (without a CVC given, one of the right length is sent). */
export function savedCard(row: SavedMethodRow): TestPaymentMethod {
  const brand = row.brand as CardBrand;
  return {
    id: row.id,
    number: row.number,
    brand,
    last4: row.last4,
    expMonth: row.expMonth,
    expYear: row.expYear,
    cvc: row.cvc || defaultCvc(brand),
    funding: row.funding as TestPaymentMethod['funding'],
  };
}

export function savedView(row: SavedMethodRow): MethodView {
  return { card: savedCard(row), saved: row, created: row.createdAt };
}

/**
 * A payment method by id: a test id, or one of the merchant's saved ones (locked in `tx`).
 * An unknown one is `No such PaymentMethod` naming `param`.
 */
export async function findMethod(
  ctx: ServiceContext,
  id: string,
  options: { param?: string; tx?: Tx } = {},
): Promise<MethodView> {
  const param = options.param ?? 'payment_method';
  const now = ctx.clock.now();
  if (isTestPaymentMethod(id) || !id.startsWith('pm_'))
    return { card: testPaymentMethod(id, now, param), saved: null, created: now };
  const exec = options.tx ?? dbOf(ctx);
  const t = stripePaymentMethods;
  const query = exec
    .select()
    .from(t)
    .where(and(eq(t.id, id), eq(t.merchantId, ctx.merchant.id)));
  const [row] = usableId(id) ? await (options.tx ? query.for('update') : query) : [];
  if (!row) throw noSuch('PaymentMethod', id, param);
  return savedView(row);
}

/** The merchant's saved payment methods among `ids`, by id (test ids and others are left out). */
export async function methodsByIds(
  ctx: ServiceContext,
  ids: readonly (string | null)[],
): Promise<Map<string, SavedMethodRow>> {
  const wanted = [...new Set(ids)].filter(
    (id): id is string => id?.startsWith('pm_') === true && !isTestPaymentMethod(id) && usableId(id),
  );
  if (wanted.length === 0) return new Map();
  const t = stripePaymentMethods;
  const rows = await dbOf(ctx)
    .select()
    .from(t)
    .where(and(eq(t.merchantId, ctx.merchant.id), inArray(t.id, wanted)));
  return new Map(rows.map((row) => [row.id, row]));
}

/** A PaymentMethod object; `customer` the expanded customer when asked for. */
export function renderMethod(view: MethodView, customer?: Record<string, unknown>): Record<string, unknown> {
  const { saved } = view;
  return renderPaymentMethod(view.card, view.created, {
    customer: customer ?? saved?.customerId ?? null,
    billingDetails: saved?.billingDetails ?? null,
    metadata: saved?.metadata ?? {},
    cvcGiven: saved ? saved.cvc !== '' : true,
  });
}

/** `billing_details` as sent: each field a text, null to clear it; the address's fields likewise. */
export interface BillingInput {
  address?: Record<string, string | null> | undefined;
  email?: string | null | undefined;
  name?: string | null | undefined;
  phone?: string | null | undefined;
  tax_id?: string | null | undefined;
}

function mergedBilling(current: Record<string, unknown>, update: BillingInput | undefined) {
  if (!update) return current;
  const { address, ...fields } = update;
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) merged[key] = value;
  if (address !== undefined)
    merged.address = { ...((current.address ?? {}) as Record<string, unknown>), ...address };
  return merged;
}

/** Saves a card as a new payment method (attached to `customerId` when given). */
export async function insertMethod(
  ctx: ServiceContext,
  exec: Tx | undefined,
  card: NewCard | TestPaymentMethod,
  extras: { billing?: BillingInput; metadata?: Record<string, string> | null; customerId?: string | null },
): Promise<SavedMethodRow> {
  const now = ctx.clock.now();
  const row: SavedMethodRow = {
    id: newId('stripePaymentMethod'),
    merchantId: ctx.merchant.id,
    customerId: extras.customerId ?? null,
    number: card.number,
    brand: card.brand,
    last4: card.last4,
    expMonth: card.expMonth,
    expYear: card.expYear,
    cvc: 'cvcGiven' in card && !card.cvcGiven ? '' : card.cvc,
    funding: card.funding,
    billingDetails: mergedBilling({}, extras.billing),
    metadata: mergedMetadata({}, extras.metadata),
    createdAt: now,
    updatedAt: now,
  };
  await (exec ?? dbOf(ctx)).insert(stripePaymentMethods).values(row);
  return row;
}

/** POST /v1/payment_methods/:id: billing details, metadata, the card's expiry (a saved, attached one only). */
export async function updateMethod(
  ctx: ServiceContext,
  id: string,
  fields: {
    billing?: BillingInput;
    metadata?: Record<string, string> | null;
    expMonth?: string;
    expYear?: string;
  },
): Promise<MethodView> {
  return inContextTx(ctx, async (tx) => {
    const { saved } = await findMethod(ctx, id, { param: 'id', tx });
    if (!saved?.customerId)
      throw new StripeError(400, {
        type: 'invalid_request_error',
        message: 'You must save this PaymentMethod to a customer before you can update it.',
      });
    const expiry = newExpiry(saved, fields.expMonth, fields.expYear, ctx.clock.now());
    const [updated] = await tx
      .update(stripePaymentMethods)
      .set({
        ...expiry,
        billingDetails: mergedBilling(saved.billingDetails, fields.billing),
        metadata: mergedMetadata(saved.metadata, fields.metadata),
        updatedAt: ctx.clock.now(),
      })
      .where(eq(stripePaymentMethods.id, saved.id))
      .returning();
    return savedView(updated ?? saved);
  });
}

/**
 * Attaches a payment method to a customer in `tx`: a test id saves a new payment method with its
 * card, as Stripe does; a saved one already attached elsewhere is refused.
 */
export async function attachIn(
  tx: Tx,
  ctx: ServiceContext,
  id: string,
  customerId: string,
  param = 'payment_method',
): Promise<SavedMethodRow> {
  const view = await findMethod(ctx, id, { param, tx });
  if (!view.saved) return insertMethod(ctx, tx, view.card, { customerId });
  if (view.saved.customerId === customerId) return view.saved;
  if (view.saved.customerId)
    throw new StripeError(400, {
      type: 'invalid_request_error',
      code: 'payment_method_unexpected_state',
      param,
      message: 'The payment method you provided has already been attached to a customer.',
    });
  const [updated] = await tx
    .update(stripePaymentMethods)
    .set({ customerId, updatedAt: ctx.clock.now() })
    .where(eq(stripePaymentMethods.id, view.saved.id))
    .returning();
  return updated ?? view.saved;
}

/** POST /v1/payment_methods/:id/attach. */
export function attachMethod(ctx: ServiceContext, id: string, customerId: string): Promise<MethodView> {
  return inContextTx(ctx, async (tx) => {
    const customer = await findCustomer(ctx, customerId, { param: 'customer', tx });
    return savedView(await attachIn(tx, ctx, id, customer.id, 'id'));
  });
}

/** POST /v1/payment_methods/:id/detach: no longer the customer's (nor its default). */
export function detachMethod(ctx: ServiceContext, id: string): Promise<MethodView> {
  return inContextTx(ctx, async (tx) => {
    const { saved } = await findMethod(ctx, id, { param: 'id', tx });
    if (!saved?.customerId)
      throw new StripeError(400, {
        type: 'invalid_request_error',
        code: 'payment_method_unexpected_state',
        message: 'The payment method you provided is not attached to a customer so detachment is impossible.',
      });
    await tx
      .update(stripeCustomers)
      .set({ defaultPaymentMethod: null, updatedAt: ctx.clock.now() })
      .where(
        and(eq(stripeCustomers.id, saved.customerId), eq(stripeCustomers.defaultPaymentMethod, saved.id)),
      );
    const [updated] = await tx
      .update(stripePaymentMethods)
      .set({ customerId: null, updatedAt: ctx.clock.now() })
      .where(eq(stripePaymentMethods.id, saved.id))
      .returning();
    return savedView(updated ?? saved);
  });
}

/** A page of saved payment methods, newest first: a customer's, or all the merchant's. */
export async function listMethods(
  ctx: ServiceContext,
  query: {
    customerId?: string | undefined;
    limit: number;
    startingAfter?: string | undefined;
    endingBefore?: string | undefined;
  },
): Promise<{ data: MethodView[]; hasMore: boolean }> {
  if (query.customerId !== undefined) await findCustomer(ctx, query.customerId, { param: 'customer' });
  const page = await pageOf<typeof stripePaymentMethods.$inferSelect>(
    ctx,
    stripePaymentMethods,
    { limit: query.limit, after: query.startingAfter, before: query.endingBefore },
    [query.customerId !== undefined ? eq(stripePaymentMethods.customerId, query.customerId) : undefined],
  );
  return { data: page.data.map(savedView), hasMore: page.hasMore };
}
