import { builder } from '../../graphql/builder.ts';
import { listQueryOf, serviceContext, toConnection } from '../../graphql/context.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { listTransactions, TRANSACTION_KINDS } from './transactions.service.ts';

builder.queryFields((t) => ({
  transactions: t.connection({
    type: TransactionRef,
    description: `Every transaction across kinds (${TRANSACTION_KINDS.join(', ')}), newest first; each with its timeline.`,
    args: {
      kinds: t.arg.stringList({ description: `Any of ${TRANSACTION_KINDS.join(', ')} (default: all)` }),
    },
    resolve: async (_root, args, ctx) => {
      const page = await listTransactions(serviceContext(ctx), {
        ...listQueryOf(args),
        kinds: args.kinds ?? undefined,
      });
      // Rows carry no refunds: a card payment's `refunds` field loads them when asked.
      return toConnection(page, args);
    },
  }),
}));
