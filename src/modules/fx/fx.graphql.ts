import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { descriptionOf, graphqlObject, inputFor } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CurrencyCodeEnum } from '../../graphql/scalars.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { conversionsByIds } from './fx.conversions.ts';
import { fxOperations } from './fx.operations.ts';
import { type FxRate, type FxRates, getRates } from './fx.pricing.ts';
import { quotesByIds } from './fx.quotes.ts';
import { formatRate } from './fx.rates.ts';
import {
  FxConversion,
  type FxConversionRow,
  FxQuote,
  type FxQuoteRow,
  FxRatesWire,
  FxRateWire,
  FxSettlement,
  type FxSettlementRow,
} from './fx.resource.ts';
import {
  createConversionSchema,
  createSettlementSchema,
  FxDestinationTypeValues,
  FxQuoteStateValues,
  FxSettlementFailureCodeValues,
  FxTargetCurrencyValues,
  failSettlementSchema,
  quotesQuery,
  targetCurrency,
} from './fx.schema.ts';
import { settlementsByIds } from './fx.settlements.ts';

/** The FX objects (derived from their declarations), their enums, and the GraphQL-only rates query. */

const rateField = FxRateWire.shape;

const FxRateRef = builder.objectRef<FxRate>('FxRate').implement({
  description: FxRateWire.description ?? '',
  fields: (t) => ({
    sourceCurrency: t.field({
      type: CurrencyCodeEnum,
      description: descriptionOf(rateField.source_currency),
      resolve: () => 'USD' as const,
    }),
    targetCurrency: t.expose('targetCurrency', {
      type: enumOf(FxTargetCurrencyValues),
      description: descriptionOf(rateField.target_currency),
    }),
    midRate: t.string({ description: descriptionOf(rateField.mid_rate), resolve: (r) => formatRate(r.mid) }),
    rate: t.string({ description: descriptionOf(rateField.rate), resolve: (r) => formatRate(r.rate) }),
  }),
});

const ratesField = FxRatesWire.shape;

const FxRatesRef = builder.objectRef<FxRates>('FxRates').implement({
  description: FxRatesWire.description ?? '',
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime', description: descriptionOf(ratesField.at) }),
    asOf: t.expose('asOf', { type: 'DateTime', description: descriptionOf(ratesField.as_of) }),
    nextChangeAt: t.expose('nextChangeAt', {
      type: 'DateTime',
      description: descriptionOf(ratesField.next_change_at),
    }),
    spread: t.string({ description: descriptionOf(ratesField.spread), resolve: (r) => formatRate(r.spread) }),
    rates: t.expose('rates', { type: [FxRateRef], description: descriptionOf(ratesField.rates) }),
  }),
});

export const FxQuoteRef = graphqlObject<FxQuoteRow>(FxQuote, {
  interfaces: [NodeRef],
  names: { used_by: 'usedBy' },
});

/** The Transaction interface answers these (state as a TransactionState, amount as the source amount). */
const TRANSACTION_FIELDS = ['state', 'reference', 'created_at'];

export const FxConversionRef = graphqlObject<FxConversionRow>(FxConversion, {
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'fxConversion'),
  omit: [...TRANSACTION_FIELDS, 'source_amount'],
  names: { quote: 'quoteId' },
});

const DestinationRef = builder.objectRef<FxSettlementRow['destination']>('FxDestination').implement({
  description: 'Where a settlement pays: an IBAN or a Japanese account, last 4 characters only.',
  fields: (t) => ({
    type: t.expose('type', { type: enumOf(FxDestinationTypeValues), description: 'The kind of account.' }),
    name: t.exposeString('name', { description: "The beneficiary's name." }),
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
    last4: t.exposeString('last4', { description: 'The last 4 characters of the IBAN or account number.' }),
  }),
});

export const FxSettlementRef = graphqlObject<FxSettlementRow>(FxSettlement, {
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'fxSettlement'),
  omit: [...TRANSACTION_FIELDS, 'amount'],
  names: { quote: 'quoteId' },
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    destination: t.field({
      type: DestinationRef,
      description: 'The account abroad it pays.',
      resolve: (row: FxSettlementRow) => row.destination,
    }),
  }),
});

nodeKind('fxQuote', FxQuoteRef, quotesByIds);
nodeKind('fxConversion', FxConversionRef, conversionsByIds);
nodeKind('fxSettlement', FxSettlementRef, settlementsByIds);

const DestinationInput = builder.inputType('FxDestinationInput', {
  description: 'EUR/GBP: name and iban. JPY: name, bankCode (4 digits), branchCode (3), accountNumber (7).',
  fields: (t) => ({
    name: t.string({ description: "The beneficiary's name." }),
    iban: t.string({ description: 'EUR and GBP: the IBAN.' }),
    bankCode: t.string({ description: 'JPY: the bank code, 4 digits.' }),
    branchCode: t.string({ description: 'JPY: the branch code, 3 digits.' }),
    accountNumber: t.string({ description: 'JPY: the account number, 7 digits.' }),
  }),
});

// The arguments whose GraphQL type their REST schema alone does not say.
inputFor(targetCurrency, enumOf(FxTargetCurrencyValues));
inputFor(createConversionSchema.shape.quote_id, 'ID');
inputFor(createSettlementSchema.shape.quote_id.unwrap(), 'ID');
inputFor(createSettlementSchema.shape.destination, DestinationInput);
inputFor(failSettlementSchema.shape.code.unwrap(), enumOf(FxSettlementFailureCodeValues));
inputFor(quotesQuery.shape.state.unwrap(), enumOf(FxQuoteStateValues));
mountGraphqlOperations(fxOperations);

builder.queryFields((t) => ({
  fxRates: t.field({
    type: FxRatesRef,
    description: "The rates at the clock's time, or of the hour of `at` (any instant).",
    args: { at: t.arg({ type: 'DateTime', description: "Any instant (default: the clock's time)." }) },
    resolve: (_root, args, ctx) => getRates(serviceContext(ctx), args.at ?? undefined),
  }),
}));
