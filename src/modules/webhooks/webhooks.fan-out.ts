import { type SQL, sql } from 'drizzle-orm';
import { DELIVERY_COLUMNS, endpointWants, newDelivery } from './webhooks.delivery-sql.ts';
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
  const e = { id: sql.raw('e.id'), merchantId: sql.raw('e.merchant_id'), at: sql.raw('e.created_at') };
  return sql`deliveries AS (
    INSERT INTO webhook_deliveries ${DELIVERY_COLUMNS}
    SELECT ${newDelivery(e, 'w')}
    FROM ${createdEvents} e
    JOIN webhook_endpoints w ON w.merchant_id = e.merchant_id AND w.enabled AND e.type <> 'webhook.test'
      AND CASE WHEN w.format = 'stripe'
        THEN EXISTS (SELECT 1 FROM jsonb_array_elements_text(${dialectCandidatesJson()}::jsonb -> e.type) AS c(type)
          WHERE ${endpointWants('w', sql.raw('c.type'))})
        ELSE ${endpointWants('w', sql.raw('e.type'))} END
    RETURNING event_id
  )`;
}
