import type { Hono } from 'hono';
import {
  closeStripeDispute,
  listStripeDisputes,
  retrieveStripeDispute,
  updateStripeDispute,
} from '../../modules/stripe/stripe.disputes.ts';
import { EVIDENCE_FIELDS, UNKEPT_EVIDENCE_FIELDS } from '../../modules/stripe/stripe.disputes-render.ts';
import { invalidParam } from '../../modules/stripe/stripe.errors.ts';
import { contextOf, type StripeEnv } from './app.ts';
import type { Params } from './params.ts';
import { expansions, paging } from './routes-payment-intents.ts';

/** /v1/disputes: list, retrieve, update (evidence, submit) and close, over the native disputes. */

/** `evidence[field]=text`: the fields Sandbank keeps; Stripe's others are refused by name. */
function evidenceOf(p: Params) {
  const evidence = p.object('evidence');
  if (!evidence) return undefined;
  const sent = evidence.snapshot();
  for (const field of UNKEPT_EVIDENCE_FIELDS)
    if (Object.hasOwn(sent, field))
      throw invalidParam(
        `evidence[${field}]`,
        `Sandbank's disputes keep text evidence in ${EVIDENCE_FIELDS.join(', ')}; evidence[${field}] is not one of them.`,
      );
  const fields: Partial<Record<(typeof EVIDENCE_FIELDS)[number], string>> = {};
  for (const field of EVIDENCE_FIELDS) {
    const text = evidence.string(field, 5000);
    if (text !== undefined) fields[field] = text;
  }
  evidence.done();
  return fields;
}

export function mountDisputes(app: Hono<StripeEnv>): void {
  app.get('/v1/disputes', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    const charge = p.string('charge', 255);
    const paymentIntent = p.string('payment_intent', 255);
    expansions(p, []);
    p.done();
    const found = await listStripeDisputes(contextOf(c), page, { charge, paymentIntent });
    return c.json({ object: 'list', data: found.data, has_more: found.hasMore, url: '/v1/disputes' });
  });

  app.get('/v1/disputes/:id', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    return c.json(await retrieveStripeDispute(contextOf(c), c.req.param('id')));
  });

  app.post('/v1/disputes/:id', async (c) => {
    const p = c.get('params');
    const evidence = evidenceOf(p);
    const submit = p.boolean('submit');
    const metadata = p.metadata();
    if (metadata && Object.keys(metadata).length > 0)
      throw invalidParam(
        'metadata',
        "Sandbank's disputes keep no metadata: a dispute's metadata is always empty in its Stripe dialect.",
      );
    expansions(p, []);
    p.done();
    return c.json(await updateStripeDispute(contextOf(c), c.req.param('id'), { evidence, submit }));
  });

  app.post('/v1/disputes/:id/close', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    return c.json(await closeStripeDispute(contextOf(c), c.req.param('id')));
  });
}
