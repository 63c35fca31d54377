import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { defineOperation } from '../operation.ts';
import { Counterparty } from './counterparties.resource.ts';
import { createCounterpartySchema } from './counterparties.schema.ts';
import { createCounterparty, getCounterparty, listCounterparties } from './counterparties.service.ts';

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
];
