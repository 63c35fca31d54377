import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';

/** The transactional outbox: one row per state change, written in the same transaction as the change. */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    type: text('type').notNull(),
    objectId: text('object_id').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('events_merchant_idx').on(t.merchantId, t.id), index('events_object_idx').on(t.objectId)],
);
