import { builder } from '../../graphql/builder.ts';
import { listQueryOf, nullIfNotFound, serviceContext, toConnection } from '../../graphql/context.ts';
import { nodeKind } from '../../graphql/node.ts';
import { eventsByIds, getEvent, listEvents } from './events.service.ts';
import { EventRef } from './events.subscriptions.graphql.ts';

nodeKind('event', EventRef, eventsByIds);

builder.queryFields((t) => ({
  event: t.field({
    type: EventRef,
    nullable: true,
    description: 'An event by its id (GET /v1/events/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The event's id (evt_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getEvent(serviceContext(ctx), String(args.id))),
  }),
  events: t.connection({
    type: EventRef,
    description: 'Events, newest first; filter by type and object id (GET /v1/events).',
    args: {
      type: t.arg.string({ description: 'Only events of this type, e.g. collection.succeeded.' }),
      objectId: t.arg.string({ description: 'Only the events of this object (its id).' }),
    },
    resolve: async (_root, args, ctx) => {
      const page = await listEvents(serviceContext(ctx), {
        ...listQueryOf(args),
        ...(args.type ? { type: args.type } : {}),
        ...(args.objectId ? { object_id: args.objectId } : {}),
      });
      return toConnection(page, args);
    },
  }),
}));
