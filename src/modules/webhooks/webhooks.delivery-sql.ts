import { type SQL, sql } from 'drizzle-orm';

/**
 * The parts of a statement that writes webhook deliveries, shared by the outbox's fan-out
 * (webhooks.fan-out.ts) and a dialect's own events (webhooks.dialect.ts).
 */

/** The columns a new delivery is inserted with (`newDelivery` gives their values, in this order). */
export const DELIVERY_COLUMNS = sql.raw(
  '(id, merchant_id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at, updated_at)',
);

/**
 * The values of a pending delivery of an event to endpoint `endpoint` (an alias), due at `at`; its id
 * is deliveryIdOf's (webhooks.service.ts), so the same pair is never queued twice.
 */
export function newDelivery(event: { id: SQL; merchantId: SQL; at: SQL }, endpoint: string): SQL {
  const w = sql.raw(endpoint);
  return sql`'wd_' || substr(${event.id}, 5) || substr(${w}.id, 4), ${event.merchantId}, ${event.id}, ${w}.id, 'pending', 0, ${event.at}, ${event.at}, ${event.at}`;
}

/** Whether endpoint `endpoint` (an alias) subscribes to events of `type` (a text expression), or to all. */
export function endpointWants(endpoint: string, type: SQL): SQL {
  const w = sql.raw(endpoint);
  return sql`(${w}.enabled_events @> '["*"]'::jsonb OR ${w}.enabled_events @> jsonb_build_array(${type}))`;
}
