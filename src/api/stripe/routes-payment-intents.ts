import type { Context, Hono } from 'hono';
import { invalidParam, StripeError } from '../../modules/stripe/stripe.errors.ts';
import {
  type IntentFields,
  type IntentView,
  listIntents,
  retrieveIntent,
} from '../../modules/stripe/stripe.payment-intents.read.ts';
import {
  cancelIntent,
  captureIntent,
  confirmIntent,
  createIntent,
  updateIntent,
} from '../../modules/stripe/stripe.payment-intents.ts';
import { checkExpansions, INTENT_EXPANSIONS, renderIntent } from '../../modules/stripe/stripe.render.ts';
import { contextOf, type StripeEnv, scopeOf } from './app.ts';
import type { Params } from './params.ts';

/** /v1/payment_intents: create, retrieve, update, confirm, capture, cancel, list. */

/** The smallest amount Stripe charges in USD: 50 cents. */
const MIN_AMOUNT = 50n;

/** `expand[]`, checked against what the object can expand. */
export function expansions(p: Params, allowed: readonly string[]): Set<string> {
  const expand = new Set(p.list('expand') ?? []);
  checkExpansions(expand, allowed);
  return expand;
}

/** A list's paging parameters: limit 1–100 (default 10), starting_after / ending_before (ids). */
export function paging(p: Params) {
  const limit = p.integer('limit', 100n) ?? 10n;
  if (limit < 1n)
    throw invalidParam('limit', 'Invalid limit: must be between 1 and 100.', 'parameter_invalid_integer');
  const startingAfter = p.string('starting_after', 255);
  const endingBefore = p.string('ending_before', 255);
  if (startingAfter && endingBefore)
    throw invalidParam(
      'ending_before',
      'You may only specify one of these parameters: starting_after, ending_before.',
    );
  return { limit: Number(limit), startingAfter, endingBefore };
}

function amountOf(p: Params, name = 'amount'): bigint | undefined {
  const amount = p.integer(name);
  if (amount !== undefined && amount < MIN_AMOUNT)
    throw new StripeError(400, {
      type: 'invalid_request_error',
      code: 'amount_too_small',
      param: name,
      message: 'Amount must be at least $0.50 usd',
    });
  return amount;
}

function currencyOf(p: Params): string | undefined {
  const currency = p.string('currency', 3)?.toLowerCase();
  if (currency !== undefined && currency !== 'usd')
    throw invalidParam(
      'currency',
      `Sandbank's card payments are in USD: the currency '${currency}' is not supported by its Stripe dialect.`,
      'parameter_invalid_string',
    );
  return currency;
}

function captureMethodOf(p: Params): 'automatic' | 'manual' | undefined {
  const method = p.oneOf('capture_method', ['automatic', 'automatic_async', 'manual']);
  return method === 'automatic_async' ? 'automatic' : method;
}

/** `payment_method_types` (only `card`) and `automatic_payment_methods` (card is the one there is). */
function paymentMethodKinds(p: Params): void {
  const types = p.list('payment_method_types');
  if (types?.some((type) => type !== 'card'))
    throw invalidParam(
      'payment_method_types',
      "Sandbank's Stripe dialect takes card payment methods only: payment_method_types=['card'].",
    );
  const automatic = p.object('automatic_payment_methods');
  if (automatic) {
    automatic.boolean('enabled');
    automatic.oneOf('allow_redirects', ['always', 'never']);
    automatic.done();
  }
}

/** The fields create and update share. */
function commonFields(p: Params): IntentFields {
  return {
    amount: amountOf(p),
    currency: currencyOf(p),
    captureMethod: captureMethodOf(p),
    paymentMethod: p.string('payment_method', 255),
    description: p.nullableString('description', 1000),
    metadata: p.metadata(),
    receiptEmail: p.nullableString('receipt_email', 800),
  };
}

function answer(c: Context<StripeEnv>, view: IntentView, expand: ReadonlySet<string>) {
  return c.json(renderIntent(view, scopeOf(c, expand)));
}

export function mountPaymentIntents(app: Hono<StripeEnv>): void {
  app.post('/v1/payment_intents', async (c) => {
    const p = c.get('params');
    const fields = commonFields(p);
    paymentMethodKinds(p);
    p.oneOf('confirmation_method', ['automatic']);
    const confirm = p.boolean('confirm') ?? false;
    const returnUrl = p.string('return_url', 2048);
    const expand = expansions(p, INTENT_EXPANSIONS);
    p.done();
    const amount = p.required('amount', fields.amount);
    const currency = p.required('currency', fields.currency);
    const view = await createIntent(contextOf(c), { ...fields, amount, currency, returnUrl }, confirm);
    return answer(c, view, expand);
  });

  app.get('/v1/payment_intents', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    const expand = expansions(
      p,
      INTENT_EXPANSIONS.map((path) => `data.${path}`),
    );
    p.done();
    const { data, hasMore } = await listIntents(contextOf(c), page);
    const inner = new Set([...expand].map((path) => path.slice('data.'.length)));
    return c.json({
      object: 'list',
      data: data.map((view) => renderIntent(view, scopeOf(c, inner))),
      has_more: hasMore,
      url: '/v1/payment_intents',
    });
  });

  app.get('/v1/payment_intents/:id', async (c) => {
    const p = c.get('params');
    p.string('client_secret', 255);
    const expand = expansions(p, INTENT_EXPANSIONS);
    p.done();
    return answer(c, await retrieveIntent(contextOf(c), c.req.param('id')), expand);
  });

  app.post('/v1/payment_intents/:id', async (c) => {
    const p = c.get('params');
    const fields = commonFields(p);
    paymentMethodKinds(p);
    const expand = expansions(p, INTENT_EXPANSIONS);
    p.done();
    return answer(c, await updateIntent(contextOf(c), c.req.param('id'), fields), expand);
  });

  app.post('/v1/payment_intents/:id/confirm', async (c) => {
    const p = c.get('params');
    const fields = {
      paymentMethod: p.string('payment_method', 255),
      returnUrl: p.string('return_url', 2048),
      captureMethod: captureMethodOf(p),
    };
    paymentMethodKinds(p);
    const expand = expansions(p, INTENT_EXPANSIONS);
    p.done();
    return answer(c, await confirmIntent(contextOf(c), c.req.param('id'), fields), expand);
  });

  app.post('/v1/payment_intents/:id/capture', async (c) => {
    const p = c.get('params');
    const amount = p.integer('amount_to_capture');
    const expand = expansions(p, INTENT_EXPANSIONS);
    p.done();
    return answer(c, await captureIntent(contextOf(c), c.req.param('id'), amount), expand);
  });

  app.post('/v1/payment_intents/:id/cancel', async (c) => {
    const p = c.get('params');
    const reason = p.oneOf('cancellation_reason', [
      'duplicate',
      'fraudulent',
      'requested_by_customer',
      'abandoned',
    ]);
    const expand = expansions(p, INTENT_EXPANSIONS);
    p.done();
    return answer(c, await cancelIntent(contextOf(c), c.req.param('id'), reason), expand);
  });
}
