import { index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, money } from '../../db/columns.ts';

/**
 * A prior-day statement (`stmt_`) of one of the merchant's accounts (one per currency) for one
 * banking day: the balances at the period's ends and the totals of its lines. The lines and the
 * files (BAI2, camt.053) are read from the ledger's postings when asked for: postings are never
 * changed once written and the period is closed, so they always come out the same.
 */
export const statements = pgTable(
  'statements',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    currency: currency(),
    /** The banking day it reports (YYYY-MM-DD, New York). */
    date: text('date').notNull(),
    periodStart: at('period_start').notNull(),
    periodEnd: at('period_end').notNull(),
    openingLedger: money('opening_ledger').notNull(),
    closingLedger: money('closing_ledger').notNull(),
    openingAvailable: money('opening_available').notNull(),
    closingAvailable: money('closing_available').notNull(),
    creditsTotal: money('credits_total').notNull(),
    creditCount: integer('credit_count').notNull(),
    debitsTotal: money('debits_total').notNull(),
    debitCount: integer('debit_count').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('statements_day_uq').on(t.merchantId, t.currency, t.date),
    index('statements_merchant_idx').on(t.merchantId, t.id),
  ],
);

export type StatementRow = typeof statements.$inferSelect;
