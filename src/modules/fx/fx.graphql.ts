import { builder } from '../../graphql/builder.ts';
import { listQueryOf, nullIfNotFound, serviceContext, toConnection } from '../../graphql/context.ts';
import { describedEnum } from '../../graphql/enums.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CurrencyCodeEnum, MoneyRef } from '../../graphql/scalars.ts';
import { CREATED_AT, STORED_DESCRIPTION, STORED_METADATA, UPDATED_AT } from '../../graphql/texts.ts';
import { TransactionRef, TransactionStateEnum } from '../../graphql/transaction.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { conversionsByIds, getConversion, listConversions } from './fx.conversions.ts';
import { FAILURE_REASONS } from './fx.destinations.ts';
import { type FxQuoteState, fxQuoteMachine, fxSettlementMachine } from './fx.machine.ts';
import { type FxRate, type FxRates, getRates } from './fx.pricing.ts';
import { getQuote, listQuotes, quotesByIds } from './fx.quotes.ts';
import { formatRate } from './fx.rates.ts';
import type { FxConversionRow, FxQuoteRow, FxSettlementRow } from './fx.resource.ts';
import { type FX_TARGETS, LOCK_DURATIONS, type LockDuration } from './fx.schema.ts';
import { getSettlement, listSettlements, settlementsByIds } from './fx.settlements.ts';

/** The FX objects and queries; the mutations are in fx.graphql-mutations.ts. */

const money = (amount: bigint, currency: string) => ({ amount, currency: currency as CurrencyCode });

export const TargetEnum = describedEnum('FxTargetCurrency', 'The currencies USD converts into.', {
  EUR: 'Euro.',
  GBP: 'Pound sterling.',
  JPY: 'Japanese yen.',
} satisfies Record<(typeof FX_TARGETS)[number], string>);

const lockDescription = (seconds: number) =>
  seconds < 3_600
    ? `${seconds / 60} minutes`
    : seconds < 86_400
      ? `${seconds / 3_600} hour`
      : `${seconds / 86_400} day`;

export const LockEnum = describedEnum(
  'FxLockDuration',
  'How long a quote keeps its rate.',
  Object.fromEntries(
    Object.entries(LOCK_DURATIONS).map(([lock, seconds]) => [
      lock,
      `${lockDescription(seconds)} of clock time${lock === 'five_minutes' ? ' (the default)' : ''}.`,
    ]),
  ) as Record<LockDuration, string>,
);

const QuoteStateEnum = describedEnum('FxQuoteState', 'Where an FX quote stands.', {
  open: 'Usable, until expiresAt.',
  used: 'A conversion or settlement used it (usedBy names which).',
  expired: 'Its lock ran out unused.',
} satisfies Record<FxQuoteState, string>);

const FixedSideEnum = describedEnum('FxFixedSide', 'Which amount of a quote was asked for.', {
  source: 'The USD to sell was given; the target amount was computed.',
  target: 'The target amount to buy was given; the USD to sell was computed.',
});

const FundingEnum = describedEnum(
  'FxSettlementFunding',
  'Where the money of a settlement abroad comes from.',
  {
    conversion: 'USD converted at a quote (or at the current rate).',
    balance: 'The EUR, GBP or JPY balance.',
  },
);

const DestinationTypeEnum = describedEnum('FxDestinationType', 'The kind of account a settlement pays.', {
  iban: 'An IBAN (EUR, GBP).',
  jp_bank_account: 'A Japanese bank account: bank, branch and account number (JPY).',
} satisfies Record<FxSettlementRow['destination']['type'], string>);

export const FailureCodeEnum = describedEnum(
  'FxSettlementFailureCode',
  "The ISO 20022 reason a beneficiary's bank refuses a settlement with.",
  FAILURE_REASONS,
);

const FxRateRef = builder.objectRef<FxRate>('FxRate').implement({
  description: 'USD into one currency: exact decimal strings, target units per USD.',
  fields: (t) => ({
    sourceCurrency: t.field({
      type: CurrencyCodeEnum,
      description: 'Always USD: every rate sells USD.',
      resolve: () => 'USD' as const,
    }),
    targetCurrency: t.field({
      type: TargetEnum,
      description: 'The currency USD converts into.',
      resolve: (r) => r.targetCurrency,
    }),
    midRate: t.string({
      description: 'The mid-market rate, before the spread.',
      resolve: (r) => formatRate(r.mid),
    }),
    rate: t.string({
      description: 'The sell rate: the mid rate less the spread.',
      resolve: (r) => formatRate(r.rate),
    }),
  }),
});

const FxRatesRef = builder.objectRef<FxRates>('FxRates').implement({
  description: "The rates at the clock's time; they change every UTC hour, deterministically.",
  fields: (t) => ({
    at: t.field({ type: 'DateTime', description: 'The instant asked about.', resolve: (r) => r.at }),
    asOf: t.field({
      type: 'DateTime',
      description: 'The start of the UTC hour whose rates these are.',
      resolve: (r) => r.asOf,
    }),
    nextChangeAt: t.field({
      type: 'DateTime',
      description: 'When the rates next change (the next UTC hour).',
      resolve: (r) => r.nextChangeAt,
    }),
    spread: t.string({ description: 'As a fraction: 0.005 is 0.5%.', resolve: (r) => formatRate(r.spread) }),
    rates: t.field({
      type: [FxRateRef],
      description: 'One rate per target currency.',
      resolve: (r) => r.rates,
    }),
  }),
});

