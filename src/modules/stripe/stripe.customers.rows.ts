import { and, eq, inArray } from 'drizzle-orm';
import { dbOf, type ServiceContext, type Tx } from '../context.ts';
import { noSuch, StripeError } from './stripe.errors.ts';
import { stripeCustomers } from './stripe.objects.table.ts';

/**
 * The Stripe dialect's Customers as rows: finding one (a deleted one is gone for every use but its
 * retrieval), and its object in Stripe's shape. stripe.customers.ts changes them.
 */

export type CustomerRow = typeof stripeCustomers.$inferSelect;

const usableId = (id: string) => !id.includes('\u0000') && id.length <= 255;

/**
 * The merchant's customer `id` (locked for update in `tx`); `No such customer` (404, naming
 * `param`) when there is none, or when it is deleted unless `deleted` allows it.
 */
export async function findCustomer(
  ctx: ServiceContext,
  id: string,
  options: { param?: string; tx?: Tx; deleted?: boolean } = {},
): Promise<CustomerRow> {
  const exec = options.tx ?? dbOf(ctx);
  const query = exec
    .select()
    .from(stripeCustomers)
    .where(and(eq(stripeCustomers.id, id), eq(stripeCustomers.merchantId, ctx.merchant.id)));
  const [row] = usableId(id) ? await (options.tx ? query.for('update') : query) : [];
  if (!row || (row.deletedAt && !options.deleted)) throw noSuch('customer', id, options.param ?? 'id');
  return row;
}

/** The merchant's customers among `ids`, deleted or not, by id. */
export async function customersByIds(
  ctx: ServiceContext,
  ids: readonly (string | null)[],
): Promise<Map<string, CustomerRow>> {
  const wanted = [...new Set(ids)].filter((id): id is string => id !== null && usableId(id));
  if (wanted.length === 0) return new Map();
  const rows = await dbOf(ctx)
    .select()
    .from(stripeCustomers)
    .where(and(eq(stripeCustomers.merchantId, ctx.merchant.id), inArray(stripeCustomers.id, wanted)));
  return new Map(rows.map((row) => [row.id, row]));
}

/** Eight characters from the customer's id, as Stripe's invoice prefixes look (`0759376C`). */
function invoicePrefix(id: string): string {
  return id
    .slice(-8)
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, '0');
}

/** A Customer in Stripe's shape; a deleted one is `{id, object, deleted: true}`. */
export function renderCustomer(
  row: CustomerRow,
  defaultPaymentMethod?: Record<string, unknown> | null,
): Record<string, unknown> {
  if (row.deletedAt) return { id: row.id, object: 'customer', deleted: true };
  return {
    id: row.id,
    object: 'customer',
    address: null,
    balance: 0,
    created: Math.floor(row.createdAt.getTime() / 1000),
    currency: null,
    customer_account: null,
    default_source: null,
    delinquent: false,
    description: row.description,
    discount: null,
    email: row.email,
    invoice_prefix: invoicePrefix(row.id),
    invoice_settings: {
      custom_fields: null,
      default_payment_method: defaultPaymentMethod ?? row.defaultPaymentMethod,
      footer: null,
      rendering_options: null,
    },
    livemode: false,
    metadata: row.metadata,
    name: row.name,
    next_invoice_sequence: 1,
    phone: row.phone,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

/**
 * Metadata after an update, as Stripe merges it (Customers, PaymentMethods, PaymentIntents alike):
 * keys given are set, a key set to "" is removed, `null` (`metadata=`) empties it; at most 50 keys.
 */
export function mergedMetadata(
  current: Record<string, string>,
  update: Record<string, string> | null | undefined,
): Record<string, string> {
  if (update === undefined) return current;
  if (update === null) return {};
  const merged = { ...current };
  for (const [key, value] of Object.entries(update)) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  if (Object.keys(merged).length > 50)
    throw new StripeError(400, {
      type: 'invalid_request_error',
      code: 'parameter_invalid_empty',
      param: 'metadata',
      message: 'You can have at most 50 metadata keys.',
    });
  return merged;
}
