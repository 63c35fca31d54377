import { and, desc, eq, lt, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../db/client.ts';
import { insertRecordsSql } from '../../db/json-records.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { toPage } from '../../kernel/pagination.ts';
import { RawJson, toWireJson } from '../../kernel/wire-json.ts';
import type { ServiceContext } from '../context.ts';
import { events } from './events.table.ts';

/** The channel every committed event is announced on (ids only: NOTIFY payloads stay small). */
export const EVENTS_CHANNEL = 'sandbank_events';

export interface EventInput {
  merchantId: string;
  type: string;
  objectId: string;
  data: Record<string, unknown>;
  at: Date;
}

/**
 * SQL that, given a CTE `created_events(id, merchant_id, type, object_id, created_at)` of events
 * just inserted, fans them out to the merchant's enabled webhook endpoints (one delivery per event
 * and endpoint, due at once) and announces them on EVENTS_CHANNEL. Both happen in the statement that
 * writes the events, so deliveries exist exactly when the events commit, and the notification
 * (queued by Postgres until commit) is never sent for a rolled-back transaction.
 */
export function fanOutSql(createdEvents: SQL): SQL {
  return sql`${deliveriesSql(createdEvents)}
  SELECT e.object_id AS id, ${announcementSql('e')} AS notified
  FROM ${createdEvents} e`;
}

/**
 * fanOutSql's two parts as CTEs, for a statement whose own final SELECT returns something else:
 * `deliveries`, and `announced` (one row per event), which that SELECT must read — a CTE that only
 * reads is run only when referenced — e.g. `(SELECT count(*) FROM announced)`.
 */
export function fanOutCtes(createdEvents: SQL): SQL {
  return sql`${deliveriesSql(createdEvents)},
  announced AS (SELECT ${announcementSql('e')} AS notified FROM ${createdEvents} e)`;
}

function deliveriesSql(createdEvents: SQL): SQL {
  return sql`deliveries AS (
    INSERT INTO webhook_deliveries (id, merchant_id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at, updated_at)
    SELECT 'wd_' || substr(e.id, 5) || substr(w.id, 4), e.merchant_id, e.id, w.id, 'pending', 0, e.created_at, e.created_at, e.created_at
    FROM ${createdEvents} e
    JOIN webhook_endpoints w ON w.merchant_id = e.merchant_id AND w.enabled AND e.type <> 'webhook.test'
      AND (w.enabled_events @> '["*"]'::jsonb OR w.enabled_events @> jsonb_build_array(e.type))
    RETURNING event_id
  )`;
}

/** The pg_notify of event row `e` (alias), saying whether it has deliveries to make. */
function announcementSql(e: string): SQL {
  const row = sql.raw(e);
  return sql`pg_notify(${EVENTS_CHANNEL}, json_build_object('id', ${row}.id, 'merchant_id', ${row}.merchant_id, 'type', ${row}.type,
      'object_id', ${row}.object_id, 'deliveries', EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = ${row}.id))::text)`;
}

/**
 * Writes one `evt_` row in the caller's transaction (house rule: the outbox, docs/house-rules.md),
 * with its webhook deliveries and its announcement. `data` is the object as the API renders it
 * after the change; exact decimals survive because jsonb keeps numbers as numeric.
 */
export async function recordEvent(exec: Executor, input: EventInput): Promise<string> {
  const [id] = await recordEvents(exec, [input]);
  return id as string;
}

/**
 * The CTE `created_events(id, merchant_id, type, object_id, created_at)` that inserts `inputs` (ids
 * ascending in input order), for a statement that writes events together with other rows and ends
 * with fanOutSql. `when`, a boolean SQL expression, lets such a statement write its events only if
 * its other parts can (nothing is inserted, and nothing announced, when it is false).
 */
export function createdEventsSql(inputs: EventInput[], when: SQL = sql`true`): { ids: string[]; cte: SQL } {
  const ids = inputs.map(() => newId('event'));
  const rows = inputs.map((input, i) => ({
    id: ids[i] as string,
    merchantId: input.merchantId,
    type: input.type,
    objectId: input.objectId,
    data: new RawJson(toWireJson(input.data)),
    createdAt: input.at,
  }));
  return {
    ids,
    cte: sql`created_events AS (
      ${insertRecordsSql(events, rows, when)}
      RETURNING id, merchant_id, type, object_id, created_at
    )`,
  };
}

/** Several events in one statement (in order: their ids ascend), e.g. authorized then captured. */
export async function recordEvents(exec: Executor, inputs: EventInput[]): Promise<string[]> {
  const { ids, cte } = createdEventsSql(inputs);
  await queryRows(exec, sql`WITH ${cte}, ${fanOutSql(sql.raw('created_events'))}`);
  return ids;
}

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

export async function listEvents(ctx: ServiceContext, query: EventListQuery): Promise<Page<EventRow>> {
  const conditions = [eq(events.merchantId, ctx.merchant.id)];
  if (query.starting_after) conditions.push(lt(events.id, query.starting_after));
  if (query.type) conditions.push(eq(events.type, query.type));
  if (query.object_id) conditions.push(eq(events.objectId, query.object_id));
  const rows = await (ctx.tx ?? ctx.db)
    .select(eventColumns)
    .from(events)
    .where(and(...conditions))
    .orderBy(desc(events.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit);
}

export async function findEvent(exec: Executor, merchantId: string, id: string): Promise<EventRow | null> {
  const [row] = await exec
    .select(eventColumns)
    .from(events)
    .where(and(eq(events.id, id), eq(events.merchantId, merchantId)));
  return row ?? null;
}

export async function getEvent(ctx: ServiceContext, id: string): Promise<EventRow> {
  const row = await findEvent(ctx.tx ?? ctx.db, ctx.merchant.id, id);
  if (!row) throw new SandbankError('resource_not_found', { message: `No event ${id.slice(0, 60)}.` });
  return row;
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
