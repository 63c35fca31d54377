import { builder } from '../../graphql/builder.ts';
import { listQueryOf, nullIfNotFound, serviceContext, toConnection } from '../../graphql/context.ts';
import { MoneyRef } from '../../graphql/scalars.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { getConversion, listConversions } from './fx.conversions.ts';
import { fxQuoteMachine, fxSettlementMachine } from './fx.machine.ts';
import { type FxRate, type FxRates, getRates } from './fx.pricing.ts';
import { getQuote, listQuotes } from './fx.quotes.ts';
import { formatRate } from './fx.rates.ts';
import type { FxConversionRow, FxQuoteRow, FxSettlementRow } from './fx.resource.ts';
import { FX_TARGETS, LOCK_DURATIONS, type LockDuration } from './fx.schema.ts';
import { getSettlement, listSettlements } from './fx.settlements.ts';

/** The FX objects and queries; the mutations are in fx.graphql-mutations.ts. */

const money = (amount: bigint, currency: string) => ({ amount, currency: currency as CurrencyCode });

export const TargetEnum = builder.enumType('FxTargetCurrency', { values: FX_TARGETS });
export const LockEnum = builder.enumType('FxLockDuration', {
  values: Object.keys(LOCK_DURATIONS) as LockDuration[],
});
const QuoteStateEnum = builder.enumType('FxQuoteState', { values: fxQuoteMachine.states });

const FxRateRef = builder.objectRef<FxRate>('FxRate').implement({
  description: 'USD into one currency: exact decimal strings, target units per USD.',
  fields: (t) => ({
    sourceCurrency: t.string({ resolve: () => 'USD' }),
    targetCurrency: t.field({ type: TargetEnum, resolve: (r) => r.targetCurrency }),
    midRate: t.string({ resolve: (r) => formatRate(r.mid) }),
    rate: t.string({
      description: 'The sell rate: the mid rate less the spread.',
      resolve: (r) => formatRate(r.rate),
    }),
  }),
});

const FxRatesRef = builder.objectRef<FxRates>('FxRates').implement({
  description: "The rates at the clock's time; they change every UTC hour, deterministically.",
  fields: (t) => ({
    at: t.field({ type: 'DateTime', resolve: (r) => r.at }),
    asOf: t.field({ type: 'DateTime', resolve: (r) => r.asOf }),
    nextChangeAt: t.field({ type: 'DateTime', resolve: (r) => r.nextChangeAt }),
    spread: t.string({ description: 'As a fraction: 0.005 is 0.5%.', resolve: (r) => formatRate(r.spread) }),
    rates: t.field({ type: [FxRateRef], resolve: (r) => r.rates }),
  }),
});

