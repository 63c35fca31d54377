import { builder, type GraphQLContext } from '../../graphql/builder.ts';
import { listQueryOf, serviceContext, toConnection } from '../../graphql/context.ts';
import { graphqlObject, registerObjectType } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { EventRef } from '../events/events.subscriptions.graphql.ts';
import { listEventTypes } from './webhooks.event-types.ts';
import {
  type AttemptRow,
  attemptsByIds,
  deliveriesByIds,
  listDeliveries,
  listEndpointDeliveries,
} from './webhooks.log.ts';
import { eventOperations, webhookOperations } from './webhooks.operations.ts';
import { redeliverEvent } from './webhooks.redeliver.ts';
import { type DeliveryNode, deliveryNode, WebhookDelivery, WebhookEndpoint } from './webhooks.resource.ts';
import { redeliverSchema, WebhookChaosFaultValues } from './webhooks.schema.ts';
import { faultOfLabel } from './webhooks.sending.ts';
import { type EndpointRow, endpointsByIds, sendTestEvent } from './webhooks.service.ts';

type EndpointView = EndpointRow & { showSecret?: boolean };
// biome-ignore lint/suspicious/noExplicitAny: connection arguments, read by listQueryOf.
type Args = any;

const WebhookChaosFaultEnum = enumOf(WebhookChaosFaultValues);

const WebhookAttemptRef = builder.objectRef<AttemptRow>('WebhookAttempt').implement({
  description: 'One HTTP attempt of a delivery: its clock time, the answer or the error, how long it took.',
  interfaces: [NodeRef],
  fields: (t) => ({
    deliveryId: t.exposeString('deliveryId', { description: 'The id of the delivery it belongs to.' }),
    attemptedAt: t.expose('attemptedAt', { type: 'DateTime', description: 'Clock time.' }),
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
    nextRetryAt: t.expose('nextRetryAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Clock time of the retry this attempt scheduled.',
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

const WebhookDeliveryRef = graphqlObject<DeliveryNode>(WebhookDelivery, {
  interfaces: [NodeRef],
  names: { event: 'eventId', endpoint: 'endpointId' },
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    attempts: t.field({
      type: [WebhookAttemptRef],
      description: 'Its attempts, oldest first.',
      resolve: (log: DeliveryNode) => log.attempts,
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

const WebhookEndpointRef = graphqlObject<EndpointView>(WebhookEndpoint, {
  interfaces: [NodeRef],
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    secret: t.string({
      nullable: true,
      description: 'Shown only by createWebhookEndpoint and rotateWebhookSecret.',
      resolve: (row: EndpointView) => (row.showSecret ? row.secret : null),
    }),
    deliveries: t.connection({
      type: WebhookDeliveryRef,
      description: 'The delivery log: newest event first (GET /v1/webhook_endpoints/{id}/deliveries).',
      resolve: async (row: EndpointView, args: Args, ctx: GraphQLContext) => {
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

registerObjectType('Event', EventRef);
mountGraphqlOperations(eventOperations);
mountGraphqlOperations(webhookOperations);

builder.queryFields((t) => ({
  eventTypes: t.stringList({
    description:
      'Every event type the sandbox emits; endpoints subscribe to these or to "*" (GET /v1/event_types).',
    resolve: () => listEventTypes(),
  }),
}));

const redeliverBody = wireInput('redeliverEvent', redeliverSchema, undefined, { path: ['id'] });

builder.mutationFields((t) => ({
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
