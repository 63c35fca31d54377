import { builder } from '../../graphql/builder.ts';
import { listQueryOf, nullIfNotFound, serviceContext, toConnection } from '../../graphql/context.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { EventRef } from '../events/events.subscriptions.graphql.ts';
import { listEventTypes } from './webhooks.event-types.ts';
import { type AttemptRow, type DeliveryLog, listDeliveries, listEndpointDeliveries } from './webhooks.log.ts';
import { redeliverEvent } from './webhooks.redeliver.ts';
import {
  createEndpointSchema,
  endpointFieldCodes,
  redeliverSchema,
  updateEndpointSchema,
} from './webhooks.schema.ts';
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointRow,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from './webhooks.service.ts';

type EndpointView = EndpointRow & { showSecret?: boolean };

const WebhookAttemptRef = builder.objectRef<AttemptRow>('WebhookAttempt').implement({
  description: 'One HTTP attempt of a delivery: its clock time, the answer or the error, how long it took.',
  fields: (t) => ({
    id: t.exposeID('id'),
    attemptedAt: t.field({ type: 'DateTime', description: 'Clock time.', resolve: (row) => row.attemptedAt }),
    status: t.exposeInt('status', { nullable: true, description: 'HTTP status; null when no answer came.' }),
    durationMs: t.exposeInt('durationMs'),
    responseBody: t.exposeString('responseBody', {
      nullable: true,
      description: 'The response body, up to 2 KiB.',
    }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'Why no answer came (connection refused, timeout…).',
    }),
    nextRetryAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Clock time of the retry this attempt scheduled.',
      resolve: (row) => row.nextRetryAt,
    }),
  }),
});

type DeliveryNode = DeliveryLog & { id: string };
const deliveryNode = (log: DeliveryLog): DeliveryNode => ({ ...log, id: log.delivery.id });

const WebhookDeliveryRef = builder.objectRef<DeliveryNode>('WebhookDelivery').implement({
  description: 'An event delivered (or being delivered) to one endpoint, with its attempt log.',
  fields: (t) => ({
    id: t.exposeID('id'),
    eventId: t.string({ resolve: (log) => log.delivery.eventId }),
    eventType: t.exposeString('eventType'),
    endpointId: t.string({ resolve: (log) => log.delivery.endpointId }),
    state: t.string({ description: 'pending, delivered or failed.', resolve: (log) => log.delivery.state }),
    attemptCount: t.int({ resolve: (log) => log.delivery.attempts }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Clock time of the next attempt while pending.',
      resolve: (log) => (log.delivery.state === 'pending' ? log.delivery.nextAttemptAt : null),
    }),
    attempts: t.field({ type: [WebhookAttemptRef], resolve: (log) => log.attempts }),
    createdAt: t.field({ type: 'DateTime', resolve: (log) => log.delivery.createdAt }),
  }),
});

builder.objectField(EventRef, 'deliveries', (t) =>
  t.field({
    type: [WebhookDeliveryRef],
    description: "The event's webhook deliveries with their attempt logs (GET /v1/events/{id}/deliveries).",
    resolve: async (event, _args, ctx) =>
      (await listDeliveries(serviceContext(ctx), event.id)).map(deliveryNode),
  }),
);

const WebhookEndpointRef = builder.objectRef<EndpointView>('WebhookEndpoint').implement({
  description: 'Where events are delivered, signed per Standard Webhooks.',
  fields: (t) => ({
    id: t.exposeID('id'),
    url: t.exposeString('url'),
    description: t.exposeString('description', { nullable: true }),
    enabledEvents: t.exposeStringList('enabledEvents'),
    enabled: t.exposeBoolean('enabled'),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    failingSince: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Clock time of the first failure since the last success.',
      resolve: (row) => row.failingSince,
    }),
    secret: t.string({
      nullable: true,
      description: 'Shown only by createWebhookEndpoint and rotateWebhookSecret.',
      resolve: (row) => (row.showSecret ? row.secret : null),
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
    deliveries: t.connection({
      type: WebhookDeliveryRef,
      description: 'The delivery log: newest event first (GET /v1/webhook_endpoints/{id}/deliveries).',
      resolve: async (row, args, ctx) => {
        const page = await listEndpointDeliveries(serviceContext(ctx), row.id, listQueryOf(args));
        return toConnection({ ...page, data: page.data.map(deliveryNode) }, args);
      },
    }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoint: t.field({
    type: WebhookEndpointRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getEndpoint(serviceContext(ctx), String(args.id))),
  }),
  eventTypes: t.stringList({
    description:
      'Every event type the sandbox emits; endpoints subscribe to these or to "*" (GET /v1/event_types).',
    resolve: () => listEventTypes(),
  }),
  webhookEndpoints: t.connection({
    type: WebhookEndpointRef,
    resolve: async (_root, args, ctx) =>
      toConnection(await listEndpoints(serviceContext(ctx), listQueryOf(args)), args),
  }),
}));

const createEndpointBody = wireInput('createWebhookEndpoint', createEndpointSchema, endpointFieldCodes);
const redeliverBody = wireInput('redeliverEvent', redeliverSchema, undefined, { path: ['id'] });
const updateEndpointBody = wireInput('updateWebhookEndpoint', updateEndpointSchema, endpointFieldCodes, {
  path: ['id'],
});

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointRef,
    errors: { types: [SandbankError] },
    args: {
      url: t.arg.string({ required: true }),
      enabledEvents: t.arg.stringList({ description: 'Event types, or ["*"] (default)' }),
      description: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => ({
      ...(await createEndpoint(serviceContext(ctx), createEndpointBody.parse(createEndpointBody.body(args)))),
      showSecret: true,
    }),
  }),
  updateWebhookEndpoint: t.field({
    type: WebhookEndpointRef,
    errors: { types: [SandbankError] },
    args: {
      id: t.arg.id({ required: true }),
      url: t.arg.string(),
      enabledEvents: t.arg.stringList(),
      enabled: t.arg.boolean(),
      description: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      updateEndpoint(
        serviceContext(ctx),
        String(args.id),
        updateEndpointBody.parse(updateEndpointBody.body(args)),
      ),
  }),
  deleteWebhookEndpoint: t.field({
    type: WebhookEndpointRef,
    errors: { types: [SandbankError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => deleteEndpoint(serviceContext(ctx), String(args.id)),
  }),
  rotateWebhookSecret: t.field({
    type: WebhookEndpointRef,
    errors: { types: [SandbankError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => ({
      ...(await rotateSecret(serviceContext(ctx), String(args.id))),
      showSecret: true,
    }),
  }),
  testWebhookEndpoint: t.field({
    type: 'String',
    errors: { types: [SandbankError] },
    description: 'Sends a webhook.test event to the endpoint; returns the event id.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => sendTestEvent(serviceContext(ctx), String(args.id)),
  }),
  redeliverEvent: t.field({
    type: [WebhookDeliveryRef],
    errors: { types: [SandbankError] },
    description:
      'Queues an event again now, for one endpoint or every subscribed one (POST /v1/events/{id}/redeliver).',
    args: { id: t.arg.id({ required: true }), endpointId: t.arg.id() },
    resolve: async (_root, args, ctx) =>
      (
        await redeliverEvent(
          serviceContext(ctx),
          String(args.id),
          // An empty endpointId counts as none given: every subscribed endpoint.
          redeliverBody.parse(redeliverBody.body({ endpointId: args.endpointId || null })),
        )
      ).map(deliveryNode),
  }),
}));
