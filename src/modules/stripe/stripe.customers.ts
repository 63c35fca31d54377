import { and, eq, isNull } from 'drizzle-orm';
import { newId } from '../../kernel/ids.ts';
import { inContextTx, type ServiceContext, type Tx } from '../context.ts';
import { pageOf } from './stripe.balance-pages.ts';
import { type CustomerRow, findCustomer, mergedMetadata, renderCustomer } from './stripe.customers.rows.ts';
import { invalidParam, StripeError } from './stripe.errors.ts';
import { stripeCustomers, stripePaymentMethods } from './stripe.objects.table.ts';
import { attachIn, findMethod, renderMethod } from './stripe.saved-methods.ts';

/**
 * Customers of the Stripe dialect (`cus_`): create (with a payment method attached at once),
 * retrieve, update, delete, list. Their saved payment methods are stripe.saved-methods.ts's; search
 * is stripe.customers.search.ts's.
 */

export interface CustomerFields {
  email?: string | null | undefined;
  name?: string | null | undefined;
  phone?: string | null | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  /** invoice_settings[default_payment_method]: one of its attached payment methods ("" clears it). */
  defaultPaymentMethod?: string | null | undefined;
}

const DEFAULT_PARAM = 'invoice_settings[default_payment_method]';

/** Stripe refuses an email that is not one: `Invalid email address: …` (email_invalid). */
function checkEmail(email: string | null | undefined): void {
  if (email && !/^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(email))
    throw invalidParam('email', `Invalid email address: ${email}`, 'email_invalid');
}

/** The default payment method to keep: it must be attached to the customer. */
async function defaultMethod(tx: Tx, ctx: ServiceContext, customerId: string, id: string): Promise<string> {
  const { saved } = await findMethod(ctx, id, { param: DEFAULT_PARAM, tx });
  if (saved?.customerId !== customerId)
    throw new StripeError(400, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      param: DEFAULT_PARAM,
      message: `The customer does not have a payment method with the ID ${id}. The payment method must be attached to the customer.`,
    });
  return saved.id;
}

/** POST /v1/customers; `paymentMethod` is attached to it (a test id saves a new one, as Stripe does). */
export async function createCustomer(
  ctx: ServiceContext,
  fields: CustomerFields & { paymentMethod?: string | undefined },
): Promise<CustomerRow> {
  checkEmail(fields.email);
  const now = ctx.clock.now();
  const row: CustomerRow = {
    id: newId('stripeCustomer'),
    merchantId: ctx.merchant.id,
    email: fields.email ?? null,
    name: fields.name ?? null,
    phone: fields.phone ?? null,
    description: fields.description ?? null,
    metadata: mergedMetadata({}, fields.metadata),
    defaultPaymentMethod: null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  return inContextTx(ctx, async (tx) => {
    await tx.insert(stripeCustomers).values(row);
    const attached = fields.paymentMethod
      ? await attachIn(tx, ctx, fields.paymentMethod, row.id, 'payment_method')
      : null;
    const wanted = fields.defaultPaymentMethod;
    if (!wanted) return row;
    // The method attached in the same call is its default under the id it was sent as, too.
    const id = attached && wanted === fields.paymentMethod ? attached.id : wanted;
    const defaultPaymentMethod = await defaultMethod(tx, ctx, row.id, id);
    await tx.update(stripeCustomers).set({ defaultPaymentMethod }).where(eq(stripeCustomers.id, row.id));
    return { ...row, defaultPaymentMethod };
  });
}

export function retrieveCustomer(ctx: ServiceContext, id: string): Promise<CustomerRow> {
  return findCustomer(ctx, id, { deleted: true });
}

/** POST /v1/customers/:id: the fields given (a text "" clears it), metadata merged as Stripe merges it. */
export function updateCustomer(
  ctx: ServiceContext,
  id: string,
  fields: CustomerFields,
): Promise<CustomerRow> {
  checkEmail(fields.email);
  return inContextTx(ctx, async (tx) => {
    const row = await findCustomer(ctx, id, { tx });
    const wanted = fields.defaultPaymentMethod;
    const defaultPaymentMethod =
      wanted === undefined
        ? undefined
        : wanted === null
          ? null
          : await defaultMethod(tx, ctx, row.id, wanted);
    const changes = {
      ...(fields.email !== undefined ? { email: fields.email } : {}),
      ...(fields.name !== undefined ? { name: fields.name } : {}),
      ...(fields.phone !== undefined ? { phone: fields.phone } : {}),
      ...(fields.description !== undefined ? { description: fields.description } : {}),
      ...(defaultPaymentMethod !== undefined ? { defaultPaymentMethod } : {}),
      metadata: mergedMetadata(row.metadata, fields.metadata),
      updatedAt: ctx.clock.now(),
    };
    const [updated] = await tx
      .update(stripeCustomers)
      .set(changes)
      .where(eq(stripeCustomers.id, row.id))
      .returning();
    return updated ?? { ...row, ...changes };
  });
}

/** DELETE /v1/customers/:id: deleted for good; its payment methods are detached from it. */
export function deleteCustomer(ctx: ServiceContext, id: string): Promise<CustomerRow> {
  return inContextTx(ctx, async (tx) => {
    const row = await findCustomer(ctx, id, { tx });
    const now = ctx.clock.now();
    await tx
      .update(stripePaymentMethods)
      .set({ customerId: null, updatedAt: now })
      .where(
        and(
          eq(stripePaymentMethods.merchantId, ctx.merchant.id),
          eq(stripePaymentMethods.customerId, row.id),
        ),
      );
    const [deleted] = await tx
      .update(stripeCustomers)
      .set({ deletedAt: now, defaultPaymentMethod: null, updatedAt: now })
      .where(eq(stripeCustomers.id, row.id))
      .returning();
    return deleted ?? { ...row, deletedAt: now };
  });
}

/** A page of the merchant's customers (deleted ones left out), newest first; `email` an exact match. */
export async function listCustomers(
  ctx: ServiceContext,
  query: {
    email?: string | undefined;
    limit: number;
    startingAfter?: string | undefined;
    endingBefore?: string | undefined;
  },
): Promise<{ data: CustomerRow[]; hasMore: boolean }> {
  return pageOf<CustomerRow>(
    ctx,
    stripeCustomers,
    { limit: query.limit, after: query.startingAfter, before: query.endingBefore },
    [
      isNull(stripeCustomers.deletedAt),
      query.email !== undefined ? eq(stripeCustomers.email, query.email) : undefined,
    ],
  );
}

/** A customer's object, its default payment method expanded when `expandDefault` says so. */
export async function customerObject(
  ctx: ServiceContext,
  row: CustomerRow,
  expandDefault: boolean,
): Promise<Record<string, unknown>> {
  if (!expandDefault || !row.defaultPaymentMethod || row.deletedAt) return renderCustomer(row);
  // A default whose payment method is gone (its table reset without the customers') is shown as null.
  const method = await findMethod(ctx, row.defaultPaymentMethod).catch((error: unknown) => {
    if (error instanceof StripeError && error.status === 404) return null;
    throw error;
  });
  return renderCustomer(row, method ? renderMethod(method) : null);
}
