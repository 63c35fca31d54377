import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { at, createdAt } from '../../db/columns.ts';

export const merchants = pgTable(
  'merchants',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: createdAt(),
  },
  // At most one default merchant, even when several instances bootstrap an empty database at once.
  (t) => [uniqueIndex('merchants_one_default_uq').on(t.isDefault).where(sql`${t.isDefault}`)],
);

/** API keys, stored as SHA-256 hashes of the full key; of a secret key only the last 4 characters stay readable. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    kind: text('kind', { enum: ['secret', 'public'] }).notNull(),
    keyHash: text('key_hash').notNull().unique(),
    last4: text('last4').notNull(),
    /** Public keys in full (they are meant for browsers; the dashboard shows them). Null for secret keys. */
    publicKey: text('public_key'),
    createdAt: createdAt(),
    revokedAt: at('revoked_at'),
  },
  (t) => [index('api_keys_merchant_idx').on(t.merchantId)],
);
