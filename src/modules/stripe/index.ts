import { defineModule } from '../module.ts';
import {
  stripeCheckoutSessions,
  stripeCustomers,
  stripeEvents,
  stripePaymentMethods,
  stripeTestClocks,
} from './stripe.objects.table.ts';
import { stripePaymentIntents } from './stripe.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = {
  stripePaymentIntent: 'pi',
  stripeCustomer: 'cus',
  stripePaymentMethod: 'pm',
  stripeCheckoutSession: 'cs',
  stripeTestClock: 'clock',
} as const;
type StripeIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends StripeIds {}
}

/**
 * The Stripe dialect's own state: the PaymentIntents (their attempts are card payments). Its HTTP
 * surface is src/api/stripe (docs/guide/stripe.md).
 */
export default defineModule({
  name: 'stripe',
  tables: [
    stripePaymentIntents,
    stripeCustomers,
    stripePaymentMethods,
    stripeCheckoutSessions,
    stripeEvents,
    stripeTestClocks,
  ],
  ids,
  reset: [
    {
      kind: 'stripe_events',
      table: 'stripe_events',
      order: 291,
      description: "The Stripe dialect's events.",
    },
    {
      kind: 'stripe_checkout_sessions',
      table: 'stripe_checkout_sessions',
      order: 292,
      description: "The Stripe dialect's Checkout Sessions (their collections are reset as collections).",
    },
    {
      kind: 'stripe_payment_methods',
      table: 'stripe_payment_methods',
      order: 293,
      description: "The Stripe dialect's saved payment methods.",
    },
    {
      kind: 'stripe_customers',
      table: 'stripe_customers',
      order: 294,
      description: "The Stripe dialect's customers.",
    },
    {
      kind: 'stripe_test_clocks',
      table: 'stripe_test_clocks',
      order: 296,
      description: "The Stripe dialect's test clocks (the merchant's clock is reset with the clock).",
    },
    {
      kind: 'stripe_payment_intents',
      table: 'stripe_payment_intents',
      order: 295,
      description: "The Stripe dialect's PaymentIntents (their card payments are reset as card payments).",
    },
  ],
});
