import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { fxConversionResource, fxQuoteResource, fxSettlementResource } from './fx.resource.ts';
import {
  createConversionSchema,
  createQuoteSchema,
  createSettlementSchema,
  listSettlementsQuery,
  quoteFieldCodes,
  settlementFieldCodes,
} from './fx.schema.ts';
import {
  createConversion,
  createQuote,
  createSettlement,
  fxRatesResource,
  getConversion,
  getQuote,
  getRates,
  getSettlement,
  listConversions,
  listSettlements,
} from './fx.service.ts';

const idParam = z.object({ id: z.string().min(1).max(255) });
const TAG = 'Foreign exchange';

export function registerFxRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'get',
      path: '/fx/rates',
      tags: [TAG],
      summary: 'Mid and sell rates USD→EUR, GBP, JPY at the clock’s time (they change every UTC hour)',
    }),
    (c) => sendObject(c, fxRatesResource(getRates(serviceContext(c)))),
    validationHook(),
  );

  const creates = [
    [
      'quotes',
      'Lock a rate: a quote for a source or a target amount',
      createQuoteSchema,
      quoteFieldCodes,
      createQuote,
      fxQuoteResource,
    ],
    [
      'conversions',
      'Convert available USD into EUR, GBP or JPY at a quote',
      createConversionSchema,
      {},
      createConversion,
      fxConversionResource,
    ],
    [
      'settlements',
      'Pay a foreign account (IBAN or Japanese account), converted or from a balance',
      createSettlementSchema,
      settlementFieldCodes,
      createSettlement,
      fxSettlementResource,
    ],
  ] as const;
  for (const [plural, summary, schema, codes, create, resource] of creates) {
    api.openapi(
      operation({
        method: 'post',
        path: `/fx/${plural}`,
        tags: [TAG],
        summary,
        request: jsonRequestBody(schema),
      }),
      async (c) =>
        sendObject(
          c,
          (resource as (row: never) => Record<string, unknown>)(
            (await create(serviceContext(c), c.get('body'))) as never,
          ),
        ),
      validationHook(codes),
    );
  }

  const gets = [
    ['quotes', 'an FX quote', getQuote, fxQuoteResource],
    ['conversions', 'an FX conversion', getConversion, fxConversionResource],
    ['settlements', 'an FX settlement', getSettlement, fxSettlementResource],
  ] as const;
  for (const [plural, what, get, resource] of gets) {
    api.openapi(
      operation({
        method: 'get',
        path: `/fx/${plural}/{id}`,
        tags: [TAG],
        summary: `Get ${what}`,
        request: { params: idParam },
      }),
      async (c) =>
        sendObject(
          c,
          (resource as (row: never) => Record<string, unknown>)(
            (await get(serviceContext(c), c.req.valid('param').id)) as never,
          ),
        ),
      validationHook(),
    );
  }

  api.openapi(
    operation({
      method: 'get',
      path: '/fx/conversions',
      tags: [TAG],
      summary: 'List FX conversions, newest first',
      request: { query: listQuerySchema },
    }),
    async (c) =>
      sendList(c, await listConversions(serviceContext(c), c.req.valid('query')), fxConversionResource),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/fx/settlements',
      tags: [TAG],
      summary: 'List FX settlements, newest first',
      request: { query: listQuerySchema.extend(listSettlementsQuery) },
    }),
    async (c) =>
      sendList(c, await listSettlements(serviceContext(c), c.req.valid('query')), fxSettlementResource),
    validationHook(),
  );
}
