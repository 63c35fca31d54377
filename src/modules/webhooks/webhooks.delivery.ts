import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { merchantNowExpression } from '../../db/per-merchant.ts';
import { systemClock } from '../../kernel/clock.ts';
import type { DeliverySlots } from '../../kernel/delivery-slots.ts';
import type { WebhookTransport } from '../../kernel/webhook-transport.ts';
import { attemptAll } from './webhooks.attempt.ts';
import { type Claimed, lease, unleased } from './webhooks.lease.ts';
import type { DeliveryResult } from './webhooks.record.ts';

/** Due deliveries looked at per lease (by due time) when choosing which fit under the caps. */
const LEASE_WINDOW = 1000;

/**
 * Leases up to `limit` deliveries due by their merchant's clock (SKIP LOCKED: several workers share
 * them), earliest first, that fit under the per-merchant and per-endpoint caps given what `slots`
 * has in flight: a merchant or endpoint at its cap is passed over in favour of the others and its
 * deliveries are leased later, when its attempts end. A merchant whose clock advance is still
 * delivering its window (`advancing_until`) is left to that advance: taken now, its deliveries
 * would be attempted at the clock's new time, the window's end, instead of each at its own due time.
 */
export async function leaseDue(db: Db, slots: DeliverySlots, limit: number): Promise<Claimed[]> {
  if (limit <= 0) return [];
  const realNow = systemClock.now();
  const real = sql`${realNow.toISOString()}::timestamptz`;
  const clockNow = merchantNowExpression(realNow);
  const { merchants, endpoints } = slots.busy();
  const { perMerchant, perEndpoint } = slots.limits;
  const merchantBusy = sql`coalesce((${JSON.stringify(merchants)}::jsonb ->> d.merchant_id)::int, 0)`;
  const endpointBusy = sql`coalesce((${JSON.stringify(endpoints)}::jsonb ->> d.endpoint_id)::int, 0)`;
  return lease(
    db,
    sql`SELECT d.id, fit.clock_now
      FROM webhook_deliveries d
      JOIN (
        SELECT ranked.id, ranked.clock_now, ranked.next_attempt_at FROM (
          SELECT d.id, d.clock_now, d.next_attempt_at,
            row_number() OVER (PARTITION BY d.merchant_id ORDER BY d.next_attempt_at, d.id) + ${merchantBusy} AS merchant_load,
            row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) + ${endpointBusy} AS endpoint_load
          FROM (
            SELECT d.id, d.merchant_id, d.endpoint_id, d.next_attempt_at, ${clockNow} AS clock_now
            FROM webhook_deliveries d
            LEFT JOIN merchant_clocks c ON c.merchant_id = d.merchant_id
            WHERE d.state = 'pending' AND ${unleased(realNow)} AND d.next_attempt_at <= ${clockNow}
              AND (c.advancing_until IS NULL OR c.advancing_until < ${real})
              AND ${merchantBusy} < ${perMerchant} AND ${endpointBusy} < ${perEndpoint}
            ORDER BY d.next_attempt_at
            LIMIT ${LEASE_WINDOW}
          ) d
        ) ranked
        WHERE ranked.merchant_load <= ${perMerchant} AND ranked.endpoint_load <= ${perEndpoint}
        ORDER BY ranked.next_attempt_at, ranked.id
        LIMIT ${limit}
      ) fit ON fit.id = d.id
      WHERE d.state = 'pending' AND ${unleased(realNow)}
      FOR UPDATE OF d SKIP LOCKED`,
  );
}

/** How long a clock advance waits between looks at a delivery another worker is attempting. */
const LEASED_ELSEWHERE_POLL_MS = 20;

/**
 * A clock advance's step: the merchant's deliveries due up to `until`, one at a time in due order,
 * each attempted at its own due time, retries that fall inside the window included. It ends when
 * none of the window's deliveries is left pending: one that another worker leased before the
 * advance took its hold (an attempt in flight) is waited for, as its retry may fall inside the
 * window too.
 */
export async function deliverDueForMerchant(
  db: Db,
  transport: WebhookTransport,
  merchantId: string,
  until: Date,
): Promise<DeliveryResult[]> {
  const results: DeliveryResult[] = [];
  const due = sql`d.merchant_id = ${merchantId} AND d.state = 'pending'
    AND d.next_attempt_at <= ${until.toISOString()}::timestamptz`;
  for (let guard = 0; guard < 10_000; guard++) {
    const claimed = await lease(
      db,
      sql`SELECT d.id, d.next_attempt_at AS clock_now
        FROM webhook_deliveries d
        WHERE ${due} AND ${unleased(systemClock.now())}
        ORDER BY d.next_attempt_at, d.id
        LIMIT 1
        FOR UPDATE OF d SKIP LOCKED`,
    );
    const [one] = claimed;
    if (one) {
      // Its attempt counts under the merchant's and the endpoint's caps, with the pump's.
      await transport.slots.acquire(one.merchantId, one.endpointId);
      try {
        results.push(...(await attemptAll(db, transport, claimed)));
      } finally {
        transport.slots.release(one.merchantId, one.endpointId);
      }
      continue;
    }
    // None free: done unless one of the window's deliveries is left (leased elsewhere, or freed
    // since the look above).
    const [left] = await queryRows<{ id: string }>(
      db,
      sql`SELECT d.id FROM webhook_deliveries d WHERE ${due} LIMIT 1`,
    );
    if (!left) return results;
    await new Promise((resolve) => setTimeout(resolve, LEASED_ELSEWHERE_POLL_MS));
  }
  return results;
}

/** The clock-advance hook: webhook deliveries and retries that fall due inside the advanced window. */
export function deliverWebhooksUntil(
  ctx: { db: Db; merchant: { id: string }; webhookTransport: WebhookTransport },
  until: Date,
): Promise<DeliveryResult[]> {
  return deliverDueForMerchant(ctx.db, ctx.webhookTransport, ctx.merchant.id, until);
}
