import { z } from 'zod';
import { inTransaction } from '../../db/tx.ts';
import { CURRENCY_CODES, minorUnits } from '../../kernel/currency.ts';
import { parseAmount } from '../../kernel/money.ts';
import { parseInput } from '../../kernel/validation.ts';
import { wireAmount } from '../../kernel/wire-schemas.ts';
import type { ServiceContext } from '../context.ts';
import { postTopUp } from './ledger.post.ts';
import type { PostingRow } from './ledger.rows.ts';

export const topUpSchema = z.strictObject({
  amount: wireAmount,
  currency: z.enum(CURRENCY_CODES, { error: 'a currency is USD, EUR, GBP or JPY' }),
  description: z.string().max(500).optional(),
});

/** At most 10,000,000 major units per top-up. */
const TOP_UP_MAX_MAJOR = 10_000_000n;

/** Funds the sandbox instantly from the outside world. */
export async function topUpBalance(ctx: ServiceContext, raw: unknown): Promise<PostingRow> {
  const input = parseInput(topUpSchema, raw, { amount: 'amount_invalid', currency: 'currency_unsupported' });
  const amount = parseAmount(input.amount, input.currency, {
    max: TOP_UP_MAX_MAJOR * 10n ** BigInt(minorUnits(input.currency)),
  });
  return inTransaction(ctx.db, ctx.tx, (tx) =>
    postTopUp(tx, {
      merchantId: ctx.merchant.id,
      currency: input.currency,
      amount,
      source: { type: 'top_up', id: ctx.merchant.id },
      description: input.description ?? 'Sandbox top-up',
      at: ctx.clock.now(),
    }),
  );
}
