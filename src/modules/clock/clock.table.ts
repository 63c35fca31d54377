import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { at, updatedAt } from '../../db/columns.ts';

/**
 * A merchant's simulated clock: real time plus an offset, or frozen at an instant.
 * No row means real time. The row is also the lock that serialises a merchant's due work.
 */
export const merchantClocks = pgTable('merchant_clocks', {
  merchantId: text('merchant_id').primaryKey(),
  offsetMs: bigint('offset_ms', { mode: 'number' }).notNull(),
  frozenAt: at('frozen_at'),
  updatedAt: updatedAt(),
  /**
   * The clock advance still finishing its window's work after its commit (webhook deliveries and
   * retries, each at its own due time, before it answers), and the real time its hold lapses should
   * it die (renewed while it works). Until then the background delivery worker leaves this
   * merchant's deliveries to it.
   */
  advancingId: text('advancing_id'),
  advancingUntil: at('advancing_until'),
  /**
   * While an advance is still running its window's due work (in batches, each its own
   * transaction): the instant it is taking the clock to. Meanwhile the clock reads the due time of
   * the work done last, the background runner leaves the merchant's jobs to the advance, and
   * another change of the clock waits for it. Null once the jobs are done (or never started).
   */
  advancingTo: at('advancing_to'),
});
