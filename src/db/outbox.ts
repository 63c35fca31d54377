import { AsyncLocalStorage } from 'node:async_hooks';
import { type SQL, sql } from 'drizzle-orm';
import { newId } from '../kernel/ids.ts';
import { RawJson, toWireJson } from '../kernel/wire-json.ts';
import { type Executor, queryRows } from './client.ts';
import { events } from './events.table.ts';
import { insertRecords } from './json-records.ts';

/*
 * The outbox (docs/internals/house-rules.md): every change writes its events in the same statement or
 * transaction as the change itself, with what they fan out to and their announcement.
 */

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
 * What the events a statement writes fan out to, in that same statement: given the CTE
 * `created_events(id, merchant_id, type, object_id, created_at)`, a CTE named `deliveries` that writes
 * the work the events cause and returns the `event_id` of each row it wrote. src/db names no module:
 * the fan-out is registered from outside (the webhooks module's manifest, src/modules/webhooks/index.ts:
 * one delivery per enabled endpoint that wants the type); until one is, events fan out to nothing.
 */
export type EventFanOut = (createdEvents: SQL) => SQL;

const NO_FAN_OUT: EventFanOut = () => sql`deliveries AS (SELECT NULL::text AS event_id WHERE false)`;
let deliveriesCte: EventFanOut = NO_FAN_OUT;

/** Set while a caller writes events that fan out to nothing (withoutFanOut). */
const quiet = new AsyncLocalStorage<true>();

/**
 * Runs `work` with the events it writes fanned out to nothing: stored and announced, delivered by
 * no webhook (a conformance run delivers its objects' events itself, to the endpoint it judges).
 * Only for work that writes in a transaction of its own caller: the group commit builds its
 * statements outside the caller's async context.
 */
export function withoutFanOut<T>(work: () => Promise<T>): Promise<T> {
  return quiet.run(true, work);
}

/** Sets what every event fans out to (registered once at start-up, src/modules/index.ts). */
export function registerEventFanOut(fanOut: EventFanOut): void {
  deliveriesCte = fanOut;
}

/**
 * The CTEs that, given a CTE `created_events(id, merchant_id, type, object_id, created_at)` of
 * events just inserted, fan them out (`deliveries`, the registered EventFanOut) and announce them on
 * EVENTS_CHANNEL (`announced`, one row per event). Both happen in the statement that writes the
 * events, so deliveries exist exactly when the events commit, and the notification (queued by
 * Postgres until commit) is never sent for a rolled-back transaction. The statement's final SELECT
 * must read `announced` — a CTE that only reads is run only when referenced — e.g.
 * `(SELECT count(*) FROM announced)`.
 */
export function fanOut(createdEvents: SQL): SQL {
  const deliveries = quiet.getStore() ? NO_FAN_OUT : deliveriesCte;
  return sql`${deliveries(createdEvents)},
  announced AS (SELECT ${announcement('e')} AS notified FROM ${createdEvents} e)`;
}

/** The pg_notify of event row `e` (alias), saying whether it has deliveries to make. */
function announcement(e: string): SQL {
  const row = sql.raw(e);
  return sql`pg_notify(${EVENTS_CHANNEL}, json_build_object('id', ${row}.id, 'merchant_id', ${row}.merchant_id, 'type', ${row}.type,
      'object_id', ${row}.object_id, 'deliveries', EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = ${row}.id))::text)`;
}

/**
 * Writes one `evt_` row in the caller's transaction (house rule: the outbox, docs/internals/house-rules.md),
 * with what it fans out to and its announcement. `data` is the object as the API renders it
 * after the change; exact decimals survive because jsonb keeps numbers as numeric.
 */
export async function recordEvent(exec: Executor, input: EventInput): Promise<string> {
  const [id] = await recordEvents(exec, [input]);
  return id as string;
}

/**
 * The CTE `created_events(id, merchant_id, type, object_id, created_at)` that inserts `inputs` (ids
 * ascending in input order), for a statement that writes events together with other rows and ends
 * with fanOut. `when`, a boolean SQL expression, lets such a statement write its events only if
 * its other parts can (nothing is inserted, and nothing announced, when it is false).
 */
export function createdEventsCte(inputs: EventInput[], when: SQL = sql`true`): { ids: string[]; cte: SQL } {
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
      ${insertRecords(events, rows, when)}
      RETURNING id, merchant_id, type, object_id, created_at
    )`,
  };
}

/** Several events in one statement (in order: their ids ascend), e.g. authorized then captured. */
export async function recordEvents(exec: Executor, inputs: EventInput[]): Promise<string[]> {
  const { ids, cte } = createdEventsCte(inputs);
  await queryRows(
    exec,
    sql`WITH ${cte}, ${fanOut(sql.raw('created_events'))} SELECT count(*) FROM announced`,
  );
  return ids;
}

/**
 * The event of an object's change: its `type`, the object as the API renders it after the change,
 * at the row's updatedAt (the moment of the change on the merchant's clock).
 */
export function objectEvent(
  row: { id: string; merchantId: string; updatedAt: Date },
  type: string,
  object: Record<string, unknown>,
): EventInput {
  return { merchantId: row.merchantId, type, objectId: row.id, data: { object }, at: row.updatedAt };
}