export const FxQuoteRef = builder.objectRef<FxQuoteRow>('FxQuote').implement({
  description: `A locked rate, usable once before expiresAt. States: ${fxQuoteMachine.states.join(', ')}.`,
  fields: (t) => ({
    id: t.exposeID('id'),
    state: t.field({ type: QuoteStateEnum, resolve: (row) => row.state }),
    rate: t.exposeString('rate', {
      description:
        'The locked rate: sourceAmount × rate, rounded half to even, is targetAmount; sourceAmount × rate ≥ targetAmount.',
    }),
    sellRate: t.exposeString('sellRate', { description: "The hour's sell rate the quote was priced at." }),
    midRate: t.exposeString('midRate'),
    sourceAmount: t.field({ type: MoneyRef, resolve: (row) => money(row.sourceAmount, row.sourceCurrency) }),
    targetAmount: t.field({ type: MoneyRef, resolve: (row) => money(row.targetAmount, row.targetCurrency) }),
    fee: t.field({ type: MoneyRef, resolve: (row) => money(row.fee, row.sourceCurrency) }),
    fixedSide: t.exposeString('fixedSide'),
    lockDuration: t.field({ type: LockEnum, resolve: (row) => row.lockDuration as never }),
    expiresAt: t.field({ type: 'DateTime', resolve: (row) => row.expiresAt }),
    usedBy: t.exposeString('usedBy', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
  }),
});

export const FxConversionRef = builder.objectRef<FxConversionRow>('FxConversion').implement({
  description: 'USD converted into EUR, GBP or JPY at a quote (amount: the USD that left).',
  interfaces: [TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'fxConversion'),
  fields: (t) => ({
    quoteId: t.exposeString('quoteId'),
    rate: t.exposeString('rate'),
    targetAmount: t.field({ type: MoneyRef, resolve: (row) => money(row.targetAmount, row.targetCurrency) }),
    fee: t.field({ type: MoneyRef, resolve: (row) => money(row.fee, row.currency) }),
    description: t.exposeString('description', { nullable: true }),
    metadata: t.field({ type: 'JSONObject', resolve: (row) => row.metadata }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
  }),
});

const DestinationRef = builder.objectRef<FxSettlementRow['destination']>('FxDestination').implement({
  description: 'Where a settlement pays: an IBAN or a Japanese account, last 4 characters only.',
  fields: (t) => ({
    type: t.string({ resolve: (d) => d.type }),
    name: t.string({ resolve: (d) => d.name }),
    country: t.string({ nullable: true, resolve: (d) => (d.type === 'iban' ? d.country : 'JP') }),
    bankCode: t.string({
      nullable: true,
      resolve: (d) => (d.type === 'jp_bank_account' ? d.bank_code : null),
    }),
    branchCode: t.string({
      nullable: true,
      resolve: (d) => (d.type === 'jp_bank_account' ? d.branch_code : null),
    }),
    last4: t.string({ resolve: (d) => d.last4 }),
  }),
});

export const FxSettlementRef = builder.objectRef<FxSettlementRow>('FxSettlement').implement({
  description: `A payment abroad (amount: what is paid, in EUR, GBP or JPY). States: ${fxSettlementMachine.states.join(', ')}.`,
  interfaces: [TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'fxSettlement'),
  fields: (t) => ({
    funding: t.string({
      description: 'conversion (from USD at a quote) or balance (out of the EUR, GBP or JPY balance)',
      resolve: (row) => (row.quoteId ? 'conversion' : 'balance'),
    }),
    quoteId: t.exposeString('quoteId', { nullable: true }),
    fee: t.field({
      type: MoneyRef,
      nullable: true,
      resolve: (row) => (row.fee === null ? null : money(row.fee, row.sourceCurrency ?? 'USD')),
    }),
    sourceAmount: t.field({
      type: MoneyRef,
      nullable: true,
      resolve: (row) =>
        row.sourceAmount === null ? null : money(row.sourceAmount, row.sourceCurrency ?? 'USD'),
    }),
    rate: t.exposeString('rate', { nullable: true }),
    destination: t.field({ type: DestinationRef, resolve: (row) => row.destination }),
    expectedPaidAt: t.field({ type: 'DateTime', resolve: (row) => row.expectedPaidAt }),
    convertedAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.convertedAt }),
    paidAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.paidAt }),
    failedAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.failedAt }),
    failureCode: t.exposeString('failureCode', { nullable: true }),
    failureReason: t.exposeString('failureReason', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    metadata: t.field({ type: 'JSONObject', resolve: (row) => row.metadata }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
  }),
});

builder.queryFields((t) => ({
  fxRates: t.field({
    type: FxRatesRef,
    description: "The rates at the clock's time, or of the hour of `at` (any instant).",
    args: { at: t.arg({ type: 'DateTime' }) },
    resolve: (_root, args, ctx) => getRates(serviceContext(ctx), args.at ?? undefined),
  }),
  fxQuote: t.field({
    type: FxQuoteRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getQuote(serviceContext(ctx), String(args.id))),
  }),
  fxQuotes: t.connection({
    type: FxQuoteRef,
    args: { state: t.arg({ type: QuoteStateEnum }) },
    resolve: async (_root, args, ctx) =>
      toConnection(
        await listQuotes(serviceContext(ctx), { ...listQueryOf(args), state: args.state ?? undefined }),
        args,
      ),
  }),
  fxConversion: t.field({
    type: FxConversionRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getConversion(serviceContext(ctx), String(args.id))),
  }),
  fxConversions: t.connection({
    type: FxConversionRef,
    resolve: async (_root, args, ctx) =>
      toConnection(await listConversions(serviceContext(ctx), listQueryOf(args)), args),
  }),
  fxSettlement: t.field({
    type: FxSettlementRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getSettlement(serviceContext(ctx), String(args.id))),
  }),
  fxSettlements: t.connection({
    type: FxSettlementRef,
    args: { state: t.arg.string() },
    resolve: async (_root, args, ctx) =>
      toConnection(
        await listSettlements(serviceContext(ctx), { ...listQueryOf(args), state: args.state ?? undefined }),
        args,
      ),
  }),
}));
