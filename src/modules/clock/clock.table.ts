import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { at, updatedAt } from '../../db/columns.ts';

/**
 * A merchant's simulated clock (API.md §8): real time plus an offset, or frozen at an instant.
 * No row means real time. The row is also the lock that serialises a merchant's due work.
 */
export const merchantClocks = pgTable('merchant_clocks', {
  merchantId: text('merchant_id').primaryKey(),
  offsetMs: bigint('offset_ms', { mode: 'number' }).notNull(),
  frozenAt: at('frozen_at'),
  updatedAt: updatedAt(),
});
