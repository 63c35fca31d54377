import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, money, updatedAt } from '../../db/columns.ts';
import type { ExpectedPaymentState } from './reconciliation.machine.ts';

/** A movement an expected payment matched: the posting (btx_…) and the object behind it. */
export interface MatchRecord {
  posting_id: string;
  source_type: string;
  source_id: string;
  amount: string;
  booked_at: string;
}

/**
 * An expected payment (`exp_`): money the merchant expects to come in (credit) or go out (debit),
 * an amount or a range, a window of banking days, optionally a rail and a reference; matched
 * against the statement lines of the merchant's bank movements.
 */
export const expectedPayments = pgTable(
  'expected_payments',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    direction: text('direction', { enum: ['credit', 'debit'] }).notNull(),
    rail: text('rail'),
    currency: currency(),
    amountMin: money('amount_min').notNull(),
    amountMax: money('amount_max').notNull(),
    dateFrom: text('date_from').notNull(),
    dateTo: text('date_to').notNull(),
    windowStart: at('window_start').notNull(),
    windowEnd: at('window_end').notNull(),
    reference: text('reference'),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    state: text('state').$type<ExpectedPaymentState>().notNull(),
    amountMatched: money('amount_matched').notNull(),
    matches: jsonb('matches').$type<MatchRecord[]>().notNull(),
    matchedAt: at('matched_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('expected_payments_merchant_idx').on(t.merchantId, t.id)],
);

/** A posting matched by at most one expected payment. */
export const expectedPaymentMatches = pgTable('expected_payment_matches', {
  postingId: text('posting_id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  expectedPaymentId: text('expected_payment_id').notNull(),
});

export type ExpectedPaymentRow = typeof expectedPayments.$inferSelect;
