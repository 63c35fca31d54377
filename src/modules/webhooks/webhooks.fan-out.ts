import { type SQL, sql } from 'drizzle-orm';
import { dialectCandidatesJson } from './webhooks.dialect.ts';

/**
 * The webhook deliveries of the events a statement writes (the outbox's fan-out, src/db/outbox.ts,
 * registered by this module's manifest): one per event and enabled endpoint of the merchant that
 * wants its type (or every type), due at once. `webhook.test` is sent to its endpoint alone, by the
 * test itself. An endpoint of the Stripe dialect (format `stripe`) gets one when the event may
 * become one of the dialect's events it subscribes to (the registered candidates): that delivery is
 * replaced by the dialect's own when it is leased (webhooks.dialect.ts).
 */
export function webhookDeliveriesCte(createdEvents: SQL): SQL {
  return sql`deliveries AS (
    INSERT INTO webhook_deliveries (id, merchant_id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at, updated_at)
    SELECT 'wd_' || substr(e.id, 5) || substr(w.id, 4), e.merchant_id, e.id, w.id, 'pending', 0, e.created_at, e.created_at, e.created_at
    FROM ${createdEvents} e
    JOIN webhook_endpoints w ON w.merchant_id = e.merchant_id AND w.enabled AND e.type <> 'webhook.test'
      AND CASE WHEN w.format = 'stripe'
        THEN EXISTS (SELECT 1 FROM jsonb_array_elements_text(${dialectCandidatesJson()}::jsonb -> e.type) AS c(type)
          WHERE w.enabled_events @> '["*"]'::jsonb OR w.enabled_events @> jsonb_build_array(c.type))
        ELSE w.enabled_events @> '["*"]'::jsonb OR w.enabled_events @> jsonb_build_array(e.type) END
    RETURNING event_id
  )`;
}
