import { builder } from '../../graphql/builder.ts';
import { listQueryOf, nullIfNotFound, serviceContext, toConnection } from '../../graphql/context.ts';
import { describedEnum } from '../../graphql/enums.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CREATED_AT, UPDATED_AT } from '../../graphql/texts.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { EventRef } from '../events/events.subscriptions.graphql.ts';
import { listEventTypes } from './webhooks.event-types.ts';
import {
  type AttemptRow,
  attemptsByIds,
  type DeliveryLog,
  type DeliveryRow,
  deliveriesByIds,
  listDeliveries,
  listEndpointDeliveries,
} from './webhooks.log.ts';
import { redeliverEvent } from './webhooks.redeliver.ts';
import {
  createEndpointSchema,
  endpointFieldCodes,
  redeliverSchema,
  updateEndpointSchema,
} from './webhooks.schema.ts';
import { faultOfLabel, type WebhookChaosFault } from './webhooks.sending.ts';
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointRow,
  endpointsByIds,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from './webhooks.service.ts';

type EndpointView = EndpointRow & { showSecret?: boolean };

const DeliveryStateEnum = describedEnum('WebhookDeliveryState', 'Where a webhook delivery stands.', {
  pending: 'Not delivered yet: its next attempt is due at nextAttemptAt.',
  delivered: 'The endpoint answered 2xx.',
  failed: 'Every retry failed, or its endpoint was deleted; redeliverEvent sends the event again.',
} satisfies Record<DeliveryRow['state'], string>);

const WebhookChaosFaultEnum = describedEnum(
  'WebhookChaosFault',
  "A kind of webhook chaos (the merchant's webhookFaults, docs/chaos.md) an attempt carried.",
  {
    duplicate: 'The event was sent a second time right after a 2xx, with the same webhook-id.',
    delay: 'The delivery was held before it was sent (real time).',
    reorder:
      'The delivery was held back until a later event of its endpoint was sent (or at most its longest hold).',
  } satisfies Record<WebhookChaosFault, string>,
);

const WebhookAttemptRef = builder.objectRef<AttemptRow>('WebhookAttempt').implement({
  description: 'One HTTP attempt of a delivery: its clock time, the answer or the error, how long it took.',
  interfaces: [NodeRef],
  fields: (t) => ({
    deliveryId: t.exposeString('deliveryId', { description: 'The id of the delivery it belongs to.' }),
    attemptedAt: t.field({ type: 'DateTime', description: 'Clock time.', resolve: (row) => row.attemptedAt }),
    status: t.exposeInt('status', { nullable: true, description: 'HTTP status; null when no answer came.' }),
    durationMs: t.exposeInt('durationMs', { description: 'How long the request took, in milliseconds.' }),
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
    chaos: t.exposeString('chaos', {
      nullable: true,
      description:
        'The webhook chaos this attempt carried, in words: "duplicate", "delayed 5000ms", "reordered" or "held back 5000ms (no later event passed it)"; null when none.',
    }),
    chaosFault: t.field({
      type: WebhookChaosFaultEnum,
      nullable: true,
      description: 'The kind of webhook chaos this attempt carried; null when none.',
      resolve: (row) => (row.chaos ? faultOfLabel(row.chaos) : null),
    }),
  }),
});

type DeliveryNode = DeliveryLog & { id: string };
const deliveryNode = (log: DeliveryLog): DeliveryNode => ({ ...log, id: log.delivery.id });

