import type { Context, Hono } from 'hono';
import { createCheckoutSession, expireCheckoutSession } from '../../modules/stripe/stripe.checkout.ts';
import { parseLineItems } from '../../modules/stripe/stripe.checkout-items.ts';
import {
  type CheckoutSessionView,
  checkoutLineItems,
  listCheckoutSessions,
  retrieveCheckoutSession,
} from '../../modules/stripe/stripe.checkout-read.ts';
import {
  CHECKOUT_EXPANSIONS,
  lineItemsList,
  renderCheckoutSession,
} from '../../modules/stripe/stripe.checkout-render.ts';
import { invalidParam } from '../../modules/stripe/stripe.errors.ts';
import { retrieveIntent } from '../../modules/stripe/stripe.payment-intents.read.ts';
import { renderIntent } from '../../modules/stripe/stripe.render.ts';
import { contextOf, type StripeEnv, scopeOf } from './app.ts';
import type { Params } from './params.ts';
import { expansions, paging } from './routes-payment-intents.ts';

/**
 * /v1/checkout/sessions: Checkout Sessions in payment mode (create, retrieve, list, expire, line
 * items). Each is a collection whose hosted checkout is the session's `url`.
 */

const MODES = ['payment', 'setup', 'subscription'] as const;

/** `mode`: payment (also when absent, as Stripe's newest versions take it). */
function modeOf(p: Params): 'payment' {
  const mode = p.oneOf('mode', MODES) ?? 'payment';
  if (mode !== 'payment')
    throw invalidParam(
      'mode',
      `Sandbank's Stripe dialect creates Checkout Sessions in payment mode only: mode=${mode} is not supported.`,
    );
  return mode;
}

/**
 * `payment_method_types` and `allowed_payment_method_types` (card only), `currency` (usd only),
 * `ui_mode` (the hosted page only): checked, nothing else.
 */
function fixedChoices(p: Params): void {
  for (const name of ['payment_method_types', 'allowed_payment_method_types']) {
    const types = p.list(name);
    if (types?.some((type) => type !== 'card'))
      throw invalidParam(
        name,
        `Sandbank's Stripe dialect takes card payment methods only: ${name}=['card'].`,
      );
  }
  const currency = p.string('currency', 3)?.toLowerCase();
  if (currency !== undefined && currency !== 'usd')
    throw invalidParam(
      'currency',
      `Sandbank's card payments are in USD: the currency '${currency}' is not supported by its Stripe dialect.`,
    );
  p.oneOf('ui_mode', ['hosted', 'hosted_page']);
}

async function answer(c: Context<StripeEnv>, view: CheckoutSessionView, expand: ReadonlySet<string>) {
  const intentId = view.row.paymentIntentId;
  const paymentIntent =
    intentId && expand.has('payment_intent')
      ? renderIntent(await retrieveIntent(contextOf(c), intentId), scopeOf(c, new Set()))
      : undefined;
  return renderCheckoutSession(view.row, view.collection, scopeOf(c, expand), { paymentIntent });
}

export function mountCheckout(app: Hono<StripeEnv>): void {
  app.post('/v1/checkout/sessions', async (c) => {
    const p = c.get('params');
    modeOf(p);
    const lineItems = parseLineItems(p.snapshot().line_items);
    p.object('line_items');
    fixedChoices(p);
    const input = {
      lineItems,
      successUrl: p.string('success_url', 5000),
      cancelUrl: p.string('cancel_url', 5000),
      customer: p.string('customer', 255),
      customerEmail: p.string('customer_email', 800),
      clientReferenceId: p.string('client_reference_id', 200),
      metadata: p.metadata(),
      expiresAt: p.integer('expires_at', 9_999_999_999n),
    };
    const expand = expansions(p, CHECKOUT_EXPANSIONS);
    p.done();
    const view = await createCheckoutSession(contextOf(c), input);
    return c.json(await answer(c, view, expand));
  });

  app.get('/v1/checkout/sessions', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    const paymentIntent = p.string('payment_intent', 255);
    const customer = p.string('customer', 255);
    const expand = expansions(
      p,
      CHECKOUT_EXPANSIONS.map((path) => `data.${path}`),
    );
    p.done();
    const { data, hasMore } = await listCheckoutSessions(contextOf(c), { ...page, paymentIntent, customer });
    const inner = new Set([...expand].map((path) => path.slice('data.'.length)));
    const rendered = [];
    for (const view of data) rendered.push(await answer(c, view, inner));
    return c.json({ object: 'list', data: rendered, has_more: hasMore, url: '/v1/checkout/sessions' });
  });

  app.get('/v1/checkout/sessions/:id', async (c) => {
    const p = c.get('params');
    const expand = expansions(p, CHECKOUT_EXPANSIONS);
    p.done();
    return c.json(await answer(c, await retrieveCheckoutSession(contextOf(c), c.req.param('id')), expand));
  });

  app.post('/v1/checkout/sessions/:id/expire', async (c) => {
    const p = c.get('params');
    const expand = expansions(p, CHECKOUT_EXPANSIONS);
    p.done();
    return c.json(await answer(c, await expireCheckoutSession(contextOf(c), c.req.param('id')), expand));
  });

  app.get('/v1/checkout/sessions/:id/line_items', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    expansions(p, []);
    p.done();
    const { row, items, hasMore } = await checkoutLineItems(contextOf(c), c.req.param('id'), page);
    return c.json(lineItemsList(row, items, hasMore));
  });
}
