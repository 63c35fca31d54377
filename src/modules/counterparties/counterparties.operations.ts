import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { defineOperation } from '../operation.ts';
import { Counterparty } from './counterparties.resource.ts';
import { confirmMicrodepositsSchema, createCounterpartySchema } from './counterparties.schema.ts';
import { createCounterparty, getCounterparty, listCounterparties } from './counterparties.service.ts';
import { confirmMicrodeposits, sendMicrodeposits, sendPrenote } from './counterparties.verification.ts';

/** The operations on saved counterparties, each declared once: its REST route and its GraphQL field. */

const idParam = z.object({
  id: z.string().min(1).max(255).describe("The counterparty's id (cpty_…)."),
});

const TAGS = ['Counterparties'];

export const counterpartyOperations = [
  defineOperation({
    name: 'createCounterparty',
    method: 'post',
    path: '/counterparties',
    tags: TAGS,
    summary: 'Save a bank account transfers can name (counterparty: "cpty_…")',
    description:
      'The account is checked as an inline one is (ABA checksum, 4-17 digit account number). A notification of change on an entry to it corrects it; refusing the NOC reverts the correction.',
    body: createCounterpartySchema,
    errors: ['invalid_routing_number', 'invalid_account_number'],
    output: Counterparty,
    run: (ctx, { body }) => createCounterparty(ctx, body),
    graphql: { reload: getCounterparty },
  }),
  defineOperation({
    name: 'listCounterparties',
    method: 'get',
    path: '/counterparties',
    tags: TAGS,
    summary: 'List saved counterparties, newest first',
    query: listQuerySchema,
    output: Counterparty,
    list: true,
    run: (ctx, { query }) => listCounterparties(ctx, query),
    graphql: { name: 'counterparties' },
  }),
  defineOperation({
    name: 'getCounterparty',
    method: 'get',
    path: '/counterparties/{id}',
    tags: TAGS,
    summary: 'Get a saved counterparty, with the corrections it received',
    params: idParam,
    output: Counterparty,
    run: (ctx, { params }) => getCounterparty(ctx, params.id),
    graphql: { name: 'counterparty' },
  }),
  defineOperation({
    name: 'sendCounterpartyMicrodeposits',
    method: 'post',
    path: '/counterparties/{id}/microdeposits',
    tags: TAGS,
    summary: 'Verify a counterparty by micro-deposits: two credits under 1.00 and their offsetting debit',
    description:
      "Nacha micro-entries: credits of 0.32 and 0.45 and a debit of 0.77, described ACCTVERIFY, in the next Same-Day ACH window, settling together (nothing moves on the merchant's balance). The counterparty is verification_pending until confirmed (POST …/microdeposits/confirm), from the window's settlement (verification_available_at); it may be paid meanwhile, not debited. Accounts 000111111113 and 000111111116 return them (R02, R03): verification_failed. 409 invalid_state while pending or once verified.",
    params: idParam,
    errors: ['invalid_state'],
    output: Counterparty,
    run: (ctx, { params }) => sendMicrodeposits(ctx, params.id),
    graphql: { reload: getCounterparty },
  }),
  defineOperation({
    name: 'confirmCounterpartyMicrodeposits',
    method: 'post',
    path: '/counterparties/{id}/microdeposits/confirm',
    tags: TAGS,
    summary: 'Confirm the micro-deposit amounts: the counterparty is verified',
    description:
      'The two amounts in any order verify it. Wrong amounts use one of 3 attempts: 400 microdeposit_amounts_mismatch with attempts_remaining (the attempt is recorded); the last wrong one fails the verification. 409 invalid_state before the micro-deposits arrive (verification_available_at) or when there are none to confirm.',
    params: idParam,
    body: confirmMicrodepositsSchema,
    errors: ['invalid_state', 'microdeposit_amounts_mismatch'],
    output: Counterparty,
    run: (ctx, { params, body }) => confirmMicrodeposits(ctx, params.id, body),
    graphql: { reload: getCounterparty },
  }),
  defineOperation({
    name: 'sendCounterpartyPrenote',
    method: 'post',
    path: '/counterparties/{id}/prenote',
    tags: TAGS,
    summary: 'Verify a counterparty by a prenote: a zero-dollar ACH entry, then the waiting period',
    description:
      'The prenote goes in the next standard ACH deposit. Live ACH entries to the counterparty may start on the third banking day after it settles (verification_available_at, 00:00 ET): until then they are refused with 409 counterparty_verification_pending (with the deadline), and then the counterparty is verified. Accounts 000111111113 and 000111111116 return it (R02, R03): verification_failed. 409 invalid_state while pending or once verified.',
    params: idParam,
    errors: ['invalid_state'],
    output: Counterparty,
    run: (ctx, { params }) => sendPrenote(ctx, params.id),
    graphql: { reload: getCounterparty },
  }),
];
