import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { defineOperation } from '../operation.ts';
import { PaymentRequest } from './payment-requests.resource.ts';
import {
  createPaymentRequestFieldCodes,
  createPaymentRequestSchema,
  listPaymentRequestsQuery,
  rejectPaymentRequestSchema,
  simulatePaymentRequestFieldCodes,
  simulatePaymentRequestSchema,
} from './payment-requests.schema.ts';
import {
  acceptPaymentRequest,
  cancelPaymentRequest,
  createPaymentRequest,
  getPaymentRequest,
  listPaymentRequests,
  rejectPaymentRequest,
  simulatePaymentRequest,
} from './payment-requests.service.ts';

/** The operations on requests for payment, each declared once: its REST route and its GraphQL field. */

const TAGS = ['Payment requests'];
const idParam = z.object({ id: z.string().min(1).max(255).describe("The request's id (rfp_…).") });
const CREATE_ERRORS = [
  'amount_invalid',
  'amount_exceeds_rail_limit',
  'currency_unsupported',
  'invalid_routing_number',
  'invalid_account_number',
] as const;

export const paymentRequestOperations = [
  defineOperation({
    name: 'createPaymentRequest',
    method: 'post',
    path: '/payment_requests',
    tags: TAGS,
    summary: 'Ask a payer for money on RTP or FedNow (a request for payment)',
    description:
      "The request (pain.013) goes to the payer's bank, which answers a minute later (clock time): it accepts, then pays a minute after with a credit transfer on the same rail (an inbound transfer; state paid), or rejects with an ISO 20022 reason (000444444440: AC04; 000555555553: AM14; routing 790000051: AC03). 000888888885 accepts and never pays, 000000000009 never answers: both expire at expires_at. 400 parameter_invalid for an expiry not after the clock or more than 90 days on; 400 amount_exceeds_rail_limit above the rail's limit.",
    body: createPaymentRequestSchema,
    codes: createPaymentRequestFieldCodes,
    errors: [...CREATE_ERRORS],
    output: PaymentRequest,
    run: (ctx, { body }) => createPaymentRequest(ctx, body),
    graphql: { reload: getPaymentRequest },
  }),
  defineOperation({
    name: 'listPaymentRequests',
    method: 'get',
    path: '/payment_requests',
    tags: TAGS,
    summary: 'List requests for payment, sent and received, newest first',
    query: listQuerySchema.extend(listPaymentRequestsQuery),
    output: PaymentRequest,
    list: true,
    run: (ctx, { query }) => listPaymentRequests(ctx, query),
    graphql: { name: 'paymentRequests', filters: { direction: 'direction', state: 'state' } },
  }),
  defineOperation({
    name: 'getPaymentRequest',
    method: 'get',
    path: '/payment_requests/{id}',
    tags: TAGS,
    summary: 'Get a request for payment',
    params: idParam,
    output: PaymentRequest,
    run: (ctx, { params }) => getPaymentRequest(ctx, params.id),
    graphql: { name: 'paymentRequest' },
  }),
  defineOperation({
    name: 'cancelPaymentRequest',
    method: 'post',
    path: '/payment_requests/{id}/cancel',
    tags: TAGS,
    summary: 'Withdraw a request the merchant sent, before it is paid',
    params: idParam,
    errors: ['invalid_state'],
    output: PaymentRequest,
    run: (ctx, { params }) => cancelPaymentRequest(ctx, params.id),
    graphql: { reload: getPaymentRequest },
  }),
  defineOperation({
    name: 'acceptPaymentRequest',
    method: 'post',
    path: '/payment_requests/{id}/accept',
    tags: TAGS,
    summary: 'Accept a request the merchant received, and pay it with a credit transfer',
    description:
      "Accepts a pending inbound request and pays it at once: a credit transfer on the request's rail to the requester (held from the available balance; 422 insufficient_balance when short, and nothing is written). The request is accepted, then paid, naming the transfer.",
    params: idParam,
    errors: ['invalid_state', 'insufficient_balance'],
    output: PaymentRequest,
    run: (ctx, { params }) => acceptPaymentRequest(ctx, params.id),
    graphql: { reload: getPaymentRequest },
  }),
  defineOperation({
    name: 'rejectPaymentRequest',
    method: 'post',
    path: '/payment_requests/{id}/reject',
    tags: TAGS,
    summary: 'Refuse a request the merchant received, with an ISO 20022 reason',
    params: idParam,
    body: rejectPaymentRequestSchema,
    optionalBody: true,
    errors: ['invalid_state'],
    output: PaymentRequest,
    run: (ctx, { params, body }) => rejectPaymentRequest(ctx, params.id, body),
    graphql: { reload: getPaymentRequest },
  }),
  defineOperation({
    name: 'simulatePaymentRequest',
    method: 'post',
    path: '/simulate/payment_requests',
    tags: ['Simulation'],
    summary: 'A requester asks the merchant for money on RTP or FedNow (an inbound request for payment)',
    body: simulatePaymentRequestSchema,
    codes: simulatePaymentRequestFieldCodes,
    errors: [...CREATE_ERRORS],
    output: PaymentRequest,
    run: (ctx, { body }) => simulatePaymentRequest(ctx, body),
    graphql: { reload: getPaymentRequest },
  }),
];
