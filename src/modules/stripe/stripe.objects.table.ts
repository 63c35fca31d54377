import { boolean, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, money, updatedAt } from '../../db/columns.ts';

/**
 * The Stripe dialect's objects that Sandbank has no native counterpart for: customers and their
 * saved payment methods, Checkout Sessions (each over a collection), Stripe-shaped events (each a
 * snapshot of an object when a native event happened) and test clocks (the merchant's clock).
 */

/** A Customer (`cus_`). */
export const stripeCustomers = pgTable(
  'stripe_customers',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    email: text('email'),
    name: text('name'),
    phone: text('phone'),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    /** invoice_settings.default_payment_method. */
    defaultPaymentMethod: text('default_payment_method'),
    /** Set when deleted: a deleted customer answers `{deleted: true}` and lists no more. */
    deletedAt: at('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('stripe_customers_merchant_idx').on(t.merchantId, t.id),
    index('stripe_customers_email_idx').on(t.merchantId, t.email),
  ],
);

/** A PaymentMethod made with card details (`pm_`), attached to a customer or not. */
export const stripePaymentMethods = pgTable(
  'stripe_payment_methods',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    customerId: text('customer_id'),
    /** The card number, kept so that the card can be charged again (test cards: a sandbox). */
    number: text('number').notNull(),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    cvc: text('cvc').notNull(),
    funding: text('funding').notNull(),
    billingDetails: jsonb('billing_details').$type<Record<string, unknown>>().notNull(),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('stripe_payment_methods_merchant_idx').on(t.merchantId, t.id),
    index('stripe_payment_methods_customer_idx').on(t.customerId, t.id),
  ],
);

/** A Checkout Session in payment mode (`cs_`): a collection and its hosted page, with Stripe's fields. */
export const stripeCheckoutSessions = pgTable(
  'stripe_checkout_sessions',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    collectionId: text('collection_id').notNull(),
    mode: text('mode').notNull(),
    amountTotal: money('amount_total').notNull(),
    currency: currency(),
    /** The line items as sent (price_data, quantity), each with its amounts. */
    lineItems: jsonb('line_items').$type<Record<string, unknown>[]>().notNull(),
    successUrl: text('success_url'),
    cancelUrl: text('cancel_url'),
    customerId: text('customer_id'),
    customerEmail: text('customer_email'),
    clientReferenceId: text('client_reference_id'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    /** open, complete or expired (Stripe's `status`). */
    status: text('status').notNull(),
    /** The PaymentIntent its payment made (set when it is paid). */
    paymentIntentId: text('payment_intent_id'),
    expiresAt: at('expires_at').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('stripe_checkout_sessions_merchant_idx').on(t.merchantId, t.id),
    index('stripe_checkout_sessions_collection_idx').on(t.collectionId),
  ],
);

/** An event in Stripe's shape (`evt_…`): its type and the object as it was, written when it happened. */
export const stripeEvents = pgTable(
  'stripe_events',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    type: text('type').notNull(),
    /** The native event it was made from. */
    sourceEventId: text('source_event_id'),
    /** `data.object` (and `data.previous_attributes` where known). */
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    apiVersion: text('api_version'),
    createdAt: createdAt(),
  },
  (t) => [
    index('stripe_events_merchant_idx').on(t.merchantId, t.id),
    index('stripe_events_type_idx').on(t.merchantId, t.type, t.id),
  ],
);

/** A test clock (`clock_`): a name over the merchant's own clock, which it moves. */
export const stripeTestClocks = pgTable(
  'stripe_test_clocks',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    name: text('name'),
    /** Deleted clocks answer `{deleted: true}`; the merchant's clock stays where it is. */
    deleted: boolean('deleted').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('stripe_test_clocks_merchant_idx').on(t.merchantId, t.id)],
);
