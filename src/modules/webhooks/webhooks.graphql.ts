import { builder } from '../../graphql/builder.ts';
import { listQueryOf, nullIfNotFound, serviceContext, toConnection } from '../../graphql/context.ts';
import { SandbankError } from '../../kernel/errors.ts';
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

const WebhookEndpointRef = builder.objectRef<EndpointView>('WebhookEndpoint').implement({
  description: 'Where events are delivered, signed per Standard Webhooks.',
  fields: (t) => ({
    id: t.exposeID('id'),
    url: t.exposeString('url'),
    description: t.exposeString('description', { nullable: true }),
    enabledEvents: t.exposeStringList('enabledEvents'),
    enabled: t.exposeBoolean('enabled'),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    secret: t.string({
      nullable: true,
      description: 'Shown only by createWebhookEndpoint and rotateWebhookSecret.',
      resolve: (row) => (row.showSecret ? row.secret : null),
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
  }),
});

const withoutNulls = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null && value !== undefined));

builder.queryFields((t) => ({
  webhookEndpoint: t.field({
    type: WebhookEndpointRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getEndpoint(serviceContext(ctx), String(args.id))),
  }),
  webhookEndpoints: t.connection({
    type: WebhookEndpointRef,
    resolve: async (_root, args, ctx) =>
      toConnection(await listEndpoints(serviceContext(ctx), listQueryOf(args)), args),
  }),
}));

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
      ...(await createEndpoint(
        serviceContext(ctx),
        withoutNulls({ url: args.url, enabled_events: args.enabledEvents, description: args.description }),
      )),
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
        withoutNulls({
          url: args.url,
          enabled_events: args.enabledEvents,
          enabled: args.enabled,
          description: args.description,
        }),
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
}));
