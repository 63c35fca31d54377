import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import type { fxConversions, fxQuotes, fxSettlements } from './fx.table.ts';

export type FxQuoteRow = typeof fxQuotes.$inferSelect;
export type FxConversionRow = typeof fxConversions.$inferSelect;
export type FxSettlementRow = typeof fxSettlements.$inferSelect;

const money = (minor: bigint, currency: string) => WireDecimal.of(minor, currency as CurrencyCode);
const iso = (at: Date | null) => at?.toISOString() ?? null;

/**
 * A quote as the API shows it. Rates are decimal strings ("0.9184512"): exact, never a float a
 * JSON parser would round; amounts are decimals with the currency's minor units (JPY whole yen).
 */
export function fxQuoteResource(row: FxQuoteRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'fx_quote',
    state: row.state,
    source_currency: row.sourceCurrency,
    target_currency: row.targetCurrency,
    rate: row.rate,
    sell_rate: row.sellRate,
    mid_rate: row.midRate,
    source_amount: money(row.sourceAmount, row.sourceCurrency),
    target_amount: money(row.targetAmount, row.targetCurrency),
    fee: money(row.fee, row.sourceCurrency),
    fixed_side: row.fixedSide,
    lock_duration: row.lockDuration,
    expires_at: row.expiresAt.toISOString(),
    used_by: row.usedBy,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function fxConversionResource(row: FxConversionRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'fx_conversion',
    state: row.state,
    quote: row.quoteId,
    source_currency: row.currency,
    source_amount: money(row.amount, row.currency),
    target_currency: row.targetCurrency,
    target_amount: money(row.targetAmount, row.targetCurrency),
    rate: row.rate,
    fee: money(row.fee, row.currency),
    reference: row.reference,
    description: row.description,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function fxSettlementResource(row: FxSettlementRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'fx_settlement',
    state: row.state,
    amount: money(row.amount, row.currency),
    currency: row.currency,
    funding: row.quoteId ? 'conversion' : 'balance',
    quote: row.quoteId,
    source_currency: row.sourceCurrency,
    source_amount: row.sourceAmount === null ? null : money(row.sourceAmount, row.sourceCurrency ?? 'USD'),
    rate: row.rate,
    fee: row.fee === null ? null : money(row.fee, row.sourceCurrency ?? 'USD'),
    destination: row.destination,
    expected_paid_at: row.expectedPaidAt.toISOString(),
    converted_at: iso(row.convertedAt),
    paid_at: iso(row.paidAt),
    failed_at: iso(row.failedAt),
    failure_code: row.failureCode,
    failure_reason: row.failureReason,
    reference: row.reference,
    description: row.description,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
