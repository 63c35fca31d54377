import { defineModule } from '../module.ts';
import { stripePaymentIntents } from './stripe.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { stripePaymentIntent: 'pi' } as const;
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
  tables: [stripePaymentIntents],
  ids,
  reset: [
    {
      kind: 'stripe_payment_intents',
      table: 'stripe_payment_intents',
      order: 295,
      description: "The Stripe dialect's PaymentIntents (their card payments are reset as card payments).",
    },
  ],
});
