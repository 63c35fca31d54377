import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, money, updatedAt } from '../../db/columns.ts';

/**
 * A PaymentIntent of the Stripe dialect (`pi_`): what Stripe keeps of a payment before and around
 * its attempts. Each confirmation is a card payment of its own (card_payments); the intent points
 * at the latest, and its status is read from that payment's state (stripe.payment-intents.ts).
 */
export const stripePaymentIntents = pgTable(
  'stripe_payment_intents',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    amount: money('amount').notNull(),
    currency: currency(),
    /** automatic (captured when authorized) or manual (captured by a call). */
    captureMethod: text('capture_method').$type<'automatic' | 'manual'>().notNull(),
    /** The Customer it is for (`cus_`), if any. */
    customerId: text('customer_id'),
    /** The payment method the next confirmation uses (a test id such as pm_card_visa). */
    paymentMethod: text('payment_method'),
    /** The card payment of the latest confirmation (the intent's latest charge). */
    cardPaymentId: text('card_payment_id'),
    /** The payment method of that confirmation. */
    attemptPaymentMethod: text('attempt_payment_method'),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    receiptEmail: text('receipt_email'),
    returnUrl: text('return_url'),
    clientSecret: text('client_secret').notNull(),
    canceledAt: at('canceled_at'),
    cancellationReason: text('cancellation_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('stripe_payment_intents_merchant_idx').on(t.merchantId, t.id)],
);

export type StripePaymentIntentRow = typeof stripePaymentIntents.$inferSelect;
