import type { Hono } from 'hono';
import {
  listStripeBalanceTransactions,
  retrieveStripeBalanceTransaction,
  stripeBalance,
} from '../../modules/stripe/stripe.balance.ts';
import {
  cancelStripePayout,
  createStripePayout,
  listStripePayouts,
  retrieveStripePayout,
} from '../../modules/stripe/stripe.payouts.ts';
import { contextOf, type StripeEnv } from './app.ts';
import type { Params } from './params.ts';
import { mountTestClocks } from './routes-clocks.ts';
import { mountDisputes } from './routes-disputes.ts';
import { expansions, paging } from './routes-payment-intents.ts';

/**
 * The merchant's money in Stripe's shape: /v1/balance, /v1/balance_transactions (the native ledger's
 * postings) and /v1/payouts (the native payouts); with them, disputes and test clocks, whose routes
 * have files of their own.
 */

/** A list answer, Stripe's way. */
function list<T>(url: string, page: { data: T[]; hasMore: boolean }) {
  return { object: 'list', data: page.data, has_more: page.hasMore, url };
}

/** A text filter that is an object id or a word: at most 255 characters. */
const filter = (p: Params, name: string) => p.string(name, 255);

export function mountBalance(app: Hono<StripeEnv>): void {
  app.get('/v1/balance', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    return c.json(await stripeBalance(contextOf(c)));
  });

  app.get('/v1/balance_transactions', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    const type = filter(p, 'type');
    const source = filter(p, 'source');
    const currency = p.string('currency', 3);
    expansions(p, []);
    p.done();
    const found = await listStripeBalanceTransactions(contextOf(c), page, { type, source, currency });
    return c.json(list('/v1/balance_transactions', found));
  });

  app.get('/v1/balance_transactions/:id', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    return c.json(await retrieveStripeBalanceTransaction(contextOf(c), c.req.param('id')));
  });

  app.post('/v1/payouts', async (c) => {
    const p = c.get('params');
    const amount = p.integer('amount');
    const currency = p.string('currency', 3)?.toLowerCase();
    const fields = {
      description: p.string('description', 1000),
      metadata: p.metadata(),
      method: p.oneOf('method', ['standard', 'instant']),
      destination: p.string('destination', 255),
    };
    p.oneOf('source_type', ['card']);
    expansions(p, []);
    p.done();
    const payout = await createStripePayout(contextOf(c), {
      ...fields,
      amount: p.required('amount', amount),
      currency: p.required('currency', currency),
    });
    return c.json(payout);
  });

  app.get('/v1/payouts', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    const status = p.oneOf('status', ['pending', 'in_transit', 'paid', 'failed', 'canceled']);
    expansions(p, []);
    p.done();
    return c.json(list('/v1/payouts', await listStripePayouts(contextOf(c), page, { status })));
  });

  app.get('/v1/payouts/:id', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    return c.json(await retrieveStripePayout(contextOf(c), c.req.param('id')));
  });

  app.post('/v1/payouts/:id/cancel', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    return c.json(await cancelStripePayout(contextOf(c), c.req.param('id')));
  });

  mountDisputes(app);
  mountTestClocks(app);
}
