import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { defineOperation } from '../operation.ts';
import { Dispute } from './disputes.resource.ts';
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

/** The operations on disputes, each declared once: its REST route and its GraphQL field. */

const idParam = z.object({ id: z.string().min(1).max(255).describe("The dispute's id (dp_…).") });
const TAGS = ['Disputes'];

export const disputeOperations = [
  defineOperation({
    name: 'listDisputes',
    method: 'get',
    path: '/disputes',
    tags: TAGS,
    summary: 'List disputes, newest first',
    query: listQuerySchema.extend({
      card_payment: z.string().max(64).optional().describe('Only the dispute of this card payment (id).'),
    }),
    output: Dispute,
    list: true,
    run: (ctx, { query }) => listDisputes(ctx, query),
    graphql: { name: 'disputes', filters: { cardPaymentId: 'card_payment' } },
  }),
  defineOperation({
    name: 'getDispute',
    method: 'get',
    path: '/disputes/{id}',
    tags: TAGS,
    summary: 'Get a dispute',
    params: idParam,
    output: Dispute,
    run: (ctx, { params }) => getDispute(ctx, params.id),
    graphql: { name: 'dispute' },
  }),
  defineOperation({
    name: 'updateDispute',
    method: 'post',
    path: '/disputes/{id}',
    tags: TAGS,
    summary: 'Save evidence and (unless submit is false) submit it: the dispute goes under review',
    params: idParam,
    body: updateDisputeSchema,
    optionalBody: true,
    errors: ['invalid_state', 'parameter_missing'],
    output: Dispute,
    run: (ctx, { params, body }) => updateDispute(ctx, params.id, body),
    graphql: { reload: getDispute },
  }),
  defineOperation({
    name: 'closeDispute',
    method: 'post',
    path: '/disputes/{id}/close',
    tags: TAGS,
    summary: 'Accept a dispute without contesting it (a chargeback is lost, an inquiry closed)',
    params: idParam,
    errors: ['invalid_state'],
    output: Dispute,
    run: (ctx, { params }) => closeDispute(ctx, params.id),
    graphql: { reload: getDispute },
  }),
  defineOperation({
    name: 'simulateCardPaymentDispute',
    method: 'post',
    path: '/simulate/card_payments/{id}/dispute',
    tags: ['Simulation'],
    summary: 'The cardholder disputes a captured card payment (a chargeback, or an inquiry)',
    description:
      "Filed under a reason code of the payment's card network (network_reason_code, or the one the reason implies). 400 dispute_reason_code_invalid for a code of another network, a retired one, or one that does not fit the reason; 409 dispute_window_closed after the code's window (calendar days after the capture's date, ET), with the deadline; 409 invalid_state when the payment is not captured, is disputed in full, or its network allows no further dispute (Visa: one besides 10.5; American Express: one; Mastercard: partial chargebacks up to the amount); 400 amount_invalid above what is captured and neither refunded nor disputed.",
    params: z.object({
      id: z.string().min(1).max(255).describe("The card payment's id (cp_…, captured)."),
    }),
    body: simulateDisputeSchema,
    optionalBody: true,
    codes: simulateDisputeFieldCodes,
    errors: ['invalid_state', 'amount_invalid', 'dispute_reason_code_invalid', 'dispute_window_closed'],
    output: Dispute,
    run: (ctx, { params, body }) => simulateDispute(ctx, params.id, body),
    graphql: { reload: getDispute },
  }),
  defineOperation({
    name: 'resolveDispute',
    method: 'post',
    path: '/simulate/disputes/{id}/resolve',
    tags: ['Simulation'],
    summary: 'The issuer decides a dispute now: won or lost (an inquiry: closed or escalated)',
    params: idParam,
    body: resolveDisputeSchema,
    errors: ['invalid_state'],
    output: Dispute,
    run: (ctx, { params, body }) => resolveDispute(ctx, params.id, body),
    graphql: { reload: getDispute },
  }),
];
