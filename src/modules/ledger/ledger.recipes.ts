/** The trigger recipes of the ledger's balance transactions that a top-up makes (docs/guide/trigger.md). */
import { inTransaction } from '../../db/tx.ts';
import { checked, type Overrides, type Recipe, type RecipeDriver, recipe } from '../recipe.ts';
import { reversePosting } from './ledger.reverse.ts';
import { type TopUpInput, topUpFieldCodes, topUpSchema } from './ledger.schema.ts';
import { topUpBalance } from './ledger.topup.ts';

/** POST /v1/simulate/balance/top_up: what a recipe does to fund what it drives. */
export async function topUp(d: RecipeDriver, amount: unknown, currency: string): Promise<void> {
  await topUpBalance(d.context(), { amount: String(amount), currency } as TopUpInput);
}

/** A top-up: its balance transaction's id. */
async function topUpPosting(
  d: RecipeDriver,
  input: { amount: string; currency: string; description?: string },
): Promise<string> {
  return (await topUpBalance(d.context(), input as TopUpInput)).id;
}

/**
 * Undoes a posted top-up with the ledger's reversal (a new posting of the negated entries), as a
 * top-up whose funding bounced would be; no operation of the API reverses a posting yet.
 */
async function reverseTopUp(d: RecipeDriver, postingId: string): Promise<void> {
  const ctx = d.context();
  await inTransaction(ctx.db, undefined, (tx) => reversePosting(tx, ctx.merchant.id, postingId, d.now()));
}

function topUpInput(set: Overrides) {
  return checked<{ amount: string; currency: string; description?: string }>(
    topUpSchema,
    {
      amount: set.amount ?? '25.00',
      currency: set.currency ?? 'USD',
      ...(set.description !== undefined ? { description: set.description } : {}),
    },
    topUpFieldCodes,
  );
}

export const ledgerRecipes: Recipe[] = [
  recipe(
    'balance_transaction.created',
    'Tops up the balance (a posted balance transaction of type top_up).',
    ['amount', 'currency', 'description'],
    (set) => {
      const input = topUpInput(set);
      return (d) => topUpPosting(d, input);
    },
  ),
  recipe(
    'balance_transaction.reversed',
    "Tops up the balance, then reverses the top-up's balance transaction with the ledger's reversal (a new posting of the negated entries), as a bounced top-up would be. No API operation reverses a posting yet: this recipe is the only way to see the event.",
    ['amount', 'currency', 'description'],
    (set) => {
      const input = topUpInput(set);
      return async (d) => {
        const posting = await topUpPosting(d, input);
        await reverseTopUp(d, posting);
        return posting;
      };
    },
  ),
];
