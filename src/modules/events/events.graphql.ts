import { builder } from '../../graphql/builder.ts';
import { listQueryOf, nullIfNotFound, serviceContext, toConnection } from '../../graphql/context.ts';
import { getEvent, listEvents } from './events.service.ts';
import { EventRef } from './events.subscriptions.graphql.ts';

builder.queryFields((t) => ({
  event: t.field({
    type: EventRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getEvent(serviceContext(ctx), String(args.id))),
  }),
  events: t.connection({
    type: EventRef,
    description: 'Events, newest first; filter by type and object id (GET /v1/events).',
    args: { type: t.arg.string(), objectId: t.arg.string() },
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
