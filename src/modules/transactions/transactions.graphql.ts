import { builder } from '../../graphql/builder.ts';
import { listQueryOf, nullIfNotFound, serviceContext, toConnection } from '../../graphql/context.ts';
import { TransactionKindEnum, TransactionRef, TransactionStateEnum } from '../../graphql/transaction.ts';
import { getTransaction, listTransactions, TRANSACTION_KINDS } from './transactions.service.ts';

builder.queryFields((t) => ({
  transactions: t.connection({
    type: TransactionRef,
    description: `Every transaction across kinds (${TRANSACTION_KINDS.join(', ')}), newest first; each with its timeline (GET /v1/transactions).`,
    args: {
      kinds: t.arg({
        type: [TransactionKindEnum],
        description: 'Only transactions of these kinds (default: all).',
      }),
      state: t.arg({ type: TransactionStateEnum, description: 'Only transactions in this state.' }),
      createdFrom: t.arg({ type: 'DateTime', description: 'Created at or after this clock time.' }),
      createdTo: t.arg({ type: 'DateTime', description: 'Created before this clock time.' }),
      search: t.arg.string({
        description:
          'The exact id of the transaction, of one of its events or of a refund; or a part of its reference (case-insensitive).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const page = await listTransactions(serviceContext(ctx), {
        ...listQueryOf(args),
        kinds: args.kinds ?? undefined,
        state: args.state ?? undefined,
        created_from: args.createdFrom ?? undefined,
        created_to: args.createdTo ?? undefined,
        q: args.search ?? undefined,
      });
      return toConnection(page, args);
    },
  }),
  transaction: t.field({
    type: TransactionRef,
    nullable: true,
    description:
      'One transaction of any kind by its id (GET /v1/transactions/{id}); null when there is none.',
    args: {
      id: t.arg.id({ required: true, description: "The transaction's id (its prefix names its kind)." }),
    },
    resolve: async (_root, args, ctx) => {
      const found = await nullIfNotFound(getTransaction(serviceContext(ctx), String(args.id)));
      return found?.row ?? null;
    },
  }),
}));
