import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { CounterpartyWire, counterpartyResource } from './counterparties.resource.ts';
import { createCounterpartySchema } from './counterparties.schema.ts';
import { createCounterparty, getCounterparty, listCounterparties } from './counterparties.service.ts';

const idParam = z.object({ id: z.string().min(1).max(255) });

export function registerCounterpartyRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/counterparties',
      operationId: 'createCounterparty',
      response: CounterpartyWire,
      errors: ['invalid_routing_number', 'invalid_account_number'],
      tags: ['Counterparties'],
      summary: 'Save a bank account transfers can name (counterparty: "cpty_…")',
      description:
        'The account is checked as an inline one is (ABA checksum, 4-17 digit account number). A notification of change on an entry to it corrects it; refusing the NOC reverts the correction.',
      request: jsonRequestBody(createCounterpartySchema),
    }),
    async (c) =>
      sendObject(c, counterpartyResource(await createCounterparty(serviceContext(c), c.req.valid('json')))),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/counterparties',
      operationId: 'listCounterparties',
      response: listOf(CounterpartyWire, 'Counterparty'),
      tags: ['Counterparties'],
      summary: 'List saved counterparties, newest first',
      request: { query: listQuerySchema },
    }),
    async (c) =>
      sendList(c, await listCounterparties(serviceContext(c), c.req.valid('query')), counterpartyResource),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/counterparties/{id}',
      operationId: 'getCounterparty',
      response: CounterpartyWire,
      tags: ['Counterparties'],
      summary: 'Get a saved counterparty, with the corrections it received',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(c, counterpartyResource(await getCounterparty(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );
}
