import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import type { Change, EffectKind } from '../../db/commit.ts';
import type { EventRow } from '../events/events.service.ts';
import { DELIVERY_COLUMNS, endpointWants, newDelivery } from './webhooks.delivery-sql.ts';
import { ALL_EVENTS } from './webhooks.event-types.ts';
import type { Claimed } from './webhooks.lease.ts';
import { queueDelivery } from './webhooks.service.ts';
import { webhookDeliveries, webhookEndpoints } from './webhooks.table.ts';

/**
 * Endpoints of another API's dialect (format `stripe`: the Stripe dialect's): they are sent that
 * dialect's events, shaped and signed its way, through the same deliveries, retries, caps and
 * chaos as every endpoint. The dialect registers what it makes of the native events (reactions.ts);
 * this module names no dialect's module.
 *
 * A native event is written with a delivery to each such endpoint that may want one of the events
 * it becomes (the fan-out, in the event's statement: nothing is lost). When that delivery is
 * leased, the dialect makes its events of the native event (written once) and the delivery is
 * replaced by one delivery per event the endpoint subscribes to, due at the same time; those are
 * then leased and sent as any delivery is, their bodies the dialect's.
 */

/** One of a dialect's events: its id, its type, when it happened (clock time). */
export interface DialectEvent {
  id: string;
  type: string;
  at: Date;
}

/** A dialect event's body as sent: its JSON text, with the id of the object it is about. */
export interface DialectBody {
  type: string;
  objectId: string;
  json: string;
  createdAt: Date;
}

export interface EventDialect {
  /** By native event type, the dialect's event types it may become (what the fan-out filters by). */
  candidates: Readonly<Record<string, readonly string[]>>;
  /** The dialect's events of a native event, made once (the same ids and bodies every time). */
  project(db: Db, event: EventRow): Promise<DialectEvent[]>;
  /** The bodies of the merchant's dialect events among `ids` (those it has). */
  bodies(db: Db, merchantId: string, ids: string[]): Promise<Map<string, DialectBody>>;
}

let dialect: EventDialect | null = null;
let candidatesJson = '{}';

/** Registers the dialect of the endpoints of format `stripe` (once, at start-up: reactions.ts). */
export function registerEventDialect(registered: EventDialect): void {
  dialect = registered;
  candidatesJson = JSON.stringify(registered.candidates);
}

/** The registered candidates as JSON, a parameter of the fan-out's statement. */
export function dialectCandidatesJson(): string {
  return candidatesJson;
}

/** Whether an endpoint subscribed with `enabledEvents` wants events of `type`. */
export function wants(enabledEvents: readonly string[], type: string): boolean {
  return enabledEvents.includes(ALL_EVENTS) || enabledEvents.includes(type);
}

async function endpointsOf(exec: Executor, merchantId: string, format: 'stripe') {
  return exec
    .select({ id: webhookEndpoints.id, enabledEvents: webhookEndpoints.enabledEvents })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.merchantId, merchantId),
        eq(webhookEndpoints.format, format),
        eq(webhookEndpoints.enabled, true),
      ),
    );
}

/**
 * A dialect's events, written by the dialect itself (an event no native one stands for), with a
 * delivery to each enabled endpoint of that format that wants it, in the caller's transaction.
 */
export async function queueDialectEvents(
  exec: Executor,
  merchantId: string,
  format: 'stripe',
  events: readonly DialectEvent[],
): Promise<void> {
  if (events.length === 0) return;
  const endpoints = await endpointsOf(exec, merchantId, format);
  for (const event of events)
    for (const endpoint of endpoints)
      if (wants(endpoint.enabledEvents, event.type))
        await queueDelivery(exec, merchantId, event.id, endpoint.id, event.at);
}

/** A dialect's events queued as part of a change: the deliveries are the change's effect. */
interface QueuedDialectEvents {
  merchantId: string;
  format: 'stripe';
  events: readonly DialectEvent[];
}

/**
 * The deliveries of dialect events written by a change (the group commit's statement, or the change's
 * transaction step by step): one to each enabled endpoint of the format that wants the event, as
 * the endpoints stand when the change is written. In the statement, the endpoints are read by the
 * statement itself (no query before it). Only for events new with the change (their ids drawn for
 * it): the statement leaves a delivery that exists as it is, where queueDelivery would requeue it.
 */
const DIALECT_EVENT = {
  id: sql.raw('d.event_id'),
  merchantId: sql.raw('d.merchant_id'),
  at: sql.raw('d.at'),
};

