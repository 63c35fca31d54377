import { builder } from '../../graphql/builder.ts';
import { listQueryOf, serviceContext, toConnection } from '../../graphql/context.ts';
import { descriptionOf, graphqlObject } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CurrencyCodeEnum, MoneyRef } from '../../graphql/scalars.ts';
import { ledgerOperations } from './ledger.operations.ts';
import {
  type Balance,
  balanceTransactionsByIds,
  getBalances,
  listBalanceTransactions,
} from './ledger.queries.ts';
import { BalanceTransaction, BalanceWire, PostingSourceWire, type SourceType } from './ledger.resource.ts';
import type { PostingRow } from './ledger.rows.ts';
import { BalanceTransactionSourceTypeValues } from './ledger.schema.ts';

/** The ledger's objects (a posting derived from its declaration), its enums and its GraphQL-shaped queries. */

const balance = BalanceWire.shape;

const BalanceRef = builder.objectRef<Balance>('Balance').implement({
  description: BalanceWire.description ?? '',
  fields: (t) => ({
    currency: t.expose('currency', { type: CurrencyCodeEnum, description: descriptionOf(balance.currency) }),
    available: t.field({
      type: MoneyRef,
      description: descriptionOf(balance.available),
      resolve: (b) => ({ amount: b.available, currency: b.currency }),
    }),
    pending: t.field({
      type: MoneyRef,
      description: descriptionOf(balance.pending),
      resolve: (b) => ({ amount: b.pending, currency: b.currency }),
    }),
    reserved: t.field({
      type: MoneyRef,
      description: descriptionOf(balance.reserved),
      resolve: (b) => ({ amount: b.reserved, currency: b.currency }),
    }),
  }),
});

const SourceTypeEnum = enumOf(BalanceTransactionSourceTypeValues);

const source = PostingSourceWire.shape;

const BalanceTransactionRef = graphqlObject<PostingRow>(BalanceTransaction, {
  interfaces: [NodeRef],
  enums: { currency: CurrencyCodeEnum },
  names: { related: 'relatedId' },
  // REST's source {type, id} is two fields here.
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    sourceType: t.field({
      type: SourceTypeEnum,
      description: descriptionOf(source.type),
      resolve: (row: PostingRow) => row.sourceType as SourceType,
    }),
    sourceId: t.exposeString('sourceId', { description: descriptionOf(source.id) }),
  }),
});

nodeKind('posting', BalanceTransactionRef, balanceTransactionsByIds);

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
      currency: t.arg({ type: CurrencyCodeEnum, description: 'Only postings in this currency.' }),
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

mountGraphqlOperations(ledgerOperations);
