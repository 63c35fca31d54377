import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import type { ErrorCode } from '../../kernel/errors.ts';
import { type ListQuery, listQuerySchema, type Page } from '../../kernel/pagination.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import type { ServiceContext } from '../context.ts';
import { createConversion, getConversion, listConversions } from './fx.conversions.ts';
import { getRates } from './fx.pricing.ts';
import { createQuote, getQuote, listQuotes } from './fx.quotes.ts';
import {
  FxConversionWire,
  FxQuoteWire,
  FxRatesWire,
  FxSettlementWire,
  fxConversionResource,
  fxQuoteResource,
  fxRatesResource,
  fxSettlementResource,
} from './fx.resource.ts';
import {
  conversionFieldCodes,
  createConversionSchema,
  createQuoteSchema,
  createSettlementSchema,
  failSettlementSchema,
  fxDestinationInputs,
  listByStateQuery,
  quoteFieldCodes,
  ratesQuery,
  settlementFieldCodes,
} from './fx.schema.ts';
import { simulateSettlementFail, simulateSettlementPay } from './fx.settle.ts';
import { createSettlement, getSettlement, listSettlements } from './fx.settlements.ts';

const idParam = z.object({ id: z.string().min(1).max(255) });
const TAG = 'Foreign exchange';

/** One FX object's create, get and list routes under /v1/fx/{plural}. */
interface FxObjectRoutes<Row, S extends z.ZodType> {
  plural: string;
  what: string;
  /** The kind as an operationId spells it (createFxQuote, listFxQuotes). */
  Kind: string;
  /** Its answer's schema (the render function returns Wire<typeof wire>). */
  wire: z.ZodType;
  /** The codes its create may answer with, beyond those every POST shares. */
  createErrors: readonly ErrorCode[];
  createSummary: string;
  createSchema: S;
  fieldCodes: FieldCodes;
  create: (ctx: ServiceContext, input: z.output<S>) => Promise<Row>;
  get: (ctx: ServiceContext, id: string) => Promise<Row>;
  list: (ctx: ServiceContext, query: ListQuery & { state?: string | undefined }) => Promise<Page<Row>>;
  resource: (row: Row) => Record<string, unknown>;
}

function registerFxObject<Row, S extends z.ZodType>(
  api: OpenAPIHono<RestEnv>,
  routes: FxObjectRoutes<Row, S>,
): void {
  const { plural, what, resource, Kind, wire } = routes;
  api.openapi(
    operation({
      method: 'post',
      path: `/fx/${plural}`,
      operationId: `create${Kind}`,
      response: wire,
      errors: routes.createErrors,
      tags: [TAG],
      summary: routes.createSummary,
      request: jsonRequestBody(routes.createSchema),
    }),
    // The validator parsed the body with createSchema: its output is the service's input.
    async (c: Context<RestEnv, string, { out: { json: z.output<S> } }>) =>
      sendObject(c, resource(await routes.create(serviceContext(c), c.req.valid('json')))),
    validationHook(routes.fieldCodes),
  );
  api.openapi(
    operation({
      method: 'get',
      path: `/fx/${plural}/{id}`,
      operationId: `get${Kind}`,
      response: wire,
      tags: [TAG],
      summary: `Get an ${what}`,
      request: { params: idParam },
    }),
    async (c) => sendObject(c, resource(await routes.get(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'get',
      path: `/fx/${plural}`,
      operationId: `list${Kind}s`,
      response: listOf(wire, Kind),
      tags: [TAG],
      summary: `List ${what}s, newest first`,
      request: { query: listQuerySchema.extend(listByStateQuery) },
    }),
    async (c) => sendList(c, await routes.list(serviceContext(c), c.req.valid('query')), resource),
    validationHook(),
  );
}

/** What taking a quote may answer: unknown, expired or used already, or too little USD to convert. */
const QUOTE_USE_ERRORS = [
  'resource_not_found',
  'quote_expired',
  'quote_already_used',
  'insufficient_balance',
  'reference_invalid',
] as const;

export function registerFxRoutes(api: OpenAPIHono<RestEnv>): void {
  for (const [id, schema] of Object.entries(fxDestinationInputs())) api.openAPIRegistry.register(id, schema);
  api.openapi(
    operation({
      method: 'get',
      path: '/fx/rates',
      operationId: 'getFxRates',
      response: FxRatesWire,
      tags: [TAG],
      summary:
        'Mid and sell rates USD→EUR, GBP, JPY at the clock’s time or at `at` (they change every UTC hour)',
      request: { query: ratesQuery },
    }),
    (c) => {
      const { at } = c.req.valid('query');
      return sendObject(c, fxRatesResource(getRates(serviceContext(c), at ? new Date(at) : undefined)));
    },
    validationHook(),
  );
  registerFxObject(api, {
    plural: 'quotes',
    what: 'FX quote',
    Kind: 'FxQuote',
    wire: FxQuoteWire,
    createErrors: ['currency_unsupported', 'amount_invalid'],
    createSummary: 'Lock a rate: a quote for a source or a target amount',
    createSchema: createQuoteSchema,
    fieldCodes: quoteFieldCodes,
    create: createQuote,
    get: getQuote,
    list: listQuotes,
    resource: fxQuoteResource,
  });
  registerFxObject(api, {
    plural: 'conversions',
    what: 'FX conversion',
    Kind: 'FxConversion',
    wire: FxConversionWire,
    createErrors: QUOTE_USE_ERRORS,
    createSummary: 'Convert available USD into EUR, GBP or JPY at a quote',
    createSchema: createConversionSchema,
    fieldCodes: conversionFieldCodes,
    create: createConversion,
    get: getConversion,
    list: listConversions,
    resource: fxConversionResource,
  });
  registerFxObject(api, {
    plural: 'settlements',
    what: 'FX settlement',
    Kind: 'FxSettlement',
    wire: FxSettlementWire,
    createErrors: [...QUOTE_USE_ERRORS, 'currency_unsupported', 'amount_invalid', 'destination_invalid'],
    createSummary: 'Pay a foreign account (IBAN or Japanese account), converted or from a balance',
    createSchema: createSettlementSchema,
    fieldCodes: settlementFieldCodes,
    create: createSettlement,
    get: getSettlement,
    list: listSettlements,
    resource: fxSettlementResource,
  });
  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/fx_settlements/{id}/pay',
      operationId: 'payFxSettlement',
      response: FxSettlementWire,
      errors: ['invalid_state'],
      tags: ['Simulation'],
      summary: 'Pay a converted FX settlement now, before its payment day',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(
        c,
        fxSettlementResource(await simulateSettlementPay(serviceContext(c), c.req.valid('param').id)),
      ),
    validationHook(),
  );
  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/fx_settlements/{id}/fail',
      operationId: 'failFxSettlement',
      response: FxSettlementWire,
      errors: ['invalid_state'],
      tags: ['Simulation'],
      summary:
        'Fail a converted FX settlement now with an ISO 20022 reason (the amount returns to available)',
      request: { params: idParam, ...jsonRequestBody(failSettlementSchema, false) },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const row = await simulateSettlementFail(ctx, c.req.valid('param').id, c.req.valid('json'));
      return sendObject(c, fxSettlementResource(row));
    },
    validationHook(),
  );
}
