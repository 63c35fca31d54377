import { pgTable, text } from 'drizzle-orm/pg-core';
import { updatedAt } from '../../db/columns.ts';
import { merchants } from '../merchants/merchants.table.ts';

/**
 * A merchant's chaos setting (docs/guide/chaos.md): the faults injected into every keyed API request of
 * the merchant that carries no Sandbank-Chaos header, in the chaos grammar's canonical text ("none"
 * when only webhook faults are set), and the faults injected into its webhook deliveries. No row:
 * no chaos.
 */
export const chaosSettings = pgTable('chaos_settings', {
  merchantId: text('merchant_id')
    .primaryKey()
    .references(() => merchants.id),
  faults: text('faults').notNull(),
  /** The webhook delivery faults in their grammar's canonical text; null when none. */
  webhookFaults: text('webhook_faults'),
  updatedAt: updatedAt(),
});
