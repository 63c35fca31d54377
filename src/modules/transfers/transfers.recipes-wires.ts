/**
 * The trigger recipes of a wire's recall (docs/guide/trigger.md): a funded wire, processed on the
 * Fedwire Funds Service's next operating time, then recalled; the refused one goes to the account
 * whose bank refuses recalls.
 */
import { topUp } from '../ledger/ledger.recipes.ts';
import {
  checked,
  labels,
  type Overrides,
  type Recipe,
  type RecipeDriver,
  ROUTING,
  recipe,
} from '../recipe.ts';
import { createTransfer } from './transfers.create.ts';
import { getTransfer } from './transfers.read.ts';
import { ENTRY_KEYS, withinRailLimit } from './transfers.recipes.ts';
import {
  type CreateTransferInput,
  createTransferFieldCodes,
  createTransferSchema,
} from './transfers.schema.ts';
import { recallWire } from './transfers.wire-steps.ts';

const REFUSING_ACCOUNT = '000666666661';

function wireInput(set: Overrides, accountNumber: string) {
  return checked<CreateTransferInput>(
    createTransferSchema,
    {
      rail: 'wire',
      direction: 'credit',
      amount: set.amount ?? '25.00',
      currency: set.currency ?? 'USD',
      counterparty: { name: 'Trigger beneficiary', routing_number: ROUTING, account_number: accountNumber },
      ...labels(set),
    },
    createTransferFieldCodes,
    withinRailLimit,
  );
}

/** Moves the merchant's clock just past `at` (nothing when it is already past). */
async function advancePast(d: RecipeDriver, at: Date | string | null): Promise<void> {
  if (at === null) return;
  const seconds = Math.ceil((new Date(at).getTime() - d.now().getTime()) / 1000) + 1;
  if (seconds > 0) await d.advance(seconds);
}

function recalledWire(type: string, drives: string, accountNumber: string, answered: boolean): Recipe {
  return recipe(
    type,
    drives,
    ENTRY_KEYS,
    (set) => {
      const input = wireInput(set, accountNumber);
      return async (d) => {
        await topUp(d, input.amount, input.currency);
        const wire = await createTransfer(d.context(), input);
        await advancePast(d, wire.expectedSettlementAt);
        const recalled = await recallWire(d.context(), wire.id, { reason: 'DUPL' });
        if (answered) await advancePast(d, recalled.recall?.answer_due_at ?? null);
        return (await getTransfer(d.context(), wire.id)).id;
      };
    },
    true,
  );
}

export const wireRecipes: Recipe[] = [
  recalledWire(
    'transfer.recall_requested',
    "Tops up the balance, sends a wire, advances the merchant's clock until the Fedwire Funds Service has processed it, and recalls it (reason DUPL).",
    '000123456789',
    false,
  ),
  recalledWire(
    'transfer.recall_refused',
    `As transfer.recall_requested, to account ${REFUSING_ACCOUNT} (whose bank refuses recalls), then advances the clock past the bank's answer.`,
    REFUSING_ACCOUNT,
    true,
  ),
];
