import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { cardPaymentResource } from '../card-payments/card-payments.resource.ts';
import { collectionResource } from '../collections/collections.resource.ts';
import { fxConversionResource, fxSettlementResource } from '../fx/fx.resource.ts';
import { issuingAuthorizationResource } from '../issuing/issuing.resource.ts';
import { payoutResource, transferResource } from '../transfers/transfers.resource.ts';
import {
  getTransaction,
  listTransactions,
  SEARCH_MAX_LENGTH,
  TRANSACTION_KINDS,
  type TypedTransaction,
  typedTransaction,
} from './transactions.service.ts';

/** A transaction as its own kind's resource renders it, with `kind` beside its fields. */
export function transactionResource(tx: TypedTransaction, publicUrl: string): Record<string, unknown> {
  const body = (() => {
    switch (tx.kind) {
      case 'collection':
        return collectionResource(tx.row, publicUrl);
      case 'card_payment':
        return cardPaymentResource(tx.row, tx.row.refunds, publicUrl);
      case 'transfer':
        return transferResource(tx.row);
      case 'payout':
        return payoutResource(tx.row);
      case 'issuing_authorization':
        return issuingAuthorizationResource(tx.row);
      case 'fx_conversion':
        return fxConversionResource(tx.row);
      case 'fx_settlement':
        return fxSettlementResource(tx.row);
    }
  })();
  return { ...body, kind: tx.kind };
}

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
