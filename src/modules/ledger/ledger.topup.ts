import { minorUnits } from '../../kernel/currency.ts';
import { parseAmount } from '../../kernel/money.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import { postTopUp } from './ledger.post.ts';
import type { PostingRow } from './ledger.rows.ts';
import type { TopUpInput } from './ledger.schema.ts';

/** At most 10,000,000 major units per top-up. */
const TOP_UP_MAX_MAJOR = 10_000_000n;

/** Funds the sandbox instantly from the outside world. */
export async function topUpBalance(ctx: ServiceContext, input: TopUpInput): Promise<PostingRow> {
  const amount = parseAmount(input.amount, input.currency, {
    max: TOP_UP_MAX_MAJOR * 10n ** BigInt(minorUnits(input.currency)),
  });
  return inContextTx(ctx, (tx) =>
    postTopUp(tx, {
      merchantId: ctx.merchant.id,
      currency: input.currency,
      amount,
      source: { type: 'top_up', id: ctx.merchant.id },
      // An empty description is left out, as GraphQL's optional argument sends it.
      description: input.description || 'Sandbox top-up',
      at: ctx.clock.now(),
    }),
  );
}
