import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { getEvent, listEvents } from '../events/events.service.ts';
import { defineOperation } from '../operation.ts';
import { listDeliveries, listEndpointDeliveries } from './webhooks.log.ts';
import { Event, eventTypePayloads, WebhookTestEventWire } from './webhooks.payloads.ts';
import { redeliverEvent } from './webhooks.redeliver.ts';
import {
  DeletedWebhookEndpointWire,
  deliveryNode,
  EventType,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './webhooks.resource.ts';
import {
  createEndpointSchema,
  endpointFieldCodes,
  redeliverSchema,
  updateEndpointSchema,
} from './webhooks.schema.ts';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from './webhooks.service.ts';

/** The operations on events and webhook endpoints, each declared once: its REST route and its GraphQL field. */

const eventParam = z.object({ id: z.string().min(1).max(64).describe("The event's id (evt_…).") });
const endpointParam = z.object({
  id: z.string().min(1).max(64).describe("The endpoint's id (we_…)."),
});
/** What creating or updating an endpoint can be refused for, beyond its body's shape. */
const ENDPOINT_ERRORS = ['url_invalid'] as const;
/** A list answered whole, on one page. */
const onePage = <T>(data: T[]) => ({ data, hasMore: false, nextCursor: null });
/** GraphQL's WebhookEndpoint shows its secret only in the answer of create and rotate. */
const withSecret = <T>(row: T) => ({ ...row, showSecret: true });

export const eventOperations = [
  defineOperation({
    name: 'listEvents',
    method: 'get',
    path: '/events',
    tags: ['Events'],
    summary: 'Events, newest first; filter by type and object_id',
    query: listQuerySchema.extend({
      type: z.string().max(100).optional().describe('Only events of this type, e.g. collection.succeeded.'),
      object_id: z.string().max(100).optional().describe('Only the events of this object (its id).'),
    }),
    output: Event,
    list: true,
    run: (ctx, { query }) => listEvents(ctx, query),
    graphql: { name: 'events', filters: { type: 'type', objectId: 'object_id' } },
  }),
  defineOperation({
    name: 'getEvent',
    method: 'get',
    path: '/events/{id}',
    tags: ['Events'],
    summary: 'One event',
    params: eventParam,
    output: Event,
    run: (ctx, { params }) => getEvent(ctx, params.id),
    graphql: { name: 'event' },
  }),
  // GraphQL answers them as Event.deliveries (webhooks.graphql.ts).
  defineOperation({
    name: 'listEventDeliveries',
    method: 'get',
    path: '/events/{id}/deliveries',
    tags: ['Events'],
    summary: "An event's webhook deliveries with their attempt logs",
    params: eventParam,
    output: WebhookDelivery,
    list: true,
    run: async (ctx, { params }) => onePage((await listDeliveries(ctx, params.id)).map(deliveryNode)),
    graphql: false,
  }),
  // GraphQL's redeliverEvent is written by hand (webhooks.graphql.ts): it answers the deliveries as
  // a list, not a page, and takes no idempotency key.
  defineOperation({
    name: 'redeliverEvent',
    method: 'post',
    path: '/events/{id}/redeliver',
    tags: ['Events'],
    summary: 'Deliver an event again now (one endpoint, or every subscribed one)',
    params: eventParam,
    body: redeliverSchema,
    optionalBody: true,
    output: WebhookDelivery,
    list: true,
    run: async (ctx, { params, body }) =>
      onePage((await redeliverEvent(ctx, params.id, body)).map(deliveryNode)),
    graphql: false,
  }),
];

const TAGS = ['Webhooks'];

export const webhookOperations = [
  defineOperation({
    name: 'createWebhookEndpoint',
    method: 'post',
    path: '/webhook_endpoints',
    tags: TAGS,
    summary: 'Create a webhook endpoint (the secret is shown once)',
    body: createEndpointSchema,
    codes: endpointFieldCodes,
    errors: [...ENDPOINT_ERRORS, 'limit_exceeded'],
    output: WebhookEndpointWithSecret,
    run: async (ctx, { body }) => withSecret(await createEndpoint(ctx, body)),
    graphql: { returns: 'WebhookEndpoint', reload: false, omit: ['events'] },
  }),
  defineOperation({
    name: 'listWebhookEndpoints',
    method: 'get',
    path: '/webhook_endpoints',
    tags: TAGS,
    summary: 'List webhook endpoints',
    query: listQuerySchema,
    output: WebhookEndpoint,
    list: true,
    run: (ctx, { query }) => listEndpoints(ctx, query),
    graphql: { name: 'webhookEndpoints' },
  }),
  defineOperation({
    name: 'getWebhookEndpoint',
    method: 'get',
    path: '/webhook_endpoints/{id}',
    tags: TAGS,
    summary: 'One webhook endpoint',
    params: endpointParam,
    output: WebhookEndpoint,
    run: (ctx, { params }) => getEndpoint(ctx, params.id),
    graphql: { name: 'webhookEndpoint' },
  }),
  defineOperation({
    name: 'updateWebhookEndpoint',
    method: 'post',
    path: '/webhook_endpoints/{id}',
    tags: TAGS,
    summary: 'Update url, enabled_events, enabled or description',
    params: endpointParam,
    body: updateEndpointSchema,
    codes: endpointFieldCodes,
    errors: ENDPOINT_ERRORS,
    output: WebhookEndpoint,
    run: (ctx, { params, body }) => updateEndpoint(ctx, params.id, body),
    graphql: { reload: false, omit: ['events'] },
  }),
  defineOperation({
    name: 'deleteWebhookEndpoint',
    method: 'delete',
    path: '/webhook_endpoints/{id}',
    tags: TAGS,
    summary: 'Delete a webhook endpoint',
    params: endpointParam,
    output: WebhookEndpoint,
    run: (ctx, { params }) => deleteEndpoint(ctx, params.id),
    answer: {
      wire: DeletedWebhookEndpointWire,
      render: (row) => ({ id: row.id, object: 'webhook_endpoint', deleted: true }),
    },
    graphql: { reload: false },
  }),
  defineOperation({
    name: 'rotateWebhookEndpointSecret',
    method: 'post',
    path: '/webhook_endpoints/{id}/rotate_secret',
    tags: TAGS,
    summary: 'New secret; the old one signs too for 24 h',
    params: endpointParam,
    output: WebhookEndpointWithSecret,
    run: async (ctx, { params }) => withSecret(await rotateSecret(ctx, params.id)),
    graphql: { name: 'rotateWebhookSecret', returns: 'WebhookEndpoint', reload: false },
  }),
  // GraphQL's testWebhookEndpoint is written by hand (webhooks.graphql.ts): it answers the event's id.
  defineOperation({
    name: 'sendTestWebhook',
    method: 'post',
    path: '/webhook_endpoints/{id}/test',
    tags: TAGS,
    summary: 'Send a webhook.test event to this endpoint',
    params: endpointParam,
    output: Event,
    run: async (ctx, { params }) => getEvent(ctx, await sendTestEvent(ctx, params.id)),
    answer: { wire: WebhookTestEventWire, render: (event, rc) => Event.render(event, rc) },
    graphql: false,
  }),
  // GraphQL answers them as WebhookEndpoint.deliveries (webhooks.graphql.ts).
  defineOperation({
    name: 'listWebhookEndpointDeliveries',
    method: 'get',
    path: '/webhook_endpoints/{id}/deliveries',
    tags: TAGS,
    summary: "The endpoint's deliveries, newest event first, with their attempt logs",
    params: endpointParam,
    query: listQuerySchema,
    output: WebhookDelivery,
    list: true,
    run: async (ctx, { params, query }) => {
      const page = await listEndpointDeliveries(ctx, params.id, query);
      return { ...page, data: page.data.map(deliveryNode) };
    },
    graphql: false,
  }),
  // GraphQL's eventTypes is written by hand (webhooks.graphql.ts): it answers the types' names alone.
  defineOperation({
    name: 'listEventTypes',
    method: 'get',
    path: '/event_types',
    tags: ['Events'],
    summary: 'Every event type the sandbox emits (endpoints subscribe to these, or to "*")',
    output: EventType,
    list: true,
    run: async () => onePage(eventTypePayloads()),
    graphql: false,
  }),
];