export const FxQuoteRef = builder.objectRef<FxQuoteRow>('FxQuote').implement({
  description: `A locked rate, usable once before expiresAt. States: ${fxQuoteMachine.states.join(', ')}.`,
  interfaces: [NodeRef],
  fields: (t) => ({
    state: t.field({ type: QuoteStateEnum, description: 'Where it stands.', resolve: (row) => row.state }),
    rate: t.exposeString('rate', {
      description:
        'The locked rate: sourceAmount × rate, rounded half to even, is targetAmount; sourceAmount × rate ≥ targetAmount.',
    }),
    sellRate: t.exposeString('sellRate', { description: "The hour's sell rate the quote was priced at." }),
    midRate: t.exposeString('midRate', { description: "The hour's mid-market rate." }),
    sourceAmount: t.field({
      type: MoneyRef,
      description: 'The USD sold.',
      resolve: (row) => money(row.sourceAmount, row.sourceCurrency),
    }),
    targetAmount: t.field({
      type: MoneyRef,
      description: 'What it buys, in the target currency.',
      resolve: (row) => money(row.targetAmount, row.targetCurrency),
    }),
    fee: t.field({
      type: MoneyRef,
      description: "What the spread costs, in USD: sourceAmount less targetAmount's worth at the mid rate.",
      resolve: (row) => money(row.fee, row.sourceCurrency),
    }),
    fixedSide: t.field({
      type: FixedSideEnum,
      description: 'Which amount was asked for (the other was computed).',
      resolve: (row) => row.fixedSide as 'source' | 'target',
    }),
    lockDuration: t.field({
      type: LockEnum,
      description: 'How long the rate stays locked.',
      resolve: (row) => row.lockDuration as LockDuration,
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When the lock runs out, clock time.',
      resolve: (row) => row.expiresAt,
    }),
    usedBy: t.exposeString('usedBy', {
      nullable: true,
      description: 'The id of the conversion or settlement that used it (state used).',
    }),
    createdAt: t.field({ type: 'DateTime', description: CREATED_AT, resolve: (row) => row.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: UPDATED_AT, resolve: (row) => row.updatedAt }),
  }),
});

export const FxConversionRef = builder.objectRef<FxConversionRow>('FxConversion').implement({
  description: 'USD converted into EUR, GBP or JPY at a quote (amount: the USD that left).',
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'fxConversion'),
  fields: (t) => ({
    quoteId: t.exposeString('quoteId', { description: 'The id of the quote it converted at.' }),
    rate: t.exposeString('rate', { description: "The quote's locked rate, target units per USD." }),
    targetAmount: t.field({
      type: MoneyRef,
      description: 'What arrived in the target balance.',
      resolve: (row) => money(row.targetAmount, row.targetCurrency),
    }),
    fee: t.field({
      type: MoneyRef,
      description: "The quote's fee (the spread's cost), in USD.",
      resolve: (row) => money(row.fee, row.currency),
    }),
    description: t.exposeString('description', {
      nullable: true,
      description: STORED_DESCRIPTION,
    }),
    metadata: t.field({
      type: 'JSONObject',
      description: STORED_METADATA,
      resolve: (row) => row.metadata,
    }),
    updatedAt: t.field({ type: 'DateTime', description: UPDATED_AT, resolve: (row) => row.updatedAt }),
  }),
});

const DestinationRef = builder.objectRef<FxSettlementRow['destination']>('FxDestination').implement({
  description: 'Where a settlement pays: an IBAN or a Japanese account, last 4 characters only.',
  fields: (t) => ({
    type: t.field({ type: DestinationTypeEnum, description: 'The kind of account.', resolve: (d) => d.type }),
    name: t.string({ description: "The beneficiary's name.", resolve: (d) => d.name }),
    country: t.string({
      nullable: true,
      description: "The account's country (ISO 3166-1 alpha-2): the IBAN's, or JP.",
      resolve: (d) => (d.type === 'iban' ? d.country : 'JP'),
    }),
    bankCode: t.string({
      nullable: true,
      description: 'The Japanese bank code (4 digits); null for an IBAN.',
      resolve: (d) => (d.type === 'jp_bank_account' ? d.bank_code : null),
    }),
    branchCode: t.string({
      nullable: true,
      description: 'The Japanese branch code (3 digits); null for an IBAN.',
      resolve: (d) => (d.type === 'jp_bank_account' ? d.branch_code : null),
    }),
    last4: t.string({
      description: 'The last 4 characters of the IBAN or account number.',
      resolve: (d) => d.last4,
    }),
  }),
});

