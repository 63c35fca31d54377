import { z } from 'zod';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import {
  idOf,
  timestamp,
  type Wire,
  wireDecimal,
  wireMetadata,
  wireResource,
} from '../../kernel/wire-resources.ts';
import { FAILURE_REASONS } from './fx.destinations.ts';
import { fxConversionStates, fxQuoteMachine, fxSettlementMachine } from './fx.machine.ts';
import type { FxRates } from './fx.pricing.ts';
import { type FxTargetCurrency, formatRate } from './fx.rates.ts';
import { FX_TARGETS, LOCK_DURATIONS, type LockDuration } from './fx.schema.ts';
import type { fxConversions, fxQuotes, fxSettlements } from './fx.table.ts';

export type FxQuoteRow = typeof fxQuotes.$inferSelect;
export type FxConversionRow = typeof fxConversions.$inferSelect;
export type FxSettlementRow = typeof fxSettlements.$inferSelect;

const money = (minor: bigint, currency: string) => WireDecimal.of(minor, currency as CurrencyCode);
const iso = (at: Date | null) => at?.toISOString() ?? null;

const nullableText = (description: string) => z.string().nullable().meta({ description });
const nullableTimestamp = (description: string) => timestamp.nullable().meta({ description });

/** A rate as the API writes it: an exact decimal string, never a float a JSON parser would round. */
const rate = (description: string) =>
  z.string().meta({
    pattern: '^[0-9]+(\\.[0-9]+)?$',
    description: `${description} An exact decimal string (target units per USD, up to 10 decimals).`,
  });
const usd = z.literal('USD').meta({ description: 'The currency sold: always USD.' });
const target = z.enum(FX_TARGETS).meta({ description: 'The currency bought: EUR, GBP or JPY.' });

export const FxRateWire = z
  .object({
    source_currency: usd,
    target_currency: target,
    mid_rate: rate("The hour's mid-market rate."),
    rate: rate('The sell rate a quote is priced at (the mid rate less the spread).'),
  })
  .meta({ id: 'FxRate', description: 'The rates of one currency pair for the hour.' });

export const FxRatesWire = z
  .object({
    object: z.literal('fx_rates').meta({ description: 'The kind of object.' }),
    source_currency: usd,
    at: timestamp.meta({ description: 'The instant asked about (the clock’s time unless `at` was given).' }),
    as_of: timestamp.meta({ description: 'The start of the UTC hour whose rates these are.' }),
    next_change_at: timestamp.meta({ description: 'When the rates change next (the next UTC hour).' }),
    spread: z.string().meta({
      pattern: '^[0-9]+(\\.[0-9]+)?$',
      description: 'The spread taken off the mid rate, as a decimal fraction (0.005 is 0.5%).',
    }),
    rates: z.array(FxRateWire).meta({ description: 'One entry per target currency: EUR, GBP, JPY.' }),
  })
  .meta({ id: 'FxRates', description: 'The FX rates in force at an instant: they change every UTC hour.' });

export const FxQuoteWire = wireResource(
  'FxQuote',
  'fx_quote',
  'A rate locked for a while: USD into EUR, GBP or JPY, both amounts fixed, usable once (by a conversion or a settlement) until expires_at.',
  {
    state: z.enum(fxQuoteMachine.states).meta({
      description: 'open until a conversion or a settlement uses it (used), or its lock runs out (expired).',
    }),
    source_currency: usd,
    target_currency: target,
    rate: rate('The locked rate: source_amount × rate ≥ target_amount.'),
    sell_rate: rate("The hour's sell rate the quote was priced at."),
    mid_rate: rate("The hour's mid-market rate."),
    source_amount: wireDecimal.meta({ description: 'The USD sold.' }),
    target_amount: wireDecimal.meta({ description: 'The target currency bought.' }),
    fee: wireDecimal.meta({
      description: 'Informational: the USD value of the spread inside source_amount.',
    }),
    fixed_side: z
      .enum(['source', 'target'])
      .meta({ description: 'Which amount was asked for (the other was computed).' }),
    lock_duration: z
      .enum(Object.keys(LOCK_DURATIONS) as [LockDuration, ...LockDuration[]])
      .meta({ description: 'How long the rate stays locked.' }),
    expires_at: timestamp.meta({ description: 'The quote is usable strictly before this instant.' }),
    used_by: idOf('conversion or settlement that used the quote; null while unused').nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  },
);

export const FxConversionWire = wireResource(
  'FxConversion',
  'fx_conversion',
  "A conversion of available USD into the target currency's available balance, at a quote's locked rate.",
  {
    state: z
      .enum(fxConversionStates)
      .meta({ description: 'A conversion completes in the request that makes it.' }),
    quote: idOf('FX quote it converted at'),
    source_currency: usd,
    source_amount: wireDecimal.meta({ description: 'The USD that left the available balance.' }),
    target_currency: target,
    target_amount: wireDecimal.meta({
      description: 'What came into the target currency’s available balance.',
    }),
    rate: rate("The quote's locked rate."),
    fee: wireDecimal.meta({
      description: 'Informational: the USD value of the spread inside source_amount.',
    }),
    reference: nullableText("The merchant's reference."),
    description: nullableText('The description given on create.'),
    metadata: wireMetadata,
    created_at: timestamp,
    updated_at: timestamp,
  },
);

const holderName = z.string().meta({ description: "The account holder's name." });
const last4 = z
  .string()
  .meta({ description: 'The last 4 characters of the account (IBAN or account number).' });

export const FxIbanDestinationWire = z
  .object({
    type: z.literal('iban'),
    name: holderName,
    country: z.string().meta({ description: "The IBAN's country (ISO 3166-1 alpha-2)." }),
    last4,
  })
  .meta({ id: 'FxIbanDestination', description: 'An account by IBAN (EUR: a SEPA country; GBP: GB).' });

