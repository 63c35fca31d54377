import type { Hono } from 'hono';
import {
  advanceTestClock,
  createTestClock,
  deleteTestClock,
  listTestClocks,
  retrieveTestClock,
} from '../../modules/stripe/stripe.test-clocks.ts';
import { contextOf, type StripeEnv } from './app.ts';
import type { Params } from './params.ts';
import { expansions, paging } from './routes-payment-intents.ts';

/**
 * /v1/test_helpers/test_clocks: names over the merchant's one clock (stripe.test-clocks.ts).
 * Creating and advancing one move that clock, as the native advance does: the due work on the way
 * runs batch by batch, each batch in a transaction of its own, so these two requests run outside
 * the transaction an Idempotency-Key's answer is stored in (`changesClock`), and the answer is
 * stored after them.
 */

const CLOCK_CHANGES = /\/v1\/test_helpers\/test_clocks(\/[^/]+\/advance)?$/;

/** Whether a request of the dialect changes the merchant's clock (it commits in transactions of its own). */
export function changesClock(method: string, path: string): boolean {
  return method === 'POST' && CLOCK_CHANGES.test(path);
}

/** `frozen_time`: Unix seconds, up to the year 9999. */
const frozenTimeOf = (p: Params) => p.integer('frozen_time', 253_402_300_799n);

export function mountTestClocks(app: Hono<StripeEnv>): void {
  app.post('/v1/test_helpers/test_clocks', async (c) => {
    const p = c.get('params');
    const frozenTime = frozenTimeOf(p);
    const name = p.string('name', 300);
    expansions(p, []);
    p.done();
    const input = { frozenTime: p.required('frozen_time', frozenTime), name };
    return c.json(await createTestClock(contextOf(c), input));
  });

  app.get('/v1/test_helpers/test_clocks', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    expansions(p, []);
    p.done();
    const found = await listTestClocks(contextOf(c), page);
    return c.json({
      object: 'list',
      data: found.data,
      has_more: found.hasMore,
      url: '/v1/test_helpers/test_clocks',
    });
  });

  app.get('/v1/test_helpers/test_clocks/:id', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    return c.json(await retrieveTestClock(contextOf(c), c.req.param('id')));
  });

  app.post('/v1/test_helpers/test_clocks/:id/advance', async (c) => {
    const p = c.get('params');
    const frozenTime = frozenTimeOf(p);
    expansions(p, []);
    p.done();
    const to = p.required('frozen_time', frozenTime);
    return c.json(await advanceTestClock(contextOf(c), c.req.param('id'), to));
  });

  app.delete('/v1/test_helpers/test_clocks/:id', async (c) => {
    const p = c.get('params');
    p.done();
    return c.json(await deleteTestClock(contextOf(c), c.req.param('id')));
  });
}
