import { bigint, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt } from '../../db/columns.ts';

/**
 * A merchant's saved state under a name (`snap_`): every row a reset would delete, its webhook
 * endpoints and its clock, as they were when saved (`rows`: table name → the rows as JSON, kept in
 * the database so that a restore never copies them through the server). Saving a name again
 * replaces it. A reset keeps them; they go with the merchant.
 */
export const sandboxSnapshots = pgTable(
  'sandbox_snapshots',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    name: text('name').notNull(),
    /** The clock's row as saved (offset_ms, frozen_at); null when the merchant had none yet. */
    clock: jsonb('clock').$type<{ offset_ms: number | string; frozen_at: string | null } | null>(),
    rows: jsonb('rows').$type<Record<string, unknown[]>>().notNull(),
    /** Rows per table, for the listing (the rows themselves are never read by the server). */
    counts: jsonb('counts').$type<Record<string, number>>().notNull(),
    createdAt: createdAt(),
    /**
     * The restore's baseline (sandbox.restore.ts): the oldest transaction still running when the
     * statement that saved or last restored it read the merchant's rows, and that statement's own
     * transaction (64-bit ids). Null for a snapshot saved before baselines existed.
     */
    baseXmin: bigint('base_xmin', { mode: 'bigint' }),
    baseXid: bigint('base_xid', { mode: 'bigint' }),
  },
  (t) => [uniqueIndex('sandbox_snapshots_merchant_name').on(t.merchantId, t.name)],
);

export type SnapshotRow = Omit<typeof sandboxSnapshots.$inferSelect, 'rows' | 'baseXmin' | 'baseXid'>;
