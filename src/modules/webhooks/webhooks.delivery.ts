import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { systemClock } from '../../kernel/clock.ts';
import { merchantNowExpression } from '../clock/clock.sql.ts';
import { attemptAll, type DeliveryResult } from './webhooks.attempt.ts';
import { lease, unleased } from './webhooks.lease.ts';
import type { WebhookTransport } from './webhooks.transport.ts';

/**
 * One step of the background worker: leases up to `limit` deliveries due by their merchant's clock
 * (SKIP LOCKED: several workers share them), sends them in parallel and records them together.
 * Returns how many it attempted. A merchant whose clock advance is still delivering its window
 * (`advancing_until`) is left to that advance: taken now, its deliveries would be attempted at the
 * clock's new time, the window's end, instead of each at its own due time.
 */
export async function deliverDueBatch(db: Db, transport: WebhookTransport, limit: number): Promise<number> {
  const realNow = systemClock.now();
  const real = sql`${realNow.toISOString()}::timestamptz`;
  const clockNow = merchantNowExpression(realNow);
  const claimed = await lease(
    db,
    sql`SELECT d.id, ${clockNow} AS clock_now
      FROM webhook_deliveries d
      LEFT JOIN merchant_clocks c ON c.merchant_id = d.merchant_id
      WHERE d.state = 'pending' AND ${unleased(realNow)} AND d.next_attempt_at <= ${clockNow}
        AND (c.advancing_until IS NULL OR c.advancing_until < ${real})
      ORDER BY d.next_attempt_at
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED`,
  );
  await attemptAll(db, transport, claimed);
  return claimed.length;
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
    if (claimed.length > 0) {
      results.push(...(await attemptAll(db, transport, claimed)));
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
