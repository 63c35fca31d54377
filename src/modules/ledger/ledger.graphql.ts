import { builder } from '../../graphql/builder.ts';
import { listQueryOf, serviceContext, toConnection } from '../../graphql/context.ts';
import { descriptionOf, graphqlObject } from '../../graphql/derive.ts';
import { describedEnum } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CurrencyCodeEnum, MoneyRef } from '../../graphql/scalars.ts';
import type { PostingState } from './ledger.machine.ts';
import { ledgerOperations } from './ledger.operations.ts';
import {
  type Balance,
  balanceTransactionsByIds,
  getBalances,
  listBalanceTransactions,
} from './ledger.queries.ts';
import {
  BalanceTransaction,
  BalanceWire,
  POSTING_TYPES,
  PostingSourceWire,
  type PostingType,
  type SourceType,
} from './ledger.resource.ts';
import type { PostingRow } from './ledger.rows.ts';

/** The ledger's objects (a posting derived from its declaration), its enums and its GraphQL-shaped queries. */

const balance = BalanceWire.shape;

const BalanceRef = builder.objectRef<Balance>('Balance').implement({
  description: BalanceWire.description ?? '',
  fields: (t) => ({
    currency: t.field({
      type: CurrencyCodeEnum,
      description: descriptionOf(balance.currency),
      resolve: (b) => b.currency,
    }),
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

const PostingTypeEnum = describedEnum(
  'BalanceTransactionType',
  'What a ledger posting records.',
  Object.fromEntries(
    Object.entries(POSTING_TYPES).map(([type, meaning]) => [
      type,
      `${meaning.charAt(0).toUpperCase()}${meaning.slice(1)}.`,
    ]),
  ) as Record<PostingType, string>,
);

const PostingStateEnum = describedEnum('BalanceTransactionState', 'Where a ledger posting stands.', {
  pending: 'A hold: reserved until it is posted to its destination or voided back to available.',
  posted: 'Applied (a hold: sent to its destination).',
  voided: 'A hold released back to available.',
  reversed: 'Undone by a later reversal posting.',
} satisfies Record<PostingState, string>);

const SourceTypeEnum = describedEnum(
  'BalanceTransactionSourceType',
  'The kind of object a posting comes from.',
  {
    top_up: "A sandbox top-up (its id is the merchant's).",
    card_payment: 'A card payment.',
    refund: 'A card refund.',
    transfer: 'A bank transfer.',
    payout: 'A payout.',
    inbound_transfer: 'An inbound transfer from an outside originator.',
    issuing_authorization: 'An authorization on a virtual card.',
    fx_conversion: 'An FX conversion.',
    fx_settlement: 'A settlement abroad.',
    dispute: 'A dispute of a card payment.',
  } satisfies Record<SourceType, string>,
);

const source = PostingSourceWire.shape;

const BalanceTransactionRef = graphqlObject<PostingRow>(BalanceTransaction, {
  interfaces: [NodeRef],
  enums: { type: PostingTypeEnum, state: PostingStateEnum, currency: CurrencyCodeEnum },
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
