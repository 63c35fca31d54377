import { z } from 'zod';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { defineObject, field, type ObjectDecl, withWire } from '../../kernel/declare.ts';
import { idOf, timestamp, type Wire, wireAnswer } from '../../kernel/wire-resources.ts';
import { FAILURE_REASONS } from './fx.destinations.ts';
import { fxConversionStates, fxQuoteMachine, fxSettlementMachine } from './fx.machine.ts';
import type { FxRates } from './fx.pricing.ts';
import { formatRate } from './fx.rates.ts';
import { FX_TARGETS, LOCK_DURATIONS, type LockDuration } from './fx.schema.ts';
import type { fxConversions, fxQuotes, fxSettlements } from './fx.table.ts';

export type FxQuoteRow = typeof fxQuotes.$inferSelect;
export type FxConversionRow = typeof fxConversions.$inferSelect;
export type FxSettlementRow = typeof fxSettlements.$inferSelect;

/** An amount with its currency, as a declaration's money field reads it. */
const money = (amount: bigint, currency: string) => ({ amount, currency: currency as CurrencyCode });

/** A rate as the API writes it: an exact decimal string, never a float a JSON parser would round. */
const rate = (description: string) =>
  z.string().meta({
    pattern: '^[0-9]+(\\.[0-9]+)?$',
    description: `${description} An exact decimal string (target units per USD, up to 10 decimals).`,
  });

/** A rate, or another object's id or null: REST's schema, a String on GraphQL. */
const rateField = <Row>(description: string, get: (row: Row) => string) =>
  withWire(field.text<Row>(description, get), rate(description));
const nullableRate = <Row>(description: string, get: (row: Row) => string | null) =>
  withWire(field.nullableText<Row>(description, get), rate(description).nullable());
const nullableId = <Row>(kind: string, get: (row: Row) => string | null) =>
  withWire(field.nullableText<Row>(kind, get), idOf(kind).nullable());

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

export const FxRatesWire = wireAnswer('fx_rates', {
  source_currency: usd,
  at: timestamp.meta({ description: 'The instant asked about (the clock’s time unless `at` was given).' }),
  as_of: timestamp.meta({ description: 'The start of the UTC hour whose rates these are.' }),
  next_change_at: timestamp.meta({ description: 'When the rates change next (the next UTC hour).' }),
  spread: z.string().meta({
    pattern: '^[0-9]+(\\.[0-9]+)?$',
    description: 'The spread taken off the mid rate, as a decimal fraction (0.005 is 0.5%).',
  }),
  rates: z.array(FxRateWire).meta({ description: 'One entry per target currency: EUR, GBP, JPY.' }),
}).meta({ id: 'FxRates', description: 'The FX rates in force at an instant: they change every UTC hour.' });

/** What rendering an FX object needs beyond its row: nothing (its links carry no secret). */
const NO_LINKS = { publicUrl: '' };