const WebhookDeliveryRef = builder.objectRef<DeliveryNode>('WebhookDelivery').implement({
  description: 'An event delivered (or being delivered) to one endpoint, with its attempt log.',
  interfaces: [NodeRef],
  fields: (t) => ({
    eventId: t.string({
      description: 'The id of the event it delivers.',
      resolve: (log) => log.delivery.eventId,
    }),
    eventType: t.exposeString('eventType', { description: "The event's type, e.g. collection.succeeded." }),
    endpointId: t.string({
      description: 'The id of the endpoint it is delivered to.',
      resolve: (log) => log.delivery.endpointId,
    }),
    state: t.field({
      type: DeliveryStateEnum,
      description: 'Where it stands.',
      resolve: (log) => log.delivery.state,
    }),
    attemptCount: t.int({
      description: 'How many attempts were made.',
      resolve: (log) => log.delivery.attempts,
    }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Clock time of the next attempt while pending.',
      resolve: (log) => (log.delivery.state === 'pending' ? log.delivery.nextAttemptAt : null),
    }),
    heldUntil: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'While webhook chaos holds it back (a delay, or a reorder at most until then): the real time (not the clock) at which it is sent; null otherwise.',
      resolve: (log) => (log.delivery.state === 'pending' ? log.delivery.heldUntil : null),
    }),
    attempts: t.field({
      type: [WebhookAttemptRef],
      description: 'Its attempts, oldest first.',
      resolve: (log) => log.attempts,
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was queued (with its event).',
      resolve: (log) => log.delivery.createdAt,
    }),
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
  interfaces: [NodeRef],
  fields: (t) => ({
    url: t.exposeString('url', { description: 'Where deliveries are POSTed.' }),
    description: t.exposeString('description', {
      nullable: true,
      description: "The merchant's note about it.",
    }),
    enabledEvents: t.exposeStringList('enabledEvents', {
      description: 'The event types it receives, or ["*"] for all (eventTypes lists them).',
    }),
    enabled: t.exposeBoolean('enabled', { description: 'Whether deliveries are sent to it.' }),
    disabledReason: t.exposeString('disabledReason', {
      nullable: true,
      description:
        'Why it is disabled: the receiver answered 410 Gone, deliveries failed for 5 days, or the merchant disabled it; null while enabled.',
    }),
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
    createdAt: t.field({ type: 'DateTime', description: CREATED_AT, resolve: (row) => row.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: UPDATED_AT, resolve: (row) => row.updatedAt }),
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

nodeKind('webhookEndpoint', WebhookEndpointRef, endpointsByIds);
nodeKind('webhookDelivery', WebhookDeliveryRef, async (svc, ids) =>
  (await deliveriesByIds(svc, ids)).map(deliveryNode),
);
nodeKind('webhookAttempt', WebhookAttemptRef, attemptsByIds);

builder.queryFields((t) => ({
  webhookEndpoint: t.field({
    type: WebhookEndpointRef,
    nullable: true,
    description:
      'A webhook endpoint by its id (GET /v1/webhook_endpoints/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The endpoint's id (we_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getEndpoint(serviceContext(ctx), String(args.id))),
  }),
  eventTypes: t.stringList({
    description:
      'Every event type the sandbox emits; endpoints subscribe to these or to "*" (GET /v1/event_types).',
    resolve: () => listEventTypes(),
  }),
  webhookEndpoints: t.connection({
    type: WebhookEndpointRef,
    description: 'Webhook endpoints, newest first (GET /v1/webhook_endpoints).',
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
    description: 'POST /v1/webhook_endpoints: a new endpoint; its signing secret is shown this once.',
    args: {
      url: t.arg.string({ required: true, description: 'Where deliveries are POSTed (http or https).' }),
      enabledEvents: t.arg.stringList({ description: 'Event types, or ["*"] (default).' }),
      description: t.arg.string({ description: "The merchant's note about it." }),
    },
    resolve: async (_root, args, ctx) => ({
      ...(await createEndpoint(serviceContext(ctx), createEndpointBody.parse(createEndpointBody.body(args)))),
      showSecret: true,
    }),
  }),
  updateWebhookEndpoint: t.field({
    type: WebhookEndpointRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/webhook_endpoints/{id}: change what is given, leave the rest.',
    args: {
      id: t.arg.id({ required: true, description: "The endpoint's id." }),
      url: t.arg.string({ description: 'Where deliveries are POSTed.' }),
      enabledEvents: t.arg.stringList({ description: 'Event types, or ["*"].' }),
      enabled: t.arg.boolean({
        description: 'false pauses deliveries; true resumes them (and clears disabledReason).',
      }),
      description: t.arg.string({ description: "The merchant's note about it." }),
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
    description:
      'DELETE /v1/webhook_endpoints/{id}: its pending deliveries end as failed; answers with it as it was.',
    args: { id: t.arg.id({ required: true, description: "The endpoint's id." }) },
    resolve: (_root, args, ctx) => deleteEndpoint(serviceContext(ctx), String(args.id)),
  }),
  rotateWebhookSecret: t.field({
    type: WebhookEndpointRef,
    errors: { types: [SandbankError] },
    description:
      'POST /v1/webhook_endpoints/{id}/rotate_secret: a new signing secret, shown this once (the old one still signs for 24 hours).',
    args: { id: t.arg.id({ required: true, description: "The endpoint's id." }) },
    resolve: async (_root, args, ctx) => ({
      ...(await rotateSecret(serviceContext(ctx), String(args.id))),
      showSecret: true,
    }),
  }),
  testWebhookEndpoint: t.field({
    type: 'String',
    errors: { types: [SandbankError] },
    description: 'Sends a webhook.test event to the endpoint; returns the event id.',
    args: { id: t.arg.id({ required: true, description: "The endpoint's id." }) },
    resolve: (_root, args, ctx) => sendTestEvent(serviceContext(ctx), String(args.id)),
  }),
  redeliverEvent: t.field({
    type: [WebhookDeliveryRef],
    errors: { types: [SandbankError] },
    description:
      'Queues an event again now, for one endpoint or every subscribed one (POST /v1/events/{id}/redeliver).',
    args: {
      id: t.arg.id({ required: true, description: "The event's id." }),
      endpointId: t.arg.id({
        description: 'Only this endpoint (default: every endpoint subscribed to the event).',
      }),
    },
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
