import type { Context, Hono } from 'hono';
import { findCustomer, renderCustomer } from '../../modules/stripe/stripe.customers.rows.ts';
import { searchCustomers } from '../../modules/stripe/stripe.customers.search.ts';
import {
  type CustomerFields,
  createCustomer,
  customerObject,
  deleteCustomer,
  listCustomers,
  retrieveCustomer,
  updateCustomer,
} from '../../modules/stripe/stripe.customers.ts';
import { invalidParam, noSuch } from '../../modules/stripe/stripe.errors.ts';
import { findMethod } from '../../modules/stripe/stripe.saved-methods.ts';
import { contextOf, type StripeEnv } from './app.ts';
import type { Params } from './params.ts';
import { methodAnswer, methodList } from './routes-customers-methods.ts';
import { expansions, paging } from './routes-payment-intents.ts';

/**
 * /v1/customers: create, retrieve (a deleted one answers `{deleted: true}`), update, delete, list,
 * search (Stripe's query language, in part), and a customer's payment methods.
 */

const EXPANSIONS = ['invoice_settings.default_payment_method'];
const DEFAULT = 'invoice_settings.default_payment_method';

/** The fields create and update share (a text "" clears it; metadata merges). */
function customerFields(p: Params): CustomerFields {
  const invoice = p.object('invoice_settings');
  const defaultPaymentMethod = invoice?.nullableString('default_payment_method', 255);
  invoice?.done();
  return {
    email: p.nullableString('email', 512),
    name: p.nullableString('name', 256),
    phone: p.nullableString('phone', 20),
    description: p.nullableString('description', 350),
    metadata: p.metadata(),
    defaultPaymentMethod,
  };
}

/** `limit` alone (search pages by `page`): 1–100, 10 by default. */
function limitOf(p: Params): number {
  const limit = p.integer('limit', 100n) ?? 10n;
  if (limit < 1n)
    throw invalidParam('limit', 'Invalid limit: must be between 1 and 100.', 'parameter_invalid_integer');
  return Number(limit);
}

/** The list expansions (`data.…`) as the expansions of each item. */
const inner = (expand: ReadonlySet<string>) => new Set([...expand].map((path) => path.slice('data.'.length)));

async function answer(
  c: Context<StripeEnv>,
  row: Parameters<typeof renderCustomer>[0],
  expand: ReadonlySet<string>,
) {
  return c.json(await customerObject(contextOf(c), row, expand.has(DEFAULT)));
}

export function mountCustomers(app: Hono<StripeEnv>): void {
  app.post('/v1/customers', async (c) => {
    const p = c.get('params');
    const fields = customerFields(p);
    const paymentMethod = p.string('payment_method', 255);
    const expand = expansions(p, EXPANSIONS);
    p.done();
    return answer(c, await createCustomer(contextOf(c), { ...fields, paymentMethod }), expand);
  });

  app.get('/v1/customers', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    const email = p.string('email', 512);
    const expand = inner(
      expansions(
        p,
        EXPANSIONS.map((path) => `data.${path}`),
      ),
    );
    p.done();
    const { data, hasMore } = await listCustomers(contextOf(c), { ...page, email });
    const ctx = contextOf(c);
    return c.json({
      object: 'list',
      data: await Promise.all(data.map((row) => customerObject(ctx, row, expand.has(DEFAULT)))),
      has_more: hasMore,
      url: '/v1/customers',
    });
  });

  app.get('/v1/customers/search', async (c) => {
    const p = c.get('params');
    const query = p.required('query', p.string('query', 2000));
    const limit = limitOf(p);
    const page = p.string('page', 255);
    const expand = inner(
      expansions(
        p,
        EXPANSIONS.map((path) => `data.${path}`),
      ),
    );
    p.done();
    const ctx = contextOf(c);
    const { data, nextPage } = await searchCustomers(ctx, { query, limit, page });
    return c.json({
      object: 'search_result',
      data: await Promise.all(data.map((row) => customerObject(ctx, row, expand.has(DEFAULT)))),
      has_more: nextPage !== null,
      next_page: nextPage,
      url: '/v1/customers/search',
    });
  });

  app.get('/v1/customers/:id', async (c) => {
    const p = c.get('params');
    const expand = expansions(p, EXPANSIONS);
    p.done();
    return answer(c, await retrieveCustomer(contextOf(c), c.req.param('id')), expand);
  });

  app.post('/v1/customers/:id', async (c) => {
    const p = c.get('params');
    const fields = customerFields(p);
    const expand = expansions(p, EXPANSIONS);
    p.done();
    return answer(c, await updateCustomer(contextOf(c), c.req.param('id'), fields), expand);
  });

  app.delete('/v1/customers/:id', async (c) => {
    c.get('params').done();
    return c.json(renderCustomer(await deleteCustomer(contextOf(c), c.req.param('id'))));
  });

  app.get('/v1/customers/:id/payment_methods', async (c) => {
    const p = c.get('params');
    p.oneOf('type', ['card']);
    const id = c.req.param('id');
    return methodList(c, p, id, `/v1/customers/${id}/payment_methods`);
  });

  app.get('/v1/customers/:id/payment_methods/:method', async (c) => {
    const p = c.get('params');
    const expand = expansions(p, ['customer']);
    p.done();
    const ctx = contextOf(c);
    const customer = await findCustomer(ctx, c.req.param('id'));
    const id = c.req.param('method');
    const view = await findMethod(ctx, id, { param: 'payment_method' });
    if (view.saved?.customerId !== customer.id) throw noSuch('PaymentMethod', id, 'payment_method');
    return c.json(await methodAnswer(c, view, expand));
  });
}
