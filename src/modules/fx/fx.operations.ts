import { z } from 'zod';
import { defineOperation } from '../operation.ts';
import { createConversion, getConversion, listConversions } from './fx.conversions.ts';
import { getRates } from './fx.pricing.ts';
import { createQuote, getQuote, listQuotes } from './fx.quotes.ts';
import { FxConversion, FxQuote, FxRatesAnswer, FxSettlement } from './fx.resource.ts';
import {
  conversionFieldCodes,
  conversionsQuery,
  createConversionSchema,
  createQuoteSchema,
  createSettlementSchema,
  failSettlementSchema,
  fxDestinationInputs,
  quoteFieldCodes,
  quotesQuery,
  ratesQuery,
  settlementFieldCodes,
  settlementsQuery,
} from './fx.schema.ts';
import { simulateSettlementFail, simulateSettlementPay } from './fx.settle.ts';
import { createSettlement, getSettlement, listSettlements } from './fx.settlements.ts';

/** The FX operations (rates, quotes, conversions, settlements abroad), each declared once: its REST route and its GraphQL field. */

const idParam = (description: string) => z.object({ id: z.string().min(1).max(255).describe(description) });
const quoteId = idParam("The quote's id (fxq_…).");
const conversionId = idParam("The conversion's id (fxc_…).");
const settlementId = idParam("The settlement's id (fxs_…).");

/** What taking a quote may answer: unknown, expired or used already, or too little USD to convert. */
const QUOTE_USE_ERRORS = [
  'resource_not_found',
  'quote_expired',
  'quote_already_used',
  'insufficient_balance',
  'reference_invalid',
] as const;

const TAGS = ['Foreign exchange'];

export const fxOperations = [
  // GraphQL's fxRates is written by hand (fx.graphql.ts): its `at` is a DateTime argument, and
  // FxRates has no id.
  defineOperation({
    name: 'getFxRates',
    method: 'get',
    path: '/fx/rates',
    tags: TAGS,
    summary:
      'Mid and sell rates USD→EUR, GBP, JPY at the clock’s time or at `at` (they change every UTC hour)',
    query: ratesQuery,
    output: FxRatesAnswer,
    run: async (ctx, { query }) => getRates(ctx, query.at ? new Date(query.at) : undefined),
    graphql: false,
  }),
  defineOperation({
    name: 'createFxQuote',
    method: 'post',
    path: '/fx/quotes',
    tags: TAGS,
    summary: 'Lock a rate: a quote for a source or a target amount',
    body: createQuoteSchema,
    codes: quoteFieldCodes,
    errors: ['currency_unsupported', 'amount_invalid'],
    output: FxQuote,
    run: (ctx, { body }) => createQuote(ctx, body),
    graphql: { reload: getQuote, omit: ['source_currency'] },
  }),
  defineOperation({
    name: 'getFxQuote',
    method: 'get',
    path: '/fx/quotes/{id}',
    tags: TAGS,
    summary: 'Get an FX quote',
    params: quoteId,
    output: FxQuote,
    run: (ctx, { params }) => getQuote(ctx, params.id),
    graphql: { name: 'fxQuote' },
  }),
  defineOperation({
    name: 'listFxQuotes',
    method: 'get',
    path: '/fx/quotes',
    tags: TAGS,
    summary: 'List FX quotes, newest first',
    query: quotesQuery,
    output: FxQuote,
    list: true,
    run: (ctx, { query }) => listQuotes(ctx, query),
    graphql: { name: 'fxQuotes', filters: { state: 'state' } },
  }),
  defineOperation({
    name: 'createFxConversion',
    method: 'post',
    path: '/fx/conversions',
    tags: TAGS,
    summary: 'Convert available USD into EUR, GBP or JPY at a quote',
    body: createConversionSchema,
    codes: conversionFieldCodes,
    errors: QUOTE_USE_ERRORS,
    output: FxConversion,
    run: (ctx, { body }) => createConversion(ctx, body),
    graphql: { reload: getConversion },
  }),
  defineOperation({
    name: 'getFxConversion',
    method: 'get',
    path: '/fx/conversions/{id}',
    tags: TAGS,
    summary: 'Get an FX conversion',
    params: conversionId,
    output: FxConversion,
    run: (ctx, { params }) => getConversion(ctx, params.id),
    graphql: { name: 'fxConversion' },
  }),
  defineOperation({
    name: 'listFxConversions',
    method: 'get',
    path: '/fx/conversions',
    tags: TAGS,
    summary: 'List FX conversions, newest first',
    query: conversionsQuery,
    output: FxConversion,
    list: true,
    run: (ctx, { query }) => listConversions(ctx, query),
    graphql: { name: 'fxConversions' },
  }),
  defineOperation({
    name: 'createFxSettlement',
    method: 'post',
    path: '/fx/settlements',
    tags: TAGS,
    summary: 'Pay a foreign account (IBAN or Japanese account), converted or from a balance',
    body: createSettlementSchema,
    components: fxDestinationInputs,
    codes: settlementFieldCodes,
    errors: [...QUOTE_USE_ERRORS, 'currency_unsupported', 'amount_invalid', 'destination_invalid'],
    output: FxSettlement,
    run: (ctx, { body }) => createSettlement(ctx, body),
    graphql: { reload: getSettlement },
  }),
  defineOperation({
    name: 'getFxSettlement',
    method: 'get',
    path: '/fx/settlements/{id}',
    tags: TAGS,
    summary: 'Get an FX settlement',
    params: settlementId,
    output: FxSettlement,
    run: (ctx, { params }) => getSettlement(ctx, params.id),
    graphql: { name: 'fxSettlement' },
  }),
  defineOperation({
    name: 'listFxSettlements',
    method: 'get',
    path: '/fx/settlements',
    tags: TAGS,
    summary: 'List FX settlements, newest first',
    query: settlementsQuery,
    output: FxSettlement,
    list: true,
    run: (ctx, { query }) => listSettlements(ctx, query),
    graphql: { name: 'fxSettlements', filters: { state: 'state' } },
  }),
  defineOperation({
    name: 'payFxSettlement',
    method: 'post',
    path: '/simulate/fx_settlements/{id}/pay',
    tags: ['Simulation'],
    summary: 'Pay a converted FX settlement now, before its payment day',
    params: settlementId,
    errors: ['invalid_state'],
    output: FxSettlement,
    run: (ctx, { params }) => simulateSettlementPay(ctx, params.id),
    graphql: { name: 'simulateFxSettlementPay', reload: getSettlement },
  }),
  defineOperation({
    name: 'failFxSettlement',
    method: 'post',
    path: '/simulate/fx_settlements/{id}/fail',
    tags: ['Simulation'],
    summary: 'Fail a converted FX settlement now with an ISO 20022 reason (the amount returns to available)',
    params: settlementId,
    body: failSettlementSchema,
    optionalBody: true,
    errors: ['invalid_state'],
    output: FxSettlement,
    run: (ctx, { params, body }) => simulateSettlementFail(ctx, params.id, body),
    graphql: { name: 'simulateFxSettlementFail', reload: getSettlement },
  }),
];