export const FxSettlementRef = builder.objectRef<FxSettlementRow>('FxSettlement').implement({
  description: `A payment abroad (amount: what is paid, in EUR, GBP or JPY). States: ${fxSettlementMachine.states.join(', ')}.`,
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'fxSettlement'),
  fields: (t) => ({
    funding: t.field({
      type: FundingEnum,
      description: 'conversion (from USD at a quote) or balance (out of the EUR, GBP or JPY balance).',
      resolve: (row) => (row.quoteId ? 'conversion' : 'balance'),
    }),
    quoteId: t.exposeString('quoteId', {
      nullable: true,
      description: 'The id of the quote it converted at (funding conversion).',
    }),
    fee: t.field({
      type: MoneyRef,
      nullable: true,
      description: "The spread's cost, in USD (funding conversion); null from a balance.",
      resolve: (row) => (row.fee === null ? null : money(row.fee, row.sourceCurrency ?? 'USD')),
    }),
    sourceAmount: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'The USD sold (funding conversion); null from a balance.',
      resolve: (row) =>
        row.sourceAmount === null ? null : money(row.sourceAmount, row.sourceCurrency ?? 'USD'),
    }),
    rate: t.exposeString('rate', {
      nullable: true,
      description: 'The rate it converted at (funding conversion); null from a balance.',
    }),
    destination: t.field({
      type: DestinationRef,
      description: 'The account abroad it pays.',
      resolve: (row) => row.destination,
    }),
    expectedPaidAt: t.field({
      type: 'DateTime',
      description: 'When it is expected to be paid (its payment day), clock time.',
      resolve: (row) => row.expectedPaidAt,
    }),
    convertedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was converted (or drawn from the balance); null before.',
      resolve: (row) => row.convertedAt,
    }),
    paidAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was paid (state paid); null before.',
      resolve: (row) => row.paidAt,
    }),
    failedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it failed (state failed); null otherwise.',
      resolve: (row) => row.failedAt,
    }),
    failureCode: t.field({
      type: FailureCodeEnum,
      nullable: true,
      description: "The ISO 20022 reason the beneficiary's bank refused it with (state failed).",
      resolve: (row) => row.failureCode,
    }),
    failureReason: t.exposeString('failureReason', {
      nullable: true,
      description: 'What failureCode means, for a person.',
    }),
    description: t.exposeString('description', {
      nullable: true,
      description: STORED_DESCRIPTION,
    }),
    metadata: t.field({
      type: 'JSONObject',
      description: STORED_METADATA,
      resolve: (row) => row.metadata,
    }),
    updatedAt: t.field({ type: 'DateTime', description: UPDATED_AT, resolve: (row) => row.updatedAt }),
  }),
});

nodeKind('fxQuote', FxQuoteRef, quotesByIds);
nodeKind('fxConversion', FxConversionRef, conversionsByIds);
nodeKind('fxSettlement', FxSettlementRef, settlementsByIds);

builder.queryFields((t) => ({
  fxRates: t.field({
    type: FxRatesRef,
    description: "The rates at the clock's time, or of the hour of `at` (any instant).",
    args: { at: t.arg({ type: 'DateTime', description: "Any instant (default: the clock's time)." }) },
    resolve: (_root, args, ctx) => getRates(serviceContext(ctx), args.at ?? undefined),
  }),
  fxQuote: t.field({
    type: FxQuoteRef,
    nullable: true,
    description: 'An FX quote by its id (GET /v1/fx/quotes/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The quote's id (fxq_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getQuote(serviceContext(ctx), String(args.id))),
  }),
  fxQuotes: t.connection({
    type: FxQuoteRef,
    description: 'FX quotes, newest first (GET /v1/fx/quotes).',
    args: { state: t.arg({ type: QuoteStateEnum, description: 'Only quotes in this state.' }) },
    resolve: async (_root, args, ctx) =>
      toConnection(
        await listQuotes(serviceContext(ctx), { ...listQueryOf(args), state: args.state ?? undefined }),
        args,
      ),
  }),
  fxConversion: t.field({
    type: FxConversionRef,
    nullable: true,
    description: 'An FX conversion by its id (GET /v1/fx/conversions/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The conversion's id (fxc_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getConversion(serviceContext(ctx), String(args.id))),
  }),
  fxConversions: t.connection({
    type: FxConversionRef,
    description: 'FX conversions, newest first (GET /v1/fx/conversions).',
    resolve: async (_root, args, ctx) =>
      toConnection(await listConversions(serviceContext(ctx), listQueryOf(args)), args),
  }),
  fxSettlement: t.field({
    type: FxSettlementRef,
    nullable: true,
    description:
      'A settlement abroad by its id (GET /v1/fx/settlements/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The settlement's id (fxs_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getSettlement(serviceContext(ctx), String(args.id))),
  }),
  fxSettlements: t.connection({
    type: FxSettlementRef,
    description: 'Settlements abroad, newest first (GET /v1/fx/settlements).',
    args: {
      state: t.arg({
        type: TransactionStateEnum,
        description: `Only settlements in this state (a settlement's states: ${fxSettlementMachine.states.join(', ')}).`,
      }),
    },
    resolve: async (_root, args, ctx) =>
      toConnection(
        await listSettlements(serviceContext(ctx), { ...listQueryOf(args), state: args.state ?? undefined }),
        args,
      ),
  }),
}));