export const FxJpBankAccountDestinationWire = z
  .object({
    type: z.literal('jp_bank_account'),
    name: holderName,
    bank_code: z.string().meta({ description: 'The Zengin bank code (4 digits).' }),
    branch_code: z.string().meta({ description: 'The branch code (3 digits).' }),
    last4,
  })
  .meta({ id: 'FxJpBankAccountDestination', description: 'A Japanese (Zengin) bank account (JPY).' });

export const FxSettlementDestinationWire = z
  .discriminatedUnion('type', [FxIbanDestinationWire, FxJpBankAccountDestinationWire])
  .meta({
    id: 'FxSettlementDestination',
    description:
      'Where a settlement pays, as it is kept: never the full account, its last 4 characters only.',
  });

const failureCode = z.enum(Object.keys(FAILURE_REASONS) as [string, ...string[]]);

export const FxSettlementWire = wireResource(
  'FxSettlement',
  'fx_settlement',
  'A payment to a foreign account in EUR, GBP or JPY: converted from USD (a quote, or at the current rate) or paid out of that balance, held, then paid the next US banking day at 12:00 ET (or refused by the beneficiary’s bank).',
  {
    state: z.enum(fxSettlementMachine.states).meta({
      description:
        'pending → converted (both in the create: the amount is held on the target balance) → paid, or failed (the amount back on available).',
    }),
    amount: wireDecimal.meta({ description: 'What is paid abroad, in currency.' }),
    currency: target,
    funding: z.enum(['conversion', 'balance']).meta({
      description: 'conversion: converted from USD at quote; balance: paid out of the currency’s balance.',
    }),
    quote: idOf('FX quote it converted at; null when paid out of a balance').nullable(),
    // A nullable literal loses its null in the document's enum; a nullable enum of one keeps it.
    source_currency: z
      .enum(['USD'])
      .nullable()
      .meta({ description: 'USD when converted; null when paid out of a balance.' }),
    source_amount: z.union([wireDecimal, z.null()]).meta({
      description: 'The USD converted; null when paid out of a balance.',
    }),
    rate: rate("The quote's locked rate; null when paid out of a balance.").nullable(),
    fee: z.union([wireDecimal, z.null()]).meta({
      description: 'Informational: the USD value of the spread; null when paid out of a balance.',
    }),
    destination: FxSettlementDestinationWire,
    expected_paid_at: timestamp.meta({
      description: 'When it is to be paid: the next US banking day at 12:00 ET.',
    }),
    converted_at: nullableTimestamp('When the amount was converted (or taken from the balance) and held.'),
    paid_at: nullableTimestamp('When it was paid (state paid); null otherwise.'),
    failed_at: nullableTimestamp('When the beneficiary’s bank refused it (state failed); null otherwise.'),
    failure_code: failureCode.nullable().meta({
      description: 'The ISO 20022 reason the beneficiary’s bank gave (state failed); null otherwise.',
    }),
    failure_reason: nullableText('What that reason means; null unless failed.'),
    reference: nullableText("The merchant's reference."),
    description: nullableText('The description given on create.'),
    metadata: wireMetadata,
    created_at: timestamp,
    updated_at: timestamp,
  },
);

/** GET /v1/fx/rates: the rates of an instant's hour. Rates are exact decimal strings. */
export function fxRatesResource(rates: FxRates): Wire<typeof FxRatesWire> {
  return {
    object: 'fx_rates',
    source_currency: 'USD',
    at: rates.at.toISOString(),
    as_of: rates.asOf.toISOString(),
    next_change_at: rates.nextChangeAt.toISOString(),
    spread: formatRate(rates.spread),
    rates: rates.rates.map((r) => ({
      source_currency: 'USD',
      target_currency: r.targetCurrency,
      mid_rate: formatRate(r.mid),
      rate: formatRate(r.rate),
    })),
  };
}

/**
 * A quote as the API shows it. Rates are decimal strings ("0.9184512"): exact, never a float a
 * JSON parser would round; amounts are decimals with the currency's minor units (JPY whole yen).
 */
export function fxQuoteResource(row: FxQuoteRow): Wire<typeof FxQuoteWire> {
  return {
    id: row.id,
    object: 'fx_quote',
    state: row.state,
    source_currency: 'USD',
    target_currency: row.targetCurrency as FxTargetCurrency,
    rate: row.rate,
    sell_rate: row.sellRate,
    mid_rate: row.midRate,
    source_amount: money(row.sourceAmount, row.sourceCurrency),
    target_amount: money(row.targetAmount, row.targetCurrency),
    fee: money(row.fee, row.sourceCurrency),
    fixed_side: row.fixedSide as Wire<typeof FxQuoteWire>['fixed_side'],
    lock_duration: row.lockDuration as LockDuration,
    expires_at: row.expiresAt.toISOString(),
    used_by: row.usedBy,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function fxConversionResource(row: FxConversionRow): Wire<typeof FxConversionWire> {
  return {
    id: row.id,
    object: 'fx_conversion',
    state: row.state,
    quote: row.quoteId,
    source_currency: 'USD',
    source_amount: money(row.amount, row.currency),
    target_currency: row.targetCurrency as FxTargetCurrency,
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

export function fxSettlementResource(row: FxSettlementRow): Wire<typeof FxSettlementWire> {
  return {
    id: row.id,
    object: 'fx_settlement',
    state: row.state,
    amount: money(row.amount, row.currency),
    currency: row.currency as FxTargetCurrency,
    funding: row.quoteId ? 'conversion' : 'balance',
    quote: row.quoteId,
    source_currency: row.sourceCurrency === null ? null : 'USD',
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
