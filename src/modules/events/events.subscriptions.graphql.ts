import type { GraphQLContext } from '../../graphql/builder.ts';
import { builder } from '../../graphql/builder.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { EventFilter } from './events.filter.ts';
import { OBJECT_KINDS } from './events.kinds.ts';
import type { EventRow } from './events.service.ts';
import type { BusEvent, EventStream } from './events.subscriber.ts';

const parsedData = new WeakMap<EventRow, Record<string, unknown>>();

/** An event's data as a JSON object, parsed once however many subscribers render it. */
function dataOf(row: EventRow): Record<string, unknown> {
  let data = parsedData.get(row);
  if (!data) {
    data = JSON.parse(row.dataJson) as Record<string, unknown>;
    parsedData.set(row, data);
  }
  return data;
}

/** The object's state after the change: data.object.state, else the type's last segment. */
function stateOf(row: EventRow): string {
  const object = dataOf(row).object as { state?: unknown } | undefined;
  return typeof object?.state === 'string' ? object.state : row.type.slice(row.type.lastIndexOf('.') + 1);
}

/** The GraphQL Event type (reuse this ref for other fields that return events). */
export const EventRef = builder.objectRef<EventRow>('Event').implement({
  description:
    'A state change of an object, as GET /v1/events/{id} and webhooks render it: `<object>.<state>` with the object after the change.',
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeString('type', { description: 'e.g. collection.succeeded' }),
    objectId: t.exposeString('objectId'),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
    data: t.field({
      type: 'JSONObject',
      description: '{object}: the object as the API renders it after the change.',
      resolve: (row) => dataOf(row),
    }),
  }),
});

const TransactionUpdateRef = builder.objectRef<BusEvent>('TransactionUpdate').implement({
  description: 'A transaction object changed state.',
  fields: (t) => ({
    kind: t.string({
      description: `One of ${OBJECT_KINDS.join(', ')}.`,
      resolve: (event) => event.objectKind ?? 'unknown',
    }),
    id: t.id({ description: "The object's id.", resolve: (event) => event.objectId }),
    state: t.string({ description: 'The state after the change.', resolve: (event) => stateOf(event) }),
    eventType: t.exposeString('type'),
    event: t.field({ type: EventRef, resolve: (event) => event }),
  }),
});

/** The authenticated merchant's live stream; never another merchant's events. */
function streamFor(ctx: GraphQLContext, filter: EventFilter): Promise<EventStream> {
  if (!ctx.principal) throw ctx.authError ?? new SandbankError('api_key_missing');
  if (ctx.principal.keyKind !== 'secret') throw new SandbankError('secret_key_required');
  const bus = ctx.deps.eventBus;
  if (!bus)
    throw new SandbankError('internal_error', { message: 'Live events are not available on this server.' });
  return bus.subscribe(ctx.principal.merchant.id, filter);
}

builder.subscriptionType({
  authScopes: { secretKey: true },
  description:
    'Live events over graphql-ws on /graphql (connectionParams: {authorization: "Bearer sk_test_..."}). Delivery is live and at most once; GET /v1/events is the durable record.',
});

builder.subscriptionFields((t) => ({
  events: t.field({
    type: EventRef,
    description: 'Every committed event of the merchant, in commit order; `types` narrows them ("*" is all).',
    args: { types: t.arg.stringList({ description: 'Event types, e.g. ["collection.succeeded"]' }) },
    subscribe: (_root, args, ctx) => streamFor(ctx, { types: args.types }),
    resolve: (event: BusEvent) => event,
  }),
  transactionUpdated: t.field({
    type: TransactionUpdateRef,
    description: `State changes of transaction objects (${OBJECT_KINDS.join(', ')}), optionally only some kinds or ids.`,
    args: {
      kinds: t.arg.stringList({ description: `Any of ${OBJECT_KINDS.join(', ')} (default: all)` }),
      ids: t.arg.idList({ description: 'Object ids (default: all)' }),
    },
    subscribe: (_root, args, ctx) =>
      streamFor(ctx, {
        kinds: args.kinds ?? OBJECT_KINDS,
        objectIds: args.ids?.map(String),
      }),
    resolve: (event: BusEvent) => event,
  }),
}));
