import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt } from './columns.ts';

/** Due work: one row per thing that must happen at a clock time (expiry, funds release, …). */
export const scheduledJobs = pgTable(
  'scheduled_jobs',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    kind: text('kind').notNull(),
    objectId: text('object_id').notNull(),
    payload: jsonb('payload').$type<Record<string, string>>().notNull(),
    dueAt: at('due_at').notNull(),
    state: text('state', { enum: ['pending', 'done', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull(),
    lastError: text('last_error'),
    createdAt: createdAt(),
    finishedAt: at('finished_at'),
  },
  (t) => [
    index('scheduled_jobs_due_idx').on(t.state, t.merchantId, t.dueAt, t.id),
    index('scheduled_jobs_finished_idx').on(t.merchantId, t.finishedAt).where(sql`${t.state} <> 'pending'`),
  ],
);
