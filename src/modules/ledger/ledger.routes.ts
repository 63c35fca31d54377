import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { CURRENCY_CODES } from '../../kernel/currency.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import type { Wire } from '../../kernel/wire-resources.ts';
import { currencyField } from '../../kernel/wire-schemas.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { getBalances, listBalanceTransactions } from './ledger.queries.ts';
import {
  BalancesWire,
  BalanceTransactionWire,
  balanceResource,
  balanceTransactionResource,
} from './ledger.resource.ts';
import { topUpFieldCodes, topUpSchema } from './ledger.schema.ts';
import { topUpBalance } from './ledger.topup.ts';

const transactionsQuery = listQuerySchema.extend({
  currency: currencyField(CURRENCY_CODES, 'a currency is USD, EUR, GBP or JPY').optional(),
  source_id: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,64}(,[A-Za-z0-9_]{1,64}){0,49}$/, 'object ids, comma-separated (at most 50)')
    .optional()
    .describe("Only the postings of these source objects (ids, comma-separated): a transaction's postings."),
});

export function registerLedgerRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'get',
      path: '/balances',
      operationId: 'listBalances',
      response: BalancesWire,
      tags: ['Balances'],
      summary: 'Balances per currency: available, pending, reserved',
      description: 'One balance per currency the merchant has used, USD always; not paginated.',
    }),
    async (c) => {
      const balances = await getBalances(serviceContext(c));
      return sendObject(c, { data: balances.map(balanceResource) } satisfies Wire<typeof BalancesWire>);
    },
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/balance_transactions',
      operationId: 'listBalanceTransactions',
      response: listOf(BalanceTransactionWire, 'BalanceTransaction'),
      errors: ['currency_unsupported'],
      tags: ['Balances'],
      summary: 'Ledger postings, newest first, each with its source object',
      request: { query: transactionsQuery },
    }),
    async (c) => {
      const { source_id, ...query } = c.req.valid('query');
      const page = await listBalanceTransactions(serviceContext(c), {
        ...query,
        source_ids: source_id?.split(','),
      });
      return sendList(c, page, balanceTransactionResource);
    },
    validationHook({ currency: 'currency_unsupported' }),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/balance/top_up',
      operationId: 'topUpBalance',
      response: BalanceTransactionWire,
      errors: ['amount_invalid', 'currency_unsupported'],
      tags: ['Simulation'],
      summary: 'Fund the sandbox instantly (available balance)',
      description:
        'Credits the available balance of the currency at once, at most 10,000,000 major units per top-up. Answers with the posting (a balance transaction of type top_up).',
      request: jsonRequestBody(topUpSchema),
    }),
    async (c) => {
      const posting = await topUpBalance(serviceContext(c), c.req.valid('json'));
      return sendObject(c, balanceTransactionResource(posting));
    },
    validationHook(topUpFieldCodes),
  );
}
