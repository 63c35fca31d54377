import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, money, updatedAt } from '../../db/columns.ts';
import type { FxConversionState, FxQuoteState, FxSettlementState } from './fx.machine.ts';

/**
 * A locked FX quote (`fxq_`): USD into EUR, GBP or JPY at the sell rate of the clock's
 * hour, both amounts fixed, usable once until `expires_at`. Rates are exact decimal strings.
 * States: open → used (a conversion or a settlement took it) | expired (its lock ran out).
 */
export const fxQuotes = pgTable(
  'fx_quotes',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    state: text('state').$type<FxQuoteState>().notNull(),
    sourceCurrency: currency('source_currency'),
    targetCurrency: currency('target_currency'),
    /**
     * The locked rate: the rate at which source_amount converts to target_amount (half to even),
     * target ÷ source rounded up on the 10th decimal — so source × rate ≥ target, always.
     */
    rate: text('rate').notNull(),
    /** The hour's sell rate the quote was priced at (the mid rate less the spread). */
    sellRate: text('sell_rate').notNull(),
    midRate: text('mid_rate').notNull(),
    sourceAmount: money('source_amount').notNull(),
    targetAmount: money('target_amount').notNull(),
    /** Informational: the USD value of the spread inside source_amount. */
    fee: money('fee').notNull(),
    /** Which amount the merchant asked for: 'source' or 'target' (the other was computed). */
    fixedSide: text('fixed_side').notNull(),
    lockDuration: text('lock_duration').notNull(),
    /** The conversion or settlement that used it. */
    usedBy: text('used_by'),
    expiresAt: at('expires_at').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('fx_quotes_merchant_id_idx').on(t.merchantId, t.id)],
);

/** A conversion (`fxc_`): USD available → the target currency's available at a quote's locked rate. */
export const fxConversions = pgTable(
  'fx_conversions',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    state: text('state').$type<FxConversionState>().notNull(),
    quoteId: text('quote_id').notNull(),
    /** What left: USD (`amount`/`currency` as every transaction has them). */
    amount: money('amount').notNull(),
    currency: currency(),
    targetCurrency: currency('target_currency'),
    rate: text('rate').notNull(),
    targetAmount: money('target_amount').notNull(),
    fee: money('fee').notNull(),
    reference: text('reference'),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('fx_conversions_merchant_id_idx').on(t.merchantId, t.id)],
);

/** Where a settlement pays, as stored: the account's last 4 characters only. */
export type StoredFxDestination =
  | { type: 'iban'; name: string; country: string; last4: string }
  | { type: 'jp_bank_account'; name: string; bank_code: string; branch_code: string; last4: string };

/**
 * A settlement abroad (`fxs_`): converted from USD (a quote, or at the current rate) or paid out of
 * a EUR/GBP/JPY balance, held, then paid to a foreign account the next US banking day at 12:00 ET
 * (or failed: the magic destinations). States: pending → converted → paid | failed.
 */
export const fxSettlements = pgTable(
  'fx_settlements',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    state: text('state').$type<FxSettlementState>().notNull(),
    /** The quote it converted at; null when paid out of a balance in the target currency. */
    quoteId: text('quote_id'),
    sourceCurrency: text('source_currency'),
    sourceAmount: money('source_amount'),
    rate: text('rate'),
    fee: money('fee'),
    /** What is paid abroad, in the target currency (`amount`/`currency` as every transaction has them). */
    amount: money('amount').notNull(),
    currency: currency(),
    destination: jsonb('destination').$type<StoredFxDestination>().notNull(),
    /** The ISO 20022 reason a magic destination fails with, decided at creation. */
    failsWith: text('fails_with'),
    holdId: text('hold_id'),
    expectedPaidAt: at('expected_paid_at').notNull(),
    convertedAt: at('converted_at'),
    paidAt: at('paid_at'),
    failedAt: at('failed_at'),
    failureCode: text('failure_code'),
    failureReason: text('failure_reason'),
    reference: text('reference'),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('fx_settlements_merchant_id_idx').on(t.merchantId, t.id)],
);
