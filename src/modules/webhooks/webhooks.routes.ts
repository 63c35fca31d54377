import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import type { Wire } from '../../kernel/wire-resources.ts';
import { sendJson, sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { getEvent, listEvents } from '../events/events.service.ts';
import { type DeliveryLog, listDeliveries, listEndpointDeliveries } from './webhooks.log.ts';
import { EventWire, eventResource, eventTypePayloads, WebhookTestEventWire } from './webhooks.payloads.ts';
import { redeliverEvent } from './webhooks.redeliver.ts';
import {
  DeletedWebhookEndpointWire,
  deliveryResource,
  EventTypeWire,
  endpointResource,
  endpointWithSecretResource,
  eventTypeResource,
  WebhookDeliveryWire,
  WebhookEndpointWire,
  WebhookEndpointWithSecretWire,
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

const idParam = z.object({ id: z.string().min(1).max(64) });
const eventsQuery = listQuerySchema.extend({
  type: z.string().max(100).optional(),
  object_id: z.string().max(100).optional(),
});
const EventList = listOf(EventWire, 'Event');
const WebhookDeliveryList = listOf(WebhookDeliveryWire, 'WebhookDelivery');
const WebhookEndpointList = listOf(WebhookEndpointWire, 'WebhookEndpoint');
const EventTypeList = listOf(EventTypeWire, 'EventType');
/** What creating or updating an endpoint can be refused for, beyond its body's shape. */
const ENDPOINT_ERRORS = ['url_invalid'] as const;

const deliveriesList = (logs: DeliveryLog[]) => ({
  status: 'success',
  data: logs.map(deliveryLogResource),
  has_more: false,
  next_cursor: null,
});
const deliveryLogResource = (log: DeliveryLog) => deliveryResource(log.delivery, log.attempts, log.eventType);

export function registerEventRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'get',
      path: '/events',
      operationId: 'listEvents',
      response: EventList,
      tags: ['Events'],
      summary: 'Events, newest first; filter by type and object_id',
      request: { query: eventsQuery },
    }),
    async (c) => sendList(c, await listEvents(serviceContext(c), c.req.valid('query')), eventResource),
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'get',
      path: '/events/{id}',
      operationId: 'getEvent',
      response: EventWire,
      tags: ['Events'],
      summary: 'One event',
      request: { params: idParam },
    }),
    async (c) => sendObject(c, eventResource(await getEvent(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'get',
      path: '/events/{id}/deliveries',
      operationId: 'listEventDeliveries',
      response: WebhookDeliveryList,
      tags: ['Events'],
      summary: "An event's webhook deliveries with their attempt logs",
      request: { params: idParam },
    }),
    async (c) =>
      sendJson(c, 200, deliveriesList(await listDeliveries(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'post',
      path: '/events/{id}/redeliver',
      operationId: 'redeliverEvent',
      response: WebhookDeliveryList,
      tags: ['Events'],
      summary: 'Deliver an event again now (one endpoint, or every subscribed one)',
      request: { params: idParam, ...jsonRequestBody(redeliverSchema, false) },
    }),
    async (c) =>
      sendJson(
        c,
        200,
        deliveriesList(await redeliverEvent(serviceContext(c), c.req.valid('param').id, c.req.valid('json'))),
      ),
    validationHook(),
  );
}

