import type { Context } from 'hono';
import { StripeError } from '../../modules/stripe/stripe.errors.ts';

/**
 * What the dialect answers for a path it has no route for: Stripe's resources it does not support
 * yet are a 501 that names them (never a silent success); any other path is Stripe's 404.
 */

/** Stripe's top-level resources (the first segment after /v1), beyond those the dialect serves. */
const STRIPE_RESOURCES = new Set([
  'account',
  'account_links',
  'accounts',
  'apple_pay',
  'application_fees',
  'balance',
  'balance_transactions',
  'billing',
  'billing_portal',
  'checkout',
  'climate',
  'country_specs',
  'coupons',
  'credit_notes',
  'customer_sessions',
  'customers',
  'disputes',
  'ephemeral_keys',
  'events',
  'files',
  'file_links',
  'financial_connections',
  'identity',
  'invoiceitems',
  'invoices',
  'issuing',
  'mandates',
  'payment_links',
  'payment_method_configurations',
  'payment_method_domains',
  'payouts',
  'plans',
  'prices',
  'products',
  'promotion_codes',
  'quotes',
  'radar',
  'reporting',
  'reviews',
  'setup_attempts',
  'setup_intents',
  'shipping_rates',
  'sigma',
  'sources',
  'subscription_items',
  'subscription_schedules',
  'subscriptions',
  'tax',
  'tax_codes',
  'tax_ids',
  'tax_rates',
  'terminal',
  'test_helpers',
  'tokens',
  'topups',
  'transfers',
  'treasury',
  'webhook_endpoints',
]);

export function unsupported(c: Context): never {
  const path = c.req.path.replace(/^\/stripe(?=\/)/, '');
  const resource = /^\/v1\/([a-z_]+)/.exec(path)?.[1];
  if (
    resource &&
    (STRIPE_RESOURCES.has(resource) ||
      /^\/v1\/(payment_intents|charges|refunds|payment_methods)\b/.test(path))
  )
    throw new StripeError(501, {
      type: 'invalid_request_error',
      code: 'sandbank_unsupported',
      message: `Sandbank's Stripe dialect does not support ${c.req.method} ${path} yet. Its guide (docs/guide/stripe.md) lists what it supports; the native API (/v1 on the main port) may do it.`,
    });
  throw new StripeError(404, {
    type: 'invalid_request_error',
    message: `Unrecognized request URL (${c.req.method}: ${path}). Please see https://stripe.com/docs or Sandbank's Stripe guide (docs/guide/stripe.md).`,
  });
}
