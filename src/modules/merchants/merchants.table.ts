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

/**
 * API keys, looked up by the SHA-256 hash of the full key. Sandbox keys are kept whole too (see
 * docs/internals/secret-keys.md), so the dashboard can show its signed-in owner the key in use; a row made
 * before that has only its hash and last 4 characters.
 */
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
    /** Secret keys in full, for the dashboard's Reveal. Null for public keys and for secret keys made before they were kept. */
    secretKey: text('secret_key'),
    createdAt: createdAt(),
    revokedAt: at('revoked_at'),
  },
  (t) => [index('api_keys_merchant_idx').on(t.merchantId)],
);
