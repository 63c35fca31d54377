import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { TransactionWire, transactionResource } from './transactions.resource.ts';
import {
  getTransaction,
  listTransactions,
  SEARCH_MAX_LENGTH,
  TRANSACTION_KINDS,
  typedTransaction,
} from './transactions.service.ts';

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
  kind: kindList.optional().describe(`Any of ${TRANSACTION_KINDS.join(', ')}: comma-separated or repeated.`),
  state: z.string().max(40).optional().describe("Only this state (each kind's own states)."),
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

const idParam = z.object({ id: z.string().min(1).max(255) });
const dateOf = (value: string | undefined) => (value === undefined ? undefined : new Date(value));

export function registerTransactionRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'get',
      path: '/transactions',
      operationId: 'listTransactions',
      response: listOf(TransactionWire, 'Transaction'),
      tags: ['Transactions'],
      summary: 'Every transaction across kinds, newest first; filter by kind, state, creation time, search',
      request: { query: transactionsQuery },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const { kind, created_from, created_to, ...query } = c.req.valid('query');
      const page = await listTransactions(ctx, {
        ...query,
        kinds: kind,
        created_from: dateOf(created_from),
        created_to: dateOf(created_to),
      });
      return sendList(c, page, (row) => transactionResource(typedTransaction(row), ctx.publicUrl));
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/transactions/{id}',
      operationId: 'getTransaction',
      response: TransactionWire,
      tags: ['Transactions'],
      summary: 'One transaction of any kind by its id',
      request: { params: idParam },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      return sendObject(
        c,
        transactionResource(await getTransaction(ctx, c.req.valid('param').id), ctx.publicUrl),
      );
    },
    validationHook(),
  );
}
