import { builder } from '../../graphql/builder.ts';
import { listQueryOf, serviceContext, toConnection } from '../../graphql/context.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { getEvent, listEvents } from './events.service.ts';
import { EventRef } from './events.subscriptions.ts';

builder.queryFields((t) => ({
  event: t.field({
    type: EventRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      try {
        return await getEvent(serviceContext(ctx), String(args.id));
      } catch (error) {
        if (error instanceof SandbankError && error.code === 'resource_not_found') return null;
        throw error;
      }
    },
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
