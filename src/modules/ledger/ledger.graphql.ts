import { builder } from '../../graphql/builder.ts';
import { idempotentMutation, listQueryOf, serviceContext, toConnection } from '../../graphql/context.ts';
import { CurrencyCodeEnum, MoneyRef } from '../../graphql/scalars.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import {
  type Balance,
  getBalances,
  getBalanceTransaction,
  listBalanceTransactions,
} from './ledger.queries.ts';
import type { PostingRow } from './ledger.rows.ts';
import { topUpFieldCodes, topUpSchema } from './ledger.schema.ts';
import { topUpBalance } from './ledger.topup.ts';

const BalanceRef = builder.objectRef<Balance>('Balance').implement({
  description: "A merchant's balances in one currency.",
  fields: (t) => ({
    currency: t.field({ type: CurrencyCodeEnum, resolve: (b) => b.currency }),
    available: t.field({ type: MoneyRef, resolve: (b) => ({ amount: b.available, currency: b.currency }) }),
    pending: t.field({ type: MoneyRef, resolve: (b) => ({ amount: b.pending, currency: b.currency }) }),
    reserved: t.field({ type: MoneyRef, resolve: (b) => ({ amount: b.reserved, currency: b.currency }) }),
  }),
});

const money = (amount: bigint, currency: string) => ({ amount, currency: currency as CurrencyCode });

const BalanceTransactionRef = builder.objectRef<PostingRow>('BalanceTransaction').implement({
  description:
    'A ledger posting: its effect on available, pending and reserved, and the object it came from.',
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeString('type'),
    state: t.exposeString('state'),
    currency: t.field({ type: CurrencyCodeEnum, resolve: (row) => row.currency as CurrencyCode }),
    available: t.field({ type: MoneyRef, resolve: (row) => money(row.availableDelta, row.currency) }),
    pending: t.field({ type: MoneyRef, resolve: (row) => money(row.pendingDelta, row.currency) }),
    reserved: t.field({ type: MoneyRef, resolve: (row) => money(row.reservedDelta, row.currency) }),
    sourceType: t.exposeString('sourceType'),
    sourceId: t.exposeString('sourceId'),
    relatedId: t.exposeString('relatedId', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
  }),
});

builder.queryFields((t) => ({
  balances: t.field({
    type: [BalanceRef],
    description: 'One row per currency the merchant has touched; USD always.',
    resolve: (_root, _args, ctx) => getBalances(serviceContext(ctx)),
  }),
  balanceTransactions: t.connection({
    type: BalanceTransactionRef,
    description: 'Ledger postings, newest first (first: 1-100, default 20).',
    args: {
      currency: t.arg({ type: CurrencyCodeEnum }),
      sourceIds: t.arg.idList({ description: 'Only postings of these source objects (at most 50).' }),
    },
    resolve: async (_root, args, ctx) => {
      const page = await listBalanceTransactions(serviceContext(ctx), {
        ...listQueryOf(args),
        ...(args.currency ? { currency: args.currency } : {}),
        ...(args.sourceIds ? { source_ids: args.sourceIds.map(String) } : {}),
      });
      return toConnection(page, args);
    },
  }),
}));

const topUpBody = wireInput('topUpBalance', topUpSchema, topUpFieldCodes);

builder.mutationFields((t) => ({
  topUpBalance: t.field({
    type: BalanceTransactionRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/balance/top_up: fund the sandbox instantly.',
    args: {
      amount: t.arg({ type: 'Decimal', required: true }),
      currency: t.arg({ type: CurrencyCodeEnum, required: true }),
      description: t.arg.string(),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_root, args, ctx) => {
      // An empty description is left out (the top-up is then described as "Sandbox top-up").
      const body = topUpBody.body({ ...args, description: args.description || undefined });
      return idempotentMutation<PostingRow>(
        ctx,
        { name: 'topUpBalance', key: args.idempotencyKey, input: body },
        (svc) => topUpBalance(svc, topUpBody.parse(body)),
        getBalanceTransaction,
      );
    },
  }),
}));
