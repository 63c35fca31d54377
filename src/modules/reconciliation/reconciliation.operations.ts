import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { defineOperation } from '../operation.ts';
import { ExpectedPayment } from './reconciliation.resource.ts';
import {
  createExpectedPaymentFieldCodes,
  createExpectedPaymentSchema,
  listExpectedPaymentsQuery,
} from './reconciliation.schema.ts';
import {
  cancelExpectedPayment,
  createExpectedPayment,
  getExpectedPayment,
  listExpectedPayments,
  readExpectedPayment,
} from './reconciliation.service.ts';
import { simulatePayment } from './reconciliation.simulate.ts';

/** The reconciliation operations, each declared once: its REST route and its GraphQL field. */

const TAGS = ['Reconciliation'];
const idParam = z.object({ id: z.string().min(1).max(255).describe("The expected payment's id (exp_…).") });

export const reconciliationOperations = [
  defineOperation({
    name: 'createExpectedPayment',
    method: 'post',
    path: '/expected_payments',
    tags: TAGS,
    summary: 'Expect a payment: matched automatically against the bank movements',
    description:
      "An amount (or amount_min and amount_max), a direction, a window of days (date_from to date_to, New York), optionally a rail and a reference. Matched against the movements booked in the window: with a reference, those carrying it add up (partially_matched, then matched); without one, a single movement within the range matches. Unmatched at the window's end: overdue. 400 parameter_invalid for a window that ends before it starts, is longer than 366 days or has already ended.",
    body: createExpectedPaymentSchema,
    codes: createExpectedPaymentFieldCodes,
    errors: ['amount_invalid', 'currency_unsupported'],
    output: ExpectedPayment,
    run: (ctx, { body }) => createExpectedPayment(ctx, body),
    graphql: { reload: getExpectedPayment },
  }),
  defineOperation({
    name: 'listExpectedPayments',
    method: 'get',
    path: '/expected_payments',
    tags: TAGS,
    summary: 'List expected payments, newest first',
    query: listQuerySchema.extend(listExpectedPaymentsQuery),
    output: ExpectedPayment,
    list: true,
    run: (ctx, { query }) => listExpectedPayments(ctx, query),
    graphql: { name: 'expectedPayments', filters: { state: 'state' } },
  }),
  defineOperation({
    name: 'getExpectedPayment',
    method: 'get',
    path: '/expected_payments/{id}',
    tags: TAGS,
    summary: 'Retrieve an expected payment',
    params: idParam,
    output: ExpectedPayment,
    run: (ctx, { params }) => readExpectedPayment(ctx, params.id),
    graphql: { name: 'expectedPayment' },
  }),
  defineOperation({
    name: 'cancelExpectedPayment',
    method: 'post',
    path: '/expected_payments/{id}/cancel',
    tags: TAGS,
    summary: 'Cancel an expected payment (unmatched or partially matched)',
    params: idParam,
    errors: ['invalid_state'],
    output: ExpectedPayment,
    run: (ctx, { params }) => cancelExpectedPayment(ctx, params.id),
    graphql: { reload: getExpectedPayment },
  }),
  defineOperation({
    name: 'simulateExpectedPaymentPayment',
    method: 'post',
    path: '/simulate/expected_payments/{id}/pay',
    tags: ['Simulation'],
    summary:
      "Have an expected credit's payer pay it (magic cents make it short, split, over or mis-referenced)",
    description:
      'An inbound transfer on its rail (ACH when it names none) carrying its reference, now (inside its window). The cents of amount_max choose how the payer pays: .01 pays 1.00 short, .02 pays in two halves, .03 pays 1.00 over, .04 pays under another reference, .05 pays in full at 10:00 New York the day after the window ends (late: the expected payment is overdue, the payment unmatched); any other amount pays amount_max. 409 invalid_state for an expected debit, one no longer open, or a clock outside the window.',
    params: idParam,
    errors: ['invalid_state'],
    output: ExpectedPayment,
    run: (ctx, { params }) => simulatePayment(ctx, params.id),
    graphql: { reload: getExpectedPayment },
  }),
];
