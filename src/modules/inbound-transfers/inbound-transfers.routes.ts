import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { InboundTransferWire, inboundTransferResource } from './inbound-transfers.resource.ts';
import {
  createInboundTransferFieldCodes,
  createInboundTransferSchema,
  listInboundTransfersQuery,
  returnInboundTransferSchema,
} from './inbound-transfers.schema.ts';
import {
  createInboundTransfer,
  getInboundTransfer,
  listInboundTransfers,
  returnInboundTransfer,
  settleInboundTransfer,
} from './inbound-transfers.service.ts';

const idParam = z.object({ id: z.string().min(1).max(255) });
const TAG = 'Inbound transfers';

export function registerInboundTransferRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/inbound_transfers',
      operationId: 'simulateInboundTransfer',
      response: InboundTransferWire,
      errors: [
        'amount_invalid',
        'currency_unsupported',
        'reference_invalid',
        'invalid_routing_number',
        'invalid_account_number',
        'amount_exceeds_rail_limit',
        'rail_direction_unsupported',
      ],
      tags: ['Simulation', TAG],
      summary: 'An outside originator sends the merchant money (credit) or pulls it (debit)',
      description:
        'ACH and Same-Day ACH: the entry travels in the next FedACH window of the simulated clock; a credit is pending at once and available at settlement, a debit takes the money from available at settlement (below zero if it must). RTP and FedNow: credits only, completed and available at once.',
      request: jsonRequestBody(createInboundTransferSchema),
    }),
    async (c) =>
      sendObject(
        c,
        inboundTransferResource(await createInboundTransfer(serviceContext(c), c.req.valid('json'))),
      ),
    validationHook(createInboundTransferFieldCodes),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/inbound_transfers',
      operationId: 'listInboundTransfers',
      response: listOf(InboundTransferWire, 'InboundTransfer'),
      tags: [TAG],
      summary: 'List inbound transfers, newest first',
      request: { query: listQuerySchema.extend(listInboundTransfersQuery) },
    }),
    async (c) =>
      sendList(
        c,
        await listInboundTransfers(serviceContext(c), c.req.valid('query')),
        inboundTransferResource,
      ),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/inbound_transfers/{id}',
      operationId: 'getInboundTransfer',
      response: InboundTransferWire,
      tags: [TAG],
      summary: 'Get an inbound transfer',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(
        c,
        inboundTransferResource(await getInboundTransfer(serviceContext(c), c.req.valid('param').id)),
      ),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/inbound_transfers/{id}/return',
      operationId: 'returnInboundTransfer',
      response: InboundTransferWire,
      errors: ['invalid_state', 'return_code_not_allowed', 'return_deadline_passed'],
      tags: [TAG],
      summary: 'Return a settled inbound ACH entry, with a Nacha return code',
      description:
        'The merchant, as the receiver, sends the entry back: a debit’s money comes back to available, a credit’s leaves it. 409 invalid_state unless settled on ACH; 400 parameter_invalid for a code that is not in the Nacha list, 400 return_code_not_allowed for a code a receiving bank may not use on this entry (by direction and SEC code); 422 return_deadline_passed after the code’s time frame (2 banking days after settlement, 60 calendar days for R05, R07, R10, R11), naming the deadline.',
      request: { params: idParam, ...jsonRequestBody(returnInboundTransferSchema) },
    }),
    async (c) =>
      sendObject(
        c,
        inboundTransferResource(
          await returnInboundTransfer(serviceContext(c), c.req.valid('param').id, c.req.valid('json')),
        ),
      ),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/inbound_transfers/{id}/settle',
      operationId: 'settleInboundTransfer',
      response: InboundTransferWire,
      errors: ['invalid_state'],
      tags: ['Simulation'],
      summary: 'Settle a pending inbound ACH entry now',
      description:
        'Moves a pending ACH or Same-Day ACH inbound transfer to settled before its settlement time (409 invalid_state in another state, and on RTP and FedNow).',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(
        c,
        inboundTransferResource(await settleInboundTransfer(serviceContext(c), c.req.valid('param').id)),
      ),
    validationHook(),
  );
}
