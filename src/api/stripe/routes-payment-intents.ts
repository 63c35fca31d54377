import type { Context, Hono } from 'hono';
import { invalidParam, StripeError } from '../../modules/stripe/stripe.errors.ts';
import {
  type IntentFields,
  type IntentView,
  listIntents,
  relateIntents,
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

export function amountOf(p: Params, name = 'amount'): bigint | undefined {
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

export function currencyOf(p: Params): string | undefined {
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

/** `return_url`: where a redirect-based payment sends the browser back to (an http(s) URL). */
function returnUrlOf(p: Params): string | undefined {
  const url = p.string('return_url', 2048);
  if (url !== undefined && !/^https?:\/\/[^\s]+$/i.test(url))
    throw invalidParam('return_url', 'Invalid URL: return_url must be an http or https URL.', 'url_invalid');
  return url;
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
    customer: p.string('customer', 255),
  };
}

/**
 * What a confirmation takes beside its payment method: `setup_future_usage` (the card saved to the
 * customer once the payment succeeds) and `off_session` (true, or Stripe's one_off / recurring).
 * Neither is kept on an unconfirmed intent, so both are refused where nothing is confirmed.
 */
function confirmationFields(p: Params, confirm: boolean) {
  const setupFutureUsage = p.oneOf('setup_future_usage', ['on_session', 'off_session', '']);
  const offSession = p.oneOf('off_session', ['true', 'false', 'one_off', 'recurring']);
  if (setupFutureUsage !== undefined && !confirm)
    throw new StripeError(400, {
      type: 'invalid_request_error',
      code: 'parameter_unknown',
      param: 'setup_future_usage',
      message:
        "Sandbank's Stripe dialect takes setup_future_usage only where the PaymentIntent is confirmed (create with confirm=true, or /confirm): it does not keep it on an unconfirmed PaymentIntent.",
    });
  if (offSession !== undefined && !confirm)
    throw invalidParam('off_session', 'off_session can only be used when confirm is true.');
  return {
    setupFutureUsage: setupFutureUsage === '' ? undefined : setupFutureUsage,
    offSession: offSession === undefined ? undefined : offSession !== 'false',
  };
}

async function answer(c: Context<StripeEnv>, view: IntentView, expand: ReadonlySet<string>) {
  const [related] = await relateIntents(contextOf(c), [view], { customer: expand.has('customer') });
  return c.json(renderIntent(related ?? view, scopeOf(c, expand)));
}

export function mountPaymentIntents(app: Hono<StripeEnv>): void {
  // Before the charges' routes: GET /v1/payment_methods/:id answers saved payment methods too.
  app.post('/v1/payment_intents', async (c) => {
    const p = c.get('params');
    const fields = commonFields(p);
    paymentMethodKinds(p);
    p.oneOf('confirmation_method', ['automatic']);
    const confirm = p.boolean('confirm') ?? false;
    const confirmation = confirmationFields(p, confirm);
    const returnUrl = returnUrlOf(p);
    const expand = expansions(p, INTENT_EXPANSIONS);
    p.done();
    const amount = p.required('amount', fields.amount);
    const currency = p.required('currency', fields.currency);
    const view = await createIntent(
      contextOf(c),
      { ...fields, ...confirmation, amount, currency, returnUrl },
      confirm,
    );
    return answer(c, view, expand);
  });

  app.get('/v1/payment_intents', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    const customer = p.string('customer', 255);
    const expand = expansions(
      p,
      INTENT_EXPANSIONS.map((path) => `data.${path}`),
    );
    p.done();
    const inner = new Set([...expand].map((path) => path.slice('data.'.length)));
    const { data, hasMore } = await listIntents(
      contextOf(c),
      { ...page, customer },
      { customer: inner.has('customer') },
    );
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
    const view = await retrieveIntent(contextOf(c), c.req.param('id'), { customer: expand.has('customer') });
    return c.json(renderIntent(view, scopeOf(c, expand)));
  });

  app.post('/v1/payment_intents/:id', async (c) => {
    const p = c.get('params');
    const fields = commonFields(p);
    paymentMethodKinds(p);
    confirmationFields(p, false);
    const expand = expansions(p, INTENT_EXPANSIONS);
    p.done();
    return answer(c, await updateIntent(contextOf(c), c.req.param('id'), fields), expand);
  });

  app.post('/v1/payment_intents/:id/confirm', async (c) => {
    const p = c.get('params');
    const fields = {
      paymentMethod: p.string('payment_method', 255),
      returnUrl: returnUrlOf(p),
      captureMethod: captureMethodOf(p),
      ...confirmationFields(p, true),
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