export function registerWebhookRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/webhook_endpoints',
      operationId: 'createWebhookEndpoint',
      response: WebhookEndpointWithSecretWire,
      errors: [...ENDPOINT_ERRORS, 'limit_exceeded'],
      tags: ['Webhooks'],
      summary: 'Create a webhook endpoint (the secret is shown once)',
      request: jsonRequestBody(createEndpointSchema),
    }),
    async (c) =>
      sendObject(c, endpointWithSecretResource(await createEndpoint(serviceContext(c), c.req.valid('json')))),
    validationHook(endpointFieldCodes),
  );
  api.openapi(
    operation({
      method: 'get',
      path: '/webhook_endpoints',
      operationId: 'listWebhookEndpoints',
      response: WebhookEndpointList,
      tags: ['Webhooks'],
      summary: 'List webhook endpoints',
      request: { query: listQuerySchema },
    }),
    async (c) =>
      sendList(c, await listEndpoints(serviceContext(c), c.req.valid('query')), (row) =>
        endpointResource(row),
      ),
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'get',
      path: '/webhook_endpoints/{id}',
      operationId: 'getWebhookEndpoint',
      response: WebhookEndpointWire,
      tags: ['Webhooks'],
      summary: 'One webhook endpoint',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(c, endpointResource(await getEndpoint(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'post',
      path: '/webhook_endpoints/{id}',
      operationId: 'updateWebhookEndpoint',
      response: WebhookEndpointWire,
      errors: ENDPOINT_ERRORS,
      tags: ['Webhooks'],
      summary: 'Update url, enabled_events, enabled or description',
      request: { params: idParam, ...jsonRequestBody(updateEndpointSchema) },
    }),
    async (c) =>
      sendObject(
        c,
        endpointResource(
          await updateEndpoint(serviceContext(c), c.req.valid('param').id, c.req.valid('json')),
        ),
      ),
    validationHook(endpointFieldCodes),
  );
  api.openapi(
    operation({
      method: 'delete',
      path: '/webhook_endpoints/{id}',
      operationId: 'deleteWebhookEndpoint',
      response: DeletedWebhookEndpointWire,
      tags: ['Webhooks'],
      summary: 'Delete a webhook endpoint',
      request: { params: idParam },
    }),
    async (c) => {
      const deleted = await deleteEndpoint(serviceContext(c), c.req.valid('param').id);
      const body: Wire<typeof DeletedWebhookEndpointWire> = {
        id: deleted.id,
        object: 'webhook_endpoint',
        deleted: true,
      };
      return sendObject(c, body);
    },
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'post',
      path: '/webhook_endpoints/{id}/rotate_secret',
      operationId: 'rotateWebhookEndpointSecret',
      response: WebhookEndpointWithSecretWire,
      tags: ['Webhooks'],
      summary: 'New secret; the old one signs too for 24 h',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(
        c,
        endpointWithSecretResource(await rotateSecret(serviceContext(c), c.req.valid('param').id)),
      ),
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'post',
      path: '/webhook_endpoints/{id}/test',
      operationId: 'sendTestWebhook',
      response: WebhookTestEventWire,
      tags: ['Webhooks'],
      summary: 'Send a webhook.test event to this endpoint',
      request: { params: idParam },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const eventId = await sendTestEvent(ctx, c.req.valid('param').id);
      return sendObject(c, eventResource(await getEvent(ctx, eventId)));
    },
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'get',
      path: '/webhook_endpoints/{id}/deliveries',
      operationId: 'listWebhookEndpointDeliveries',
      response: WebhookDeliveryList,
      tags: ['Webhooks'],
      summary: "The endpoint's deliveries, newest event first, with their attempt logs",
      request: { params: idParam, query: listQuerySchema },
    }),
    async (c) =>
      sendList(
        c,
        await listEndpointDeliveries(serviceContext(c), c.req.valid('param').id, c.req.valid('query')),
        deliveryLogResource,
      ),
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'get',
      path: '/event_types',
      operationId: 'listEventTypes',
      response: EventTypeList,
      tags: ['Events'],
      summary: 'Every event type the sandbox emits (endpoints subscribe to these, or to "*")',
    }),
    async (c) => {
      const documentUrl = `${c.get('deps').publicUrl}/v1/openapi.json`;
      return sendJson(c, 200, {
        status: 'success',
        data: eventTypePayloads().map((payload) => eventTypeResource(payload, documentUrl)),
        has_more: false,
        next_cursor: null,
      });
    },
    validationHook(),
  );
}
