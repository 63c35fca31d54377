import type { Context, Hono } from 'hono';
import { findCustomer, renderCustomer } from '../../modules/stripe/stripe.customers.rows.ts';
import { invalidParam } from '../../modules/stripe/stripe.errors.ts';
import { cardFromDetails, cardFromToken } from '../../modules/stripe/stripe.saved-methods.card.ts';
import {
  attachMethod,
  type BillingInput,
  detachMethod,
  findMethod,
  insertMethod,
  listMethods,
  type MethodView,
  renderMethod,
  savedView,
  updateMethod,
} from '../../modules/stripe/stripe.saved-methods.ts';
import { contextOf, type StripeEnv } from './app.ts';
import type { Params } from './params.ts';
import { expansions, paging } from './routes-payment-intents.ts';

/**
 * /v1/payment_methods: cards saved from their details or a test token (`card[token]=tok_visa`),
 * retrieved (saved ones and Stripe's test ids), updated, attached to a customer, detached, listed.
 * A PaymentMethod never shows its card's number or CVC.
 */

const ADDRESS_FIELDS = ['city', 'country', 'line1', 'line2', 'postal_code', 'state'] as const;

/** `billing_details[…]`: each field a text ("" clears it), the address's fields likewise. */
export function billingOf(p: Params): BillingInput | undefined {
  const billing = p.object('billing_details');
  if (!billing) return undefined;
  const address = billing.object('address');
  let fields: Record<string, string | null> | undefined;
  if (address) {
    fields = {};
    for (const key of ADDRESS_FIELDS) {
      const value = address.nullableString(key, 200);
      if (value !== undefined) fields[key] = value;
    }
    address.done();
  }
  const input: BillingInput = {
    address: fields,
    email: billing.nullableString('email', 800),
    name: billing.nullableString('name', 500),
    phone: billing.nullableString('phone', 40),
    tax_id: billing.nullableString('tax_id', 100),
  };
  billing.done();
  return input;
}

/** `type`: card is the one kind of payment method the dialect has. */
function typeOf(p: Params, required: boolean): void {
  const type = p.string('type', 100);
  if (required) p.required('type', type);
  if (type !== undefined && type !== 'card')
    throw invalidParam(
      'type',
      `Sandbank's Stripe dialect has card payment methods only: the type '${type}' is not supported.`,
    );
}

/** The card of a new payment method: its details, or a test token (not both). */
function newCard(c: Context<StripeEnv>, p: Params) {
  const card = p.required('card', p.object('card'));
  const token = card.string('token', 255);
  const details = {
    number: card.string('number', 30),
    expMonth: card.string('exp_month', 4),
    expYear: card.string('exp_year', 4),
    cvc: card.string('cvc', 4),
  };
  card.done();
  const now = c.get('clock').now();
  if (token === undefined) return () => cardFromDetails(details, now);
  if (Object.values(details).some((value) => value !== undefined))
    throw invalidParam(
      'card[token]',
      'Pass either card[token] or the card details (card[number]…), not both.',
    );
  return () => cardFromToken(token, now);
}

/** A payment method's object, its customer expanded when asked for. */
export async function methodAnswer(c: Context<StripeEnv>, view: MethodView, expand: ReadonlySet<string>) {
  const customerId = view.saved?.customerId;
  if (!customerId || !expand.has('customer')) return renderMethod(view);
  const customer = await findCustomer(contextOf(c), customerId, { deleted: true });
  return renderMethod(view, renderCustomer(customer));
}

/** A list of payment methods (a customer's, or all the merchant's saved ones). */
export async function methodList(
  c: Context<StripeEnv>,
  p: Params,
  customerId: string | undefined,
  url: string,
) {
  const page = paging(p);
  const expand = expansions(p, ['data.customer']);
  p.done();
  const { data, hasMore } = await listMethods(contextOf(c), { ...page, customerId });
  const inner = new Set([...expand].map((path) => path.slice('data.'.length)));
  return c.json({
    object: 'list',
    data: await Promise.all(data.map((view) => methodAnswer(c, view, inner))),
    has_more: hasMore,
    url,
  });
}

export function mountPaymentMethods(app: Hono<StripeEnv>): void {
  app.post('/v1/payment_methods', async (c) => {
    const p = c.get('params');
    typeOf(p, true);
    const card = newCard(c, p);
    const billing = billingOf(p);
    const metadata = p.metadata();
    const expand = expansions(p, ['customer']);
    p.done();
    const row = await insertMethod(contextOf(c), undefined, card(), { billing, metadata });
    return c.json(await methodAnswer(c, savedView(row), expand));
  });

  app.get('/v1/payment_methods', async (c) => {
    const p = c.get('params');
    const customer = p.string('customer', 255);
    typeOf(p, false);
    return methodList(c, p, customer, '/v1/payment_methods');
  });

  app.get('/v1/payment_methods/:id', async (c) => {
    const p = c.get('params');
    const expand = expansions(p, ['customer']);
    p.done();
    const view = await findMethod(contextOf(c), c.req.param('id'), { param: 'id' });
    return c.json(await methodAnswer(c, view, expand));
  });

  app.post('/v1/payment_methods/:id', async (c) => {
    const p = c.get('params');
    const billing = billingOf(p);
    const metadata = p.metadata();
    const card = p.object('card');
    const expMonth = card?.string('exp_month', 4);
    const expYear = card?.string('exp_year', 4);
    card?.done();
    const expand = expansions(p, ['customer']);
    p.done();
    const view = await updateMethod(contextOf(c), c.req.param('id'), {
      billing,
      metadata,
      expMonth,
      expYear,
    });
    return c.json(await methodAnswer(c, view, expand));
  });

  app.post('/v1/payment_methods/:id/attach', async (c) => {
    const p = c.get('params');
    const customer = p.required('customer', p.string('customer', 255));
    const expand = expansions(p, ['customer']);
    p.done();
    const view = await attachMethod(contextOf(c), c.req.param('id'), customer);
    return c.json(await methodAnswer(c, view, expand));
  });

  app.post('/v1/payment_methods/:id/detach', async (c) => {
    const p = c.get('params');
    const expand = expansions(p, ['customer']);
    p.done();
    return c.json(await methodAnswer(c, await detachMethod(contextOf(c), c.req.param('id')), expand));
  });
}
