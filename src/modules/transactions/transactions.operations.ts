import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { defineOperation } from '../operation.ts';
import { Transaction } from './transactions.resource.ts';
import {
  getTransaction,
  listTransactions,
  SEARCH_MAX_LENGTH,
  TRANSACTION_KINDS,
} from './transactions.service.ts';

/** The operations on transactions of every kind, each declared once: its REST route and its GraphQL field. */

/** `kind=transfer,payout` or `kind=transfer&kind=payout`. */
const kindList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) =>
    (Array.isArray(value) ? value : [value])
      .flatMap((item) => item.split(','))
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  )
  .refine((kinds) => kinds.every((kind) => (TRANSACTION_KINDS as readonly string[]).includes(kind)), {
    message: `kinds are ${TRANSACTION_KINDS.join(', ')}`,
  });

const instant = z.iso.datetime({ offset: true });

export const transactionsQuery = listQuerySchema.extend({
  kind: kindList
    .optional()
    .describe(
      `Only transactions of these kinds (default: all), any of ${TRANSACTION_KINDS.join(', ')}; on REST comma-separated or repeated.`,
    ),
  state: z.string().max(40).optional().describe("Only transactions in this state (each kind's own states)."),
  created_from: instant.optional().describe('Created at or after this instant (clock time).'),
  created_to: instant.optional().describe('Created before this instant (clock time).'),
  q: z
    .string()
    .max(SEARCH_MAX_LENGTH)
    .optional()
    .describe(
      'The exact id of the transaction, of one of its events or of a refund; or a part of its reference (case-insensitive).',
    ),
});

const idParam = z.object({
  id: z.string().min(1).max(255).describe("The transaction's id (its prefix names its kind)."),
});
/** An instant as REST gives it (ISO 8601 text) or GraphQL (a DateTime). */
const dateOf = (value: string | Date | undefined) => (value === undefined ? undefined : new Date(value));

const TAGS = ['Transactions'];

export const transactionOperations = [
  defineOperation({
    name: 'listTransactions',
    method: 'get',
    path: '/transactions',
    tags: TAGS,
    summary: 'Every transaction across kinds, newest first; filter by kind, state, creation time, search',
    query: transactionsQuery,
    output: Transaction,
    list: true,
    run: (ctx, { query: { kind, created_from, created_to, ...query } }) =>
      listTransactions(ctx, {
        ...query,
        kinds: kind,
        created_from: dateOf(created_from),
        created_to: dateOf(created_to),
      }),
    graphql: {
      name: 'transactions',
      filters: {
        kinds: 'kind',
        state: 'state',
        createdFrom: 'created_from',
        createdTo: 'created_to',
        search: 'q',
      },
      filterTypes: { kinds: ['TransactionKind'], state: 'TransactionState' },
    },
  }),
  defineOperation({
    name: 'getTransaction',
    method: 'get',
    path: '/transactions/{id}',
    tags: TAGS,
    summary: 'One transaction of any kind by its id',
    params: idParam,
    output: Transaction,
    // The row: REST renders it by its kind, GraphQL's Transaction interface resolves its type.
    run: async (ctx, { params }) => (await getTransaction(ctx, params.id)).row,
    graphql: { name: 'transaction' },
  }),
];
