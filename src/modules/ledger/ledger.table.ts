import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, currency, money, updatedAt } from '../../db/columns.ts';
import type { PostingState } from './ledger.machine.ts';

/**
 * One account per merchant, currency and kind. The merchant's own: available, pending, reserved.
 * The world's side of every posting: external, card_network, bank_rails, fx_liquidity (kept per
 * merchant too, so merchants never contend on a shared row). `balance` is maintained in the same
 * transaction as the entries and can be recomputed from them (verifyLedger).
 */
export const ledgerAccounts = pgTable(
  'ledger_accounts',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    currency: currency(),
    kind: text('kind').notNull(),
    balance: money('balance').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('ledger_accounts_uq').on(t.merchantId, t.currency, t.kind)],
);

/**
 * A balanced set of entries: append-only, except its state (a hold's pending → posted | voided, a
 * posted one's → reversed).
 */
export const ledgerPostings = pgTable(
  'ledger_postings',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    currency: currency(),
    type: text('type').notNull(),
    state: text('state').$type<PostingState>().notNull(),
    sourceType: text('source_type').notNull(),
    sourceId: text('source_id').notNull(),
    description: text('description'),
    /** The hold this posting settles or releases, or the posting it reverses. */
    relatedId: text('related_id'),
    availableDelta: money('available_delta').notNull(),
    pendingDelta: money('pending_delta').notNull(),
    reservedDelta: money('reserved_delta').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('ledger_postings_merchant_idx').on(t.merchantId, t.id),
    index('ledger_postings_source_idx').on(t.sourceId),
    // Statements read an account's postings by clock time (statements.ledger.ts).
    index('ledger_postings_time_idx').on(t.merchantId, t.currency, t.createdAt),
  ],
);

export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: text('id').primaryKey(),
    postingId: text('posting_id')
      .notNull()
      .references(() => ledgerPostings.id),
    accountId: text('account_id')
      .notNull()
      .references(() => ledgerAccounts.id),
    merchantId: text('merchant_id').notNull(),
    currency: currency(),
    /** Signed minor units: positive raises the account's balance. Every posting's entries sum to zero. */
    amount: money('amount').notNull(),
    createdAt: createdAt(),
  },
  // Entries are read by account (balances, verifyLedger) or through their posting, never by merchant
  // alone: every index here is paid for by each posting's inserts.
  (t) => [index('ledger_entries_account_idx').on(t.accountId)],
);
