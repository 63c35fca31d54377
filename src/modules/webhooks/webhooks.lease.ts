import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { systemClock } from '../../kernel/clock.ts';
import type { EventRow } from '../events/events.service.ts';
import type { webhookEndpoints } from './webhooks.table.ts';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

const LEASE_MS = 60_000;

/** A leased delivery with what sending it needs, to be attempted at merchant clock time `at`. */
export interface Claimed {
  id: string;
  merchantId: string;
  /** The delivery's endpoint (also when the endpoint itself is gone: `endpoint` is then null). */
  endpointId: string;
  /**
   * The id of the event it delivers. A Stripe dialect event has no row in `events`: `event` is then
   * filled in from the dialect before it is sent (webhooks.dialect.ts).
   */
  eventId: string;
  attempts: number;
  nextAttemptAt: Date;
  at: Date;
  endpoint: Pick<
    EndpointRow,
    | 'id'
    | 'url'
    | 'enabled'
    | 'secret'
    | 'previousSecret'
    | 'previousSecretExpiresAt'
    | 'failingSince'
    | 'format'
    | 'enabledEvents'
  > | null;
  event: EventRow | null;
  /** The webhook chaos plan drawn for this series while it was held back (null: none drawn or held). */
  chaos: string | null;
  /** Held back for reorder, and a later event of the same endpoint has been sent since. */
  passed: boolean;
}

interface ClaimedRow {
  id: string;
  merchantId: string;
  deliveryEndpointId: string;
  deliveryEventId: string;
  attempts: number;
  nextAttemptAt: number;
  at: number;
  endpointId: string | null;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  failingSince: number | null;
  format: EndpointRow['format'];
  enabledEvents: string;
  eventId: string | null;
  type: string;
  objectId: string;
  dataJson: string;
  createdAt: number;
  chaos: string | null;
  passed: boolean;
}

/** A timestamp as epoch milliseconds (float8 reads back as a number from both drivers). */
const epochMs = (column: string) => sql.raw(`round(extract(epoch FROM ${column}) * 1000)::float8`);
const dateOrNull = (ms: number | null) => (ms === null ? null : new Date(ms));

/**
 * Leases the deliveries `due` selects (a query of `(id, clock_now)` that locks with SKIP LOCKED) and
 * loads what sending them needs — endpoint and event — in the same statement, in due order.
 */
export async function lease(db: Db, due: SQL): Promise<Claimed[]> {
  const leaseUntil = new Date(systemClock.now().getTime() + LEASE_MS).toISOString();
  const rows = await queryRows<ClaimedRow>(
    db,
    sql`WITH due AS (${due}),
    leased AS (
      UPDATE webhook_deliveries w SET lease_until = ${leaseUntil}::timestamptz
      FROM due WHERE w.id = due.id
      RETURNING w.id, w.merchant_id, w.event_id, w.endpoint_id, w.attempts, w.next_attempt_at, w.chaos, due.clock_now
    )
    SELECT l.id, l.merchant_id AS "merchantId", l.endpoint_id AS "deliveryEndpointId", l.event_id AS "deliveryEventId", l.attempts, ${epochMs('l.next_attempt_at')} AS "nextAttemptAt",
      ${epochMs('l.clock_now')} AS "at",
      ep.id AS "endpointId", ep.url, ep.enabled, ep.secret, ep.previous_secret AS "previousSecret",
      ${epochMs('ep.previous_secret_expires_at')} AS "previousSecretExpiresAt",
      ${epochMs('ep.failing_since')} AS "failingSince", ep.format, ep.enabled_events::text AS "enabledEvents",
      e.id AS "eventId", e.type, e.object_id AS "objectId", e.data::text AS "dataJson",
      ${epochMs('e.created_at')} AS "createdAt",
      l.chaos, (l.chaos LIKE 'reorder%' AND ${laterSent('l')}) IS TRUE AS passed
    FROM leased l
    LEFT JOIN webhook_endpoints ep ON ep.id = l.endpoint_id
    LEFT JOIN events e ON e.id = l.event_id AND e.merchant_id = l.merchant_id
    ORDER BY l.next_attempt_at, l.id`,
  );
  return rows.map((row) => ({
    id: row.id,
    merchantId: row.merchantId,
    endpointId: row.deliveryEndpointId,
    eventId: row.deliveryEventId,
    attempts: row.attempts,
    nextAttemptAt: new Date(row.nextAttemptAt),
    at: new Date(row.at),
    endpoint: row.endpointId
      ? {
          id: row.endpointId,
          url: row.url,
          enabled: row.enabled,
          secret: row.secret,
          previousSecret: row.previousSecret,
          previousSecretExpiresAt: dateOrNull(row.previousSecretExpiresAt),
          failingSince: dateOrNull(row.failingSince),
          format: row.format,
          enabledEvents: JSON.parse(row.enabledEvents) as string[],
        }
      : null,
    event: row.eventId
      ? {
          id: row.eventId,
          merchantId: row.merchantId,
          type: row.type,
          objectId: row.objectId,
          dataJson: row.dataJson,
          createdAt: new Date(row.createdAt),
        }
      : null,
    chaos: row.chaos,
    passed: row.passed === true,
  }));
}

/**
 * Whether a later event of the same endpoint than delivery `alias` has been sent (a delivery's id
 * is its event's id then its endpoint's, so an endpoint's deliveries sort by event).
 */
const laterSent = (alias: string) =>
  sql.raw(`EXISTS (SELECT 1 FROM webhook_deliveries later
    WHERE later.endpoint_id = ${alias}.endpoint_id AND later.id > ${alias}.id
      AND (later.attempts > 0 OR later.state = 'delivered'))`);

/**
 * Whether a delivery may be taken now: nobody holds its lease (a lease outlives a crashed worker by
 * at most LEASE_MS) and webhook chaos does not hold it back (docs/guide/chaos.md): a delay until its
 * time, a reorder until a later event of its endpoint has been sent or its longest hold is over.
 */
export const unleased = (realNow: Date) => {
  const now = sql`${realNow.toISOString()}::timestamptz`;
  return sql`(d.lease_until IS NULL OR d.lease_until < ${now})
    AND (d.held_until IS NULL OR d.held_until <= ${now} OR (d.chaos LIKE 'reorder%' AND ${laterSent('d')}))`;
};
