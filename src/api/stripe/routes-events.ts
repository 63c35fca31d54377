import type { Hono } from 'hono';
import { invalidParam } from '../../modules/stripe/stripe.errors.ts';
import { listStripeEvents, retrieveStripeEvent } from '../../modules/stripe/stripe.events.ts';
import {
  createStripeEndpoint,
  deleteStripeEndpoint,
  listStripeEndpoints,
  renderEndpoint,
  retrieveStripeEndpoint,
  updateStripeEndpoint,
} from '../../modules/stripe/stripe.webhooks.ts';
import { contextOf, type StripeEnv } from './app.ts';
import type { Params } from './params.ts';
import { expansions, paging } from './routes-payment-intents.ts';

/**
 * /v1/events (list, retrieve) and /v1/webhook_endpoints (create, retrieve, update, delete, list):
 * the dialect's events in Stripe's shape, and the endpoints they are delivered to, signed with
 * Stripe-Signature (src/modules/stripe/stripe.webhooks.ts).
 */

/** `type` (one, or a family: `charge.*`) or `types[]` (up to 20), not both. */
function typesOf(p: Params): { type?: string; types?: string[] } {
  const type = p.string('type', 200);
  const types = p.list('types');
  if (type !== undefined && types !== undefined)
    throw invalidParam('types', 'You may pass either type or types, but not both.');
  if (type !== undefined && !/^(\*|[a-z_]+(\.[a-z_]+)*(\.\*)?)$/.test(type))
    throw invalidParam(
      'type',
      `Invalid type: ${type.slice(0, 100)} is not an event type (or a family such as charge.*).`,
    );
  if (types !== undefined && (types.length === 0 || types.length > 20))
    throw invalidParam('types', 'Invalid types: pass between 1 and 20 event types.');
  return { ...(type !== undefined ? { type } : {}), ...(types !== undefined ? { types } : {}) };
}

/**
 * `metadata`: the dialect keeps none on an endpoint. An empty one (or none) is accepted; a key is
 * refused, naming it, rather than dropped.
 */
function noMetadata(p: Params): void {
  const metadata = p.metadata();
  const key = metadata ? Object.keys(metadata)[0] : undefined;
  if (key !== undefined)
    throw invalidParam(
      `metadata[${key}]`,
      "Sandbank's Stripe dialect keeps no metadata on webhook endpoints (describe the endpoint with description).",
    );
}

function description(p: Params): string | null | undefined {
  return p.nullableString('description', 500);
}

export function mountEvents(app: Hono<StripeEnv>): void {
  app.get('/v1/events', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    const filter = typesOf(p);
    expansions(p, []);
    p.done();
    const { data, hasMore } = await listStripeEvents(contextOf(c), { ...page, ...filter });
    return c.json({ object: 'list', data, has_more: hasMore, url: '/v1/events' });
  });

  app.get('/v1/events/:id', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    return c.json(await retrieveStripeEvent(contextOf(c), c.req.param('id')));
  });

  app.post('/v1/webhook_endpoints', async (c) => {
    const p = c.get('params');
    const url = p.string('url', 5000);
    const enabledEvents = p.list('enabled_events');
    const note = description(p);
    noMetadata(p);
    expansions(p, []);
    p.done();
    const row = await createStripeEndpoint(contextOf(c), {
      url: p.required('url', url),
      enabledEvents: p.required('enabled_events', enabledEvents),
      ...(note ? { description: note } : {}),
    });
    return c.json(renderEndpoint(row, true));
  });

  app.get('/v1/webhook_endpoints', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    expansions(p, []);
    p.done();
    const { data, hasMore } = await listStripeEndpoints(contextOf(c), page);
    return c.json({
      object: 'list',
      data: data.map((row) => renderEndpoint(row)),
      has_more: hasMore,
      url: '/v1/webhook_endpoints',
    });
  });

  app.get('/v1/webhook_endpoints/:id', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    return c.json(renderEndpoint(await retrieveStripeEndpoint(contextOf(c), c.req.param('id'))));
  });

  app.post('/v1/webhook_endpoints/:id', async (c) => {
    const p = c.get('params');
    const fields = {
      url: p.string('url', 5000),
      enabledEvents: p.list('enabled_events'),
      description: description(p),
      disabled: p.boolean('disabled'),
    };
    noMetadata(p);
    expansions(p, []);
    p.done();
    const row = await updateStripeEndpoint(contextOf(c), c.req.param('id'), fields);
    return c.json(renderEndpoint(row));
  });

  app.delete('/v1/webhook_endpoints/:id', async (c) => {
    const p = c.get('params');
    p.done();
    const row = await deleteStripeEndpoint(contextOf(c), c.req.param('id'));
    return c.json({ id: row.id, object: 'webhook_endpoint', deleted: true });
  });
}
