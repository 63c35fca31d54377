import { builder } from '../../graphql/builder.ts';
import { idempotentMutation, listQueryOf, serviceContext, toConnection } from '../../graphql/context.ts';
import { describedEnum } from '../../graphql/enums.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CurrencyCodeEnum, MoneyRef } from '../../graphql/scalars.ts';
import { IDEMPOTENCY_KEY } from '../../graphql/texts.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { PostingState } from './ledger.machine.ts';
import {
  type Balance,
  balanceTransactionsByIds,
  getBalances,
  getBalanceTransaction,
  listBalanceTransactions,
} from './ledger.queries.ts';
import { POSTING_TYPES, type PostingType, type SourceType } from './ledger.resource.ts';
import type { PostingRow } from './ledger.rows.ts';
import { topUpFieldCodes, topUpSchema } from './ledger.schema.ts';
import { topUpBalance } from './ledger.topup.ts';

const BalanceRef = builder.objectRef<Balance>('Balance').implement({
  description: "A merchant's balances in one currency.",
  fields: (t) => ({
    currency: t.field({ type: CurrencyCodeEnum, description: 'The currency.', resolve: (b) => b.currency }),
    available: t.field({
      type: MoneyRef,
      description: 'What can be spent or paid out now.',
      resolve: (b) => ({ amount: b.available, currency: b.currency }),
    }),
    pending: t.field({
      type: MoneyRef,
      description:
        'Money received that is not available yet (card payments, ACH debits before their funds are).',
      resolve: (b) => ({ amount: b.pending, currency: b.currency }),
    }),
    reserved: t.field({
      type: MoneyRef,
      description: 'Money held for what is on its way out (transfers, payouts, authorizations, settlements).',
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

const money = (amount: bigint, currency: string) => ({ amount, currency: currency as CurrencyCode });

const BalanceTransactionRef = builder.objectRef<PostingRow>('BalanceTransaction').implement({
  description:
    'A ledger posting: its effect on available, pending and reserved, and the object it came from.',
  interfaces: [NodeRef],
  fields: (t) => ({
    type: t.field({
      type: PostingTypeEnum,
      description: 'What the posting records.',
      resolve: (row) => row.type as PostingType,
    }),
    state: t.field({
      type: PostingStateEnum,
      description: 'Where it stands.',
      resolve: (row) => row.state as PostingState,
    }),
    currency: t.field({
      type: CurrencyCodeEnum,
      description: 'The currency of its balances.',
      resolve: (row) => row.currency as CurrencyCode,
    }),
    available: t.field({
      type: MoneyRef,
      description: 'The change of the available balance, signed (negative: it went down; 0 when untouched).',
      resolve: (row) => money(row.availableDelta, row.currency),
    }),
    pending: t.field({
      type: MoneyRef,
      description: 'The change of the pending balance, signed.',
      resolve: (row) => money(row.pendingDelta, row.currency),
    }),
    reserved: t.field({
      type: MoneyRef,
      description: 'The change of the reserved balance, signed.',
      resolve: (row) => money(row.reservedDelta, row.currency),
    }),
    sourceType: t.field({
      type: SourceTypeEnum,
      description: 'The kind of object it comes from.',
      resolve: (row) => row.sourceType as SourceType,
    }),
    sourceId: t.exposeString('sourceId', {
      description: "The id of the object it comes from (a top-up's is the merchant's).",
    }),
    relatedId: t.exposeString('relatedId', {
      nullable: true,
      description:
        'The id of what it follows from: the hold it posts or voids, the posting it reverses, the card payment a refund refunds, …; null when none.',
    }),
    description: t.exposeString('description', { nullable: true, description: 'What it is, for a person.' }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was posted, clock time.',
      resolve: (row) => row.createdAt,
    }),
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

const topUpBody = wireInput('topUpBalance', topUpSchema, topUpFieldCodes);

builder.mutationFields((t) => ({
  topUpBalance: t.field({
    type: BalanceTransactionRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/balance/top_up: fund the sandbox instantly.',
    args: {
      amount: t.arg({ type: 'Decimal', required: true, description: 'How much to add, in major units.' }),
      currency: t.arg({ type: CurrencyCodeEnum, required: true, description: 'The balance to add it to.' }),
      description: t.arg.string({ description: 'Describes the posting (default "Sandbox top-up").' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
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