export const FxQuote = defineObject<FxQuoteRow>()(
  'FxQuote',
  'fx_quote',
  `A rate locked for a while: USD into EUR, GBP or JPY, both amounts fixed, usable once (by a conversion or a settlement) before it expires. States: ${fxQuoteMachine.states.join(', ')}.`,
  {
    state: field.enum(
      fxQuoteMachine.states,
      'open until a conversion or a settlement uses it (used), or its lock runs out (expired).',
    ),
    source_currency: field.custom<FxQuoteRow>(usd, () => 'USD'),
    target_currency: field.custom<FxQuoteRow>(target, (row) => row.targetCurrency),
    rate: rateField<FxQuoteRow>(
      'The locked rate: the source amount × rate, rounded half to even, is the target amount; source amount × rate ≥ target amount.',
      (row) => row.rate,
    ),
    sell_rate: rateField<FxQuoteRow>("The hour's sell rate the quote was priced at.", (row) => row.sellRate),
    mid_rate: rateField<FxQuoteRow>("The hour's mid-market rate.", (row) => row.midRate),
    source_amount: field.money<FxQuoteRow>('The USD sold.', (row) =>
      money(row.sourceAmount, row.sourceCurrency),
    ),
    target_amount: field.money<FxQuoteRow>('What it buys, in the target currency.', (row) =>
      money(row.targetAmount, row.targetCurrency),
    ),
    fee: field.money<FxQuoteRow>(
      "Informational: what the spread costs, in USD (the source amount less the target amount's worth at the mid rate).",
      (row) => money(row.fee, row.sourceCurrency),
    ),
    fixed_side: field.enum(['source', 'target'], 'Which amount was asked for (the other was computed).'),
    lock_duration: field.enum(
      Object.keys(LOCK_DURATIONS) as LockDuration[],
      'How long the rate stays locked.',
    ),
    expires_at: field.timestamp('The quote is usable strictly before this instant (clock time).'),
    used_by: nullableId<FxQuoteRow>(
      'conversion or settlement that used the quote; null while unused',
      (row) => row.usedBy,
    ),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
);

export const FxConversion = defineObject<FxConversionRow>()(
  'FxConversion',
  'fx_conversion',
  `A conversion of available USD into the target currency’s available balance, at a quote's locked rate (amount: the USD that left). States: ${fxConversionStates.join(', ')}.`,
  {
    state: field.enum(fxConversionStates, 'A conversion completes in the request that makes it.'),
    quote: field.ref<FxConversionRow>('FX quote it converted at', (row) => row.quoteId),
    source_currency: field.custom<FxConversionRow>(usd, () => 'USD'),
    source_amount: field.money<FxConversionRow>('The USD that left the available balance.', (row) =>
      money(row.amount, row.currency),
    ),
    target_currency: field.custom<FxConversionRow>(target, (row) => row.targetCurrency),
    target_amount: field.money<FxConversionRow>(
      'What came into the target currency’s available balance.',
      (row) => money(row.targetAmount, row.targetCurrency),
    ),
    rate: rateField<FxConversionRow>("The quote's locked rate.", (row) => row.rate),
    fee: field.money<FxConversionRow>(
      "Informational: the quote's fee, the USD value of the spread inside the source amount.",
      (row) => money(row.fee, row.currency),
    ),
    reference: field.nullableText("The merchant's reference."),
    description: field.nullableText('The description given on create.'),
    metadata: field.metadata(),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
);

export const FxQuoteWire = FxQuote.wire;
export const FxConversionWire = FxConversion.wire;

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

const failureCode = Object.keys(FAILURE_REASONS) as [string, ...string[]];

export const FxSettlement = defineObject<FxSettlementRow>()(
  'FxSettlement',
  'fx_settlement',
  `A payment to a foreign account in EUR, GBP or JPY (amount: what is paid): converted from USD (a quote, or at the current rate) or paid out of that balance, held, then paid the next US banking day at 12:00 ET (or refused by the beneficiary’s bank). States: ${fxSettlementMachine.states.join(', ')}.`,
  {
    state: field.enum(
      fxSettlementMachine.states,
      'pending → converted (both in the create: the amount is held on the target balance) → paid, or failed (the amount back on available).',
    ),
    amount: field.money('What is paid abroad, in currency.'),
    currency: field.custom<FxSettlementRow>(target, (row) => row.currency),
    funding: field.enum<FxSettlementRow, ['conversion', 'balance']>(
      ['conversion', 'balance'],
      'conversion: converted from USD at a quote; balance: paid out of the currency’s balance.',
      (row) => (row.quoteId ? 'conversion' : 'balance'),
    ),
    quote: nullableId<FxSettlementRow>(
      'FX quote it converted at; null when paid out of a balance',
      (row) => row.quoteId,
    ),
    // A nullable literal loses its null in the document's enum; a nullable enum of one keeps it.
    source_currency: field.custom<FxSettlementRow>(
      z
        .enum(['USD'])
        .nullable()
        .meta({ description: 'USD when converted; null when paid out of a balance.' }),
      (row) => (row.sourceCurrency === null ? null : 'USD'),
    ),
    source_amount: field.nullableMoney<FxSettlementRow>(
      'The USD converted; null when paid out of a balance.',
      (row) => (row.sourceAmount === null ? null : money(row.sourceAmount, row.sourceCurrency ?? 'USD')),
    ),
    rate: nullableRate<FxSettlementRow>(
      "The quote's locked rate; null when paid out of a balance.",
      (row) => row.rate,
    ),
    fee: field.nullableMoney<FxSettlementRow>(
      'Informational: the USD value of the spread; null when paid out of a balance.',
      (row) => (row.fee === null ? null : money(row.fee, row.sourceCurrency ?? 'USD')),
    ),
    // GraphQL answers it as an FxDestination object (fx.graphql.ts).
    destination: field.custom<FxSettlementRow>(FxSettlementDestinationWire, (row) => row.destination),
    expected_paid_at: field.timestamp('When it is to be paid: the next US banking day at 12:00 ET.'),
    converted_at: field.nullableTimestamp(
      'When the amount was converted (or taken from the balance) and held.',
    ),
    paid_at: field.nullableTimestamp('When it was paid (state paid); null otherwise.'),
    failed_at: field.nullableTimestamp(
      'When the beneficiary’s bank refused it (state failed); null otherwise.',
    ),
    failure_code: field.nullableEnum(
      failureCode,
      'The ISO 20022 reason the beneficiary’s bank gave (state failed); null otherwise.',
    ),
    failure_reason: field.nullableText('What that reason means; null unless failed.'),
    reference: field.nullableText("The merchant's reference."),
    description: field.nullableText('The description given on create.'),
    metadata: field.metadata(),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
);

export const FxSettlementWire = FxSettlement.wire;

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

export function fxQuoteResource(row: FxQuoteRow): Wire<typeof FxQuoteWire> {
  return FxQuote.render(row, NO_LINKS);
}

export function fxConversionResource(row: FxConversionRow): Wire<typeof FxConversionWire> {
  return FxConversion.render(row, NO_LINKS);
}

export function fxSettlementResource(row: FxSettlementRow): Wire<typeof FxSettlementWire> {
  return FxSettlement.render(row, NO_LINKS);
}

/** The rates of an instant's hour: an answer without an id (GraphQL's FxRates is written by hand). */
export const FxRatesAnswer: ObjectDecl<FxRates> = {
  name: 'FxRates',
  object: 'fx_rates',
  description: FxRatesWire.description ?? '',
  fields: {},
  wire: FxRatesWire,
  render: (rates) => fxRatesResource(rates),
};
