import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { purgePerMerchant } from '../../db/per-merchant.ts';

/**
 * The delivery log is kept 30 days of the merchant's clock: attempts made that long ago, and
 * deliveries that ended (delivered or failed) that long ago. Pending deliveries are kept.
 */
export const DELIVERY_LOG_RETENTION_DAYS = 30;

const logCutoff = (now: SQL) => sql`${now} - make_interval(days => ${DELIVERY_LOG_RETENTION_DAYS})`;

/** Retention: deletes up to `limit` attempts made DELIVERY_LOG_RETENTION_DAYS ago or more. */
export function purgeOldAttempts(db: Db, realNow: Date, limit: number): Promise<number> {
  return purgePerMerchant(db, realNow, limit, {
    table: 'webhook_attempts',
    where: (now) => sql`t.attempted_at <= ${logCutoff(now)}`,
  });
}

/** Retention: deletes up to `limit` deliveries that ended DELIVERY_LOG_RETENTION_DAYS ago or more. */
export function purgeEndedDeliveries(db: Db, realNow: Date, limit: number): Promise<number> {
  return purgePerMerchant(db, realNow, limit, {
    table: 'webhook_deliveries',
    where: (now) => sql`t.state <> 'pending' AND t.updated_at <= ${logCutoff(now)}`,
  });
}
