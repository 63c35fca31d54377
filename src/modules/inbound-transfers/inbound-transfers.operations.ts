import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { defineOperation } from '../operation.ts';
import { InboundTransfer } from './inbound-transfers.resource.ts';
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

/** The operations on inbound transfers, each declared once: its REST route and its GraphQL field. */

const idParam = z.object({
  id: z.string().min(1).max(255).describe("The inbound transfer's id (itr_…)."),
});

const TAG = 'Inbound transfers';

export const inboundTransferOperations = [
  defineOperation({
    name: 'simulateInboundTransfer',
    method: 'post',
    path: '/simulate/inbound_transfers',
    tags: ['Simulation', TAG],
    summary: 'An outside originator sends the merchant money (credit) or pulls it (debit)',
    description:
      'ACH and Same-Day ACH: the entry travels in the next FedACH window of the simulated clock; a credit is pending at once and available at settlement, a debit takes the money from available at settlement (below zero if it must). RTP and FedNow: credits only, completed and available at once.',
    body: createInboundTransferSchema,
    codes: createInboundTransferFieldCodes,
    errors: [
      'amount_invalid',
      'currency_unsupported',
      'reference_invalid',
      'invalid_routing_number',
      'invalid_account_number',
      'amount_exceeds_rail_limit',
      'rail_direction_unsupported',
    ],
    output: InboundTransfer,
    run: (ctx, { body }) => createInboundTransfer(ctx, body),
    graphql: { reload: getInboundTransfer },
  }),
  defineOperation({
    name: 'listInboundTransfers',
    method: 'get',
    path: '/inbound_transfers',
    tags: [TAG],
    summary: 'List inbound transfers, newest first',
    query: listQuerySchema.extend(listInboundTransfersQuery),
    output: InboundTransfer,
    list: true,
    run: (ctx, { query }) => listInboundTransfers(ctx, query),
    graphql: { name: 'inboundTransfers', filters: { rail: 'rail', state: 'state' } },
  }),
  defineOperation({
    name: 'getInboundTransfer',
    method: 'get',
    path: '/inbound_transfers/{id}',
    tags: [TAG],
    summary: 'Get an inbound transfer',
    params: idParam,
    output: InboundTransfer,
    run: (ctx, { params }) => getInboundTransfer(ctx, params.id),
    graphql: { name: 'inboundTransfer' },
  }),
  defineOperation({
    name: 'returnInboundTransfer',
    method: 'post',
    path: '/inbound_transfers/{id}/return',
    tags: [TAG],
    summary: 'Return a settled inbound ACH entry, with a Nacha return code',
    description:
      'The merchant, as the receiver, sends the entry back: a debit’s money comes back to available, a credit’s leaves it. 409 invalid_state unless settled on ACH; 400 parameter_invalid for a code that is not in the Nacha list, 400 return_code_not_allowed for a code a receiving bank may not use on this entry (by direction and SEC code); 409 return_deadline_passed after the code’s time frame (2 banking days after settlement, 60 calendar days for R05, R07, R10, R11), naming the deadline.',
    params: idParam,
    body: returnInboundTransferSchema,
    errors: ['invalid_state', 'return_code_not_allowed', 'return_deadline_passed'],
    output: InboundTransfer,
    run: (ctx, { params, body }) => returnInboundTransfer(ctx, params.id, body),
    graphql: { reload: getInboundTransfer },
  }),
  defineOperation({
    name: 'settleInboundTransfer',
    method: 'post',
    path: '/simulate/inbound_transfers/{id}/settle',
    tags: ['Simulation'],
    summary: 'Settle a pending inbound ACH entry now',
    description:
      'Moves a pending ACH or Same-Day ACH inbound transfer to settled before its settlement time (409 invalid_state in another state, and on RTP and FedNow).',
    params: idParam,
    errors: ['invalid_state'],
    output: InboundTransfer,
    run: (ctx, { params }) => settleInboundTransfer(ctx, params.id),
    graphql: { name: 'simulateInboundTransferSettle', reload: getInboundTransfer },
  }),
];
