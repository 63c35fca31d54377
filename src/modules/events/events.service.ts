import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { events } from '../../db/events.table.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { dbOf, type ServiceContext } from '../context.ts';

export {
  createdEventsCte,
  EVENTS_CHANNEL,
  type EventInput,
  fanOut,
  recordEvent,
  recordEvents,
} from '../../db/outbox.ts';

export interface EventRow {
  id: string;
  merchantId: string;
  type: string;
  objectId: string;
  /** The event's data as the database keeps it (exact decimals). */
  dataJson: string;
  createdAt: Date;
}

/** The columns of an EventRow (data as its exact JSON text). */
export const eventColumns = {
  id: events.id,
  merchantId: events.merchantId,
  type: events.type,
  objectId: events.objectId,
  dataJson: sql<string>`${events.data}::text`,
  createdAt: events.createdAt,
};

export interface EventListQuery extends ListQuery {
  type?: string | undefined;
  object_id?: string | undefined;
}

export function listEvents(ctx: ServiceContext, query: EventListQuery): Promise<Page<EventRow>> {
  const filters = [
    query.type ? eq(events.type, query.type) : undefined,
    query.object_id ? eq(events.objectId, query.object_id) : undefined,
  ];
  return merchantPage(ctx, events, query, filters, eventColumns);
}

export async function findEvent(exec: Executor, merchantId: string, id: string): Promise<EventRow | null> {
  const [row] = await exec
    .select(eventColumns)
    .from(events)
    .where(and(eq(events.id, id), eq(events.merchantId, merchantId)));
  return row ?? null;
}

export async function getEvent(ctx: ServiceContext, id: string): Promise<EventRow> {
  const row = await findEvent(dbOf(ctx), ctx.merchant.id, id);
  if (!row) throw new SandbankError('resource_not_found', { message: `No event ${id.slice(0, 60)}.` });
  return row;
}

/** The merchant's events among `ids` (GraphQL's nodes(ids:)). */
export function eventsByIds(ctx: ServiceContext, ids: string[]): Promise<EventRow[]> {
  return merchantRowsByIds<EventRow>(ctx, events, ids, [], eventColumns);
}

export interface TimelineEntry {
  state: string;
  eventType: string;
  eventId: string;
  at: Date;
}

/** An object's state changes, oldest first, from its events (the state is the type's last segment). */
export async function timelineOf(
  exec: Executor,
  merchantId: string,
  objectId: string,
): Promise<TimelineEntry[]> {
  const rows = await exec
    .select({ id: events.id, type: events.type, createdAt: events.createdAt })
    .from(events)
    .where(and(eq(events.merchantId, merchantId), eq(events.objectId, objectId)))
    .orderBy(events.id);
  return rows.map((row) => ({
    state: row.type.slice(row.type.lastIndexOf('.') + 1),
    eventType: row.type,
    eventId: row.id,
    at: row.createdAt,
  }));
}
