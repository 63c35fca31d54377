import { pgTable, text } from 'drizzle-orm/pg-core';
import { updatedAt } from '../../db/columns.ts';
import { merchants } from '../merchants/merchants.table.ts';

/**
 * A merchant's chaos setting (docs/chaos.md): the faults injected into every keyed REST request of
 * the merchant that carries no Sandbank-Chaos header, in the chaos grammar's canonical text. No row:
 * no chaos.
 */
export const chaosSettings = pgTable('chaos_settings', {
  merchantId: text('merchant_id')
    .primaryKey()
    .references(() => merchants.id),
  faults: text('faults').notNull(),
  updatedAt: updatedAt(),
});
