import { z } from 'zod';
import { CURRENCY_CODES } from '../../kernel/currency.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { currencyField } from '../../kernel/wire-schemas.ts';
import { defineOperation } from '../operation.ts';
import { getBalances, getBalanceTransaction, listBalanceTransactions } from './ledger.queries.ts';
import { BalancesAnswer, BalanceTransaction } from './ledger.resource.ts';
import { topUpFieldCodes, topUpSchema } from './ledger.schema.ts';
import { topUpBalance } from './ledger.topup.ts';

/** The balance operations, each declared once: its REST route and its GraphQL field. */

const transactionsQuery = listQuerySchema.extend({
  currency: currencyField(CURRENCY_CODES, 'a currency is USD, EUR, GBP or JPY').optional(),
  source_id: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,64}(,[A-Za-z0-9_]{1,64}){0,49}$/, 'object ids, comma-separated (at most 50)')
    .optional()
    .describe("Only the postings of these source objects (ids, comma-separated): a transaction's postings."),
});

const TAGS = ['Balances'];

export const ledgerOperations = [
  // GraphQL's balances is written by hand (ledger.graphql.ts): a list of Balance, not an object.
  defineOperation({
    name: 'listBalances',
    method: 'get',
    path: '/balances',
    tags: TAGS,
    summary: 'Balances per currency: available, pending, reserved',
    description: 'One balance per currency the merchant has used, USD always; not paginated.',
    output: BalancesAnswer,
    run: (ctx) => getBalances(ctx),
    graphql: false,
  }),
  // GraphQL's balanceTransactions is written by hand (ledger.graphql.ts): its sourceIds is a list
  // of IDs where REST's source_id is one comma-separated string.
  defineOperation({
    name: 'listBalanceTransactions',
    method: 'get',
    path: '/balance_transactions',
    tags: TAGS,
    summary: 'Ledger postings, newest first, each with its source object',
    query: transactionsQuery,
    codes: { currency: 'currency_unsupported' },
    errors: ['currency_unsupported'],
    output: BalanceTransaction,
    list: true,
    run: (ctx, { query: { source_id, ...query } }) =>
      listBalanceTransactions(ctx, { ...query, source_ids: source_id?.split(',') }),
    graphql: false,
  }),
  defineOperation({
    name: 'topUpBalance',
    method: 'post',
    path: '/simulate/balance/top_up',
    tags: ['Simulation'],
    summary: 'Fund the sandbox instantly (available balance)',
    description:
      'Credits the available balance of the currency at once, at most 10,000,000 major units per top-up. Answers with the posting (a balance transaction of type top_up).',
    body: topUpSchema,
    codes: topUpFieldCodes,
    errors: ['amount_invalid', 'currency_unsupported'],
    output: BalanceTransaction,
    run: (ctx, { body }) => topUpBalance(ctx, body),
    graphql: { reload: getBalanceTransaction },
  }),
];