const dialectDeliveries: EffectKind<QueuedDialectEvents> = {
  statement(items) {
    const rows = items.flatMap((item) =>
      item.events.map((event) => ({
        merchant_id: item.merchantId,
        format: item.format,
        event_id: event.id,
        type: event.type,
        at: event.at.toISOString(),
      })),
    );
    return {
      checks: sql`dialect_events AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS d(merchant_id text, format text, event_id text, type text, at timestamptz))`,
      ready: sql`true`,
      writes: (ok) => sql`dialect_deliveries AS (
        INSERT INTO webhook_deliveries ${DELIVERY_COLUMNS}
        SELECT ${newDelivery(DIALECT_EVENT, 'w')}
        FROM dialect_events d
        JOIN webhook_endpoints w ON w.merchant_id = d.merchant_id AND w.format = d.format AND w.enabled
          AND ${endpointWants('w', sql.raw('d.type'))}
        WHERE ${ok}
        ON CONFLICT (id) DO NOTHING
      )`,
    };
  },
  lockAll: async () => {},
  eventsOf: () => [],
  apply: (tx, item) => queueDialectEvents(tx, item.merchantId, item.format, item.events),
};

/**
 * The same deliveries as part of a change that has no transaction of its own (the group commit
 * writes them with it): for a dialect event written with such a change.
 */
export function queueDialectEventsWith(
  work: Change,
  merchantId: string,
  format: 'stripe',
  events: readonly DialectEvent[],
): Change {
  if (events.length === 0) return work;
  return work.effect(dialectDeliveries, { merchantId, format, events });
}

/**
 * Replaces a leased delivery of a native event to a dialect's endpoint by the deliveries of the
 * dialect's events the endpoint wants (none: it just goes), in one transaction.
 */
async function expand(db: Db, claimed: Claimed, event: EventRow, endpointEvents: readonly string[]) {
  const events = dialect ? await dialect.project(db, event) : [];
  await db.transaction(async (tx) => {
    for (const made of events)
      if (wants(endpointEvents, made.type))
        await queueDelivery(tx, claimed.merchantId, made.id, claimed.endpointId, claimed.nextAttemptAt);
    await tx
      .delete(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, claimed.id), eq(webhookDeliveries.state, 'pending')));
  });
}

/**
 * Readies leased deliveries for their attempts: those of native events to a dialect's (enabled)
 * endpoint are expanded into the dialect's deliveries and are not attempted; those of a dialect's
 * events get the event's body (as their `event`). Answers the deliveries to attempt now, in claim order.
 */
export async function readyDialectDeliveries(db: Db, claimed: Claimed[]): Promise<Claimed[]> {
  const ready: Claimed[] = [];
  const bodiesWanted = new Map<string, string[]>();
  for (const c of claimed) {
    const endpoint = c.endpoint;
    if (endpoint?.format !== 'stripe' || !endpoint.enabled) ready.push(c);
    else if (c.event) await expand(db, c, c.event, endpoint.enabledEvents);
    else {
      ready.push(c);
      bodiesWanted.set(c.merchantId, [...(bodiesWanted.get(c.merchantId) ?? []), c.eventId]);
    }
  }
  if (!dialect || bodiesWanted.size === 0) return ready;
  const bodies = new Map<string, DialectBody>();
  for (const [merchantId, ids] of bodiesWanted)
    for (const [id, body] of await dialect.bodies(db, merchantId, ids)) bodies.set(id, body);
  // Filled in place: the pump counts its slots by the claimed objects themselves.
  for (const c of ready) {
    const body = c.endpoint?.format === 'stripe' ? bodies.get(c.eventId) : undefined;
    if (body)
      c.event = {
        id: c.eventId,
        merchantId: c.merchantId,
        type: body.type,
        objectId: body.objectId,
        dataJson: body.json,
        createdAt: body.createdAt,
      };
  }
  return ready;
}

/** How many deliveries of each of the merchant's events among `ids` are still pending. */
export async function pendingDeliveryCounts(
  exec: Executor,
  merchantId: string,
  ids: readonly string[],
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await exec
    .select({ eventId: webhookDeliveries.eventId, n: sql<number>`count(*)::int` })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.merchantId, merchantId),
        inArray(webhookDeliveries.eventId, [...ids]),
        eq(webhookDeliveries.state, 'pending'),
      ),
    )
    .groupBy(webhookDeliveries.eventId);
  return new Map(rows.map((row) => [row.eventId, Number(row.n)]));
}
