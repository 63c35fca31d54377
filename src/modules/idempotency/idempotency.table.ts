import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, createdAt } from '../../db/columns.ts';

/** Stored outcomes of keyed POSTs and GraphQL mutations; kept 24 h of the merchant's clock time. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    merchantId: text('merchant_id').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    status: integer('status').notNull(),
    body: text('body').notNull(),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.merchantId, t.key] }),
    index('idempotency_keys_expiry_idx').on(t.merchantId, t.expiresAt),
  ],
);
