import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { DisputeWire, disputeResource } from './disputes.resource.ts';
import {
  resolveDisputeSchema,
  simulateDisputeFieldCodes,
  simulateDisputeSchema,
  updateDisputeSchema,
} from './disputes.schema.ts';
import {
  closeDispute,
  getDispute,
  listDisputes,
  resolveDispute,
  simulateDispute,
  updateDispute,
} from './disputes.service.ts';

const idParam = z.object({ id: z.string().min(1).max(255) });
const DisputeList = listOf(DisputeWire, 'Dispute');

export function registerDisputeRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'get',
      path: '/disputes',
      operationId: 'listDisputes',
      response: DisputeList,
      tags: ['Disputes'],
      summary: 'List disputes, newest first',
      request: {
        query: listQuerySchema.extend({
          card_payment: z.string().max(64).optional().describe('Only the dispute of this card payment (id).'),
        }),
      },
    }),
    async (c) => sendList(c, await listDisputes(serviceContext(c), c.req.valid('query')), disputeResource),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/disputes/{id}',
      operationId: 'getDispute',
      response: DisputeWire,
      tags: ['Disputes'],
      summary: 'Get a dispute',
      request: { params: idParam },
    }),
    async (c) => sendObject(c, disputeResource(await getDispute(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/disputes/{id}',
      operationId: 'updateDispute',
      response: DisputeWire,
      errors: ['invalid_state', 'parameter_missing'],
      tags: ['Disputes'],
      summary: 'Save evidence and (unless submit is false) submit it: the dispute goes under review',
      request: { params: idParam, ...jsonRequestBody(updateDisputeSchema, false) },
    }),
    async (c) => {
      const row = await updateDispute(serviceContext(c), c.req.valid('param').id, c.req.valid('json'));
      return sendObject(c, disputeResource(row));
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/disputes/{id}/close',
      operationId: 'closeDispute',
      response: DisputeWire,
      errors: ['invalid_state'],
      tags: ['Disputes'],
      summary: 'Accept a dispute without contesting it (a chargeback is lost, an inquiry closed)',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(c, disputeResource(await closeDispute(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/card_payments/{id}/dispute',
      operationId: 'simulateCardPaymentDispute',
      response: DisputeWire,
      errors: ['invalid_state', 'amount_invalid'],
      tags: ['Simulation'],
      summary: 'The cardholder disputes a captured card payment (a chargeback, or an inquiry)',
      request: { params: idParam, ...jsonRequestBody(simulateDisputeSchema, false) },
    }),
    async (c) => {
      const row = await simulateDispute(serviceContext(c), c.req.valid('param').id, c.req.valid('json'));
      return sendObject(c, disputeResource(row));
    },
    validationHook(simulateDisputeFieldCodes),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/disputes/{id}/resolve',
      operationId: 'resolveDispute',
      response: DisputeWire,
      errors: ['invalid_state'],
      tags: ['Simulation'],
      summary: 'The issuer decides a dispute now: won or lost (an inquiry: closed or escalated)',
      request: { params: idParam, ...jsonRequestBody(resolveDisputeSchema) },
    }),
    async (c) => {
      const row = await resolveDispute(serviceContext(c), c.req.valid('param').id, c.req.valid('json'));
      return sendObject(c, disputeResource(row));
    },
    validationHook(),
  );
}
