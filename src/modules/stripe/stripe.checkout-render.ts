import type { CollectionRow } from '../collections/collections.resource.ts';
import { checkoutUrl } from '../collections/collections.resource.ts';
import type { StoredLineItem } from './stripe.checkout-items.ts';
import type { stripeCheckoutSessions } from './stripe.objects.table.ts';
import type { RenderScope } from './stripe.render.ts';

/**
 * Checkout Sessions in Stripe's shape, from the session's row and its collection as they stand:
 * pure, so that an event (`checkout.session.completed`) renders one outside a request. The
 * session's status and payment status are read from the collection, never stored apart from it.
 */

export type CheckoutSessionRow = typeof stripeCheckoutSessions.$inferSelect;

/** What a session's collection says of it: the collection's state, its expiry and its checkout link. */
export type SessionCollection = Pick<
  CollectionRow,
  'id' | 'state' | 'expiresAt' | 'checkoutSecret' | 'email'
>;

export type CheckoutStatus = 'open' | 'complete' | 'expired';

/** The expansions a Checkout Session takes. */
export const CHECKOUT_EXPANSIONS: readonly string[] = ['line_items', 'payment_intent'];

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/**
 * open while the collection is pending; complete once it was paid (a card payment captured, or a
 * bank payment submitted, settled or later returned); expired once it expired or was canceled
 * (POST …/expire cancels it).
 */
export function checkoutStatus(collection: Pick<CollectionRow, 'state'>): CheckoutStatus {
  switch (collection.state) {
    case 'pending':
      return 'open';
    case 'expired':
    case 'canceled':
      return 'expired';
    default:
      return 'complete';
  }
}

/** paid once the collection succeeded (by card at once; by bank account once its debit settled). */
export function paymentStatus(collection: Pick<CollectionRow, 'state'>): 'paid' | 'unpaid' {
  return collection.state === 'succeeded' ? 'paid' : 'unpaid';
}

export function lineItemsOf(row: Pick<CheckoutSessionRow, 'lineItems'>): StoredLineItem[] {
  return row.lineItems as unknown as StoredLineItem[];
}

/** A line item: Stripe's `item`, with its one-time price (made from price_data) inline. */
export function renderLineItem(
  item: StoredLineItem,
  row: Pick<CheckoutSessionRow, 'createdAt' | 'currency'>,
) {
  const total = Number(item.amount_total);
  return {
    id: item.id,
    object: 'item',
    amount_discount: 0,
    amount_subtotal: total,
    amount_tax: 0,
    amount_total: total,
    currency: row.currency,
    description: item.name,
    price: {
      id: item.price,
      object: 'price',
      active: false,
      billing_scheme: 'per_unit',
      created: seconds(row.createdAt),
      currency: row.currency,
      custom_unit_amount: null,
      livemode: false,
      lookup_key: null,
      metadata: {},
      nickname: null,
      product: item.product,
      recurring: null,
      tax_behavior: 'unspecified',
      tiers_mode: null,
      transform_quantity: null,
      type: 'one_time',
      unit_amount: Number(item.unit_amount),
      unit_amount_decimal: item.unit_amount,
    },
    quantity: Number(item.quantity),
  };
}

/** A page of a session's line items (the default first ten when `line_items` is expanded). */
export function lineItemsList(row: CheckoutSessionRow, items: readonly StoredLineItem[], hasMore: boolean) {
  return {
    object: 'list',
    data: items.map((item) => renderLineItem(item, row)),
    has_more: hasMore,
    url: `/v1/checkout/sessions/${row.id}/line_items`,
  };
}

/** Expansions the caller rendered (the PaymentIntent, rendered by its own renderer). */
export interface CheckoutExpanded {
  paymentIntent?: unknown;
}

export function renderCheckoutSession(
  row: CheckoutSessionRow,
  collection: SessionCollection,
  scope: RenderScope,
  expanded: CheckoutExpanded = {},
) {
  const status = checkoutStatus(collection);
  const amount = Number(row.amountTotal);
  const items = lineItemsOf(row);
  const intent = status === 'complete' ? row.paymentIntentId : null;
  return {
    id: row.id,
    object: 'checkout.session',
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: null,
    amount_subtotal: amount,
    amount_total: amount,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: row.cancelUrl,
    client_reference_id: row.clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: seconds(row.createdAt),
    currency: row.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: null,
      terms_of_service_acceptance: null,
    },
    customer: row.customerId,
    customer_creation: row.customerId ? null : 'if_required',
    customer_details:
      status === 'complete'
        ? { address: null, email: collection.email, name: null, phone: null, tax_exempt: 'none', tax_ids: [] }
        : null,
    customer_email: row.customerEmail,
    discounts: [],
    expires_at: seconds(collection.expiresAt),
    invoice: null,
    invoice_creation: null,
    ...(scope.expand.has('line_items')
      ? { line_items: lineItemsList(row, items.slice(0, 10), items.length > 10) }
      : {}),
    livemode: false,
    locale: null,
    metadata: row.metadata,
    mode: row.mode,
    payment_intent:
      intent && scope.expand.has('payment_intent') ? (expanded.paymentIntent ?? intent) : intent,
    payment_link: null,
    payment_method_collection: 'if_required',
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: ['card'],
    payment_status: paymentStatus(collection),
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status,
    submit_type: null,
    subscription: null,
    success_url: row.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url: status === 'open' ? checkoutUrl(scope.publicUrl, collection) : null,
  };
}
