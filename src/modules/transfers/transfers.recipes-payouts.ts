/** The trigger recipes of payouts (docs/guide/trigger.md): an ACH payout funded by a top-up, through its steps. */
import { topUp } from '../ledger/ledger.recipes.ts';
import { checked, GOOD_ACCOUNT, labels, type Recipe, type RecipeDriver, ROUTING, recipe } from '../recipe.ts';
import { createPayout } from './transfers.create.ts';
import { achRail, ENTRY_KEYS, returnCode, withinRailLimit } from './transfers.recipes.ts';
import { type CreatePayoutInput, createPayoutFieldCodes, createPayoutSchema } from './transfers.schema.ts';
import { payoutSteps } from './transfers.steps.ts';

export async function createPayoutId(d: RecipeDriver, input: CreatePayoutInput): Promise<string> {
  return (await createPayout(d.context(), input)).id;
}

export async function stepPayout(
  d: RecipeDriver,
  step: 'submit' | 'settle' | 'cancel',
  id: string,
): Promise<void> {
  await payoutSteps[step](d.context(), id);
}

export async function returnPayout(d: RecipeDriver, id: string, code: string): Promise<void> {
  await payoutSteps.return(d.context(), id, { code });
}

const PAYOUT_KEYS = [...ENTRY_KEYS, 'rail'] as const;

function payoutRecipe(
  type: string,
  drives: string,
  steps: readonly ('submit' | 'settle' | 'return' | 'cancel')[],
  options: { returns?: boolean } = {},
): Recipe {
  return recipe(type, drives, [...PAYOUT_KEYS, ...(options.returns ? ['return_code'] : [])], (set) => {
    const rail = achRail(set);
    const input = checked<CreatePayoutInput>(
      createPayoutSchema,
      {
        amount: set.amount ?? '25.00',
        currency: set.currency ?? 'USD',
        method: rail,
        destination: {
          name: 'Trigger payout account',
          routing_number: ROUTING,
          account_number: GOOD_ACCOUNT,
        },
        ...labels(set),
      },
      createPayoutFieldCodes,
      withinRailLimit,
    );
    const code = options.returns ? returnCode(set, 'R03', 'credit') : null;
    return async (d) => {
      await topUp(d, input.amount, input.currency);
      const id = await createPayoutId(d, input);
      for (const step of steps) {
        if (step === 'return') await returnPayout(d, id, code ?? 'R03');
        else await stepPayout(d, step, id);
      }
      return id;
    };
  });
}

export const payoutRecipes: Recipe[] = [
  payoutRecipe('payout.created', 'Tops up the balance and creates an ACH payout.', []),
  payoutRecipe('payout.in_transit', 'Tops up the balance, creates an ACH payout and submits it.', ['submit']),
  payoutRecipe('payout.paid', 'Tops up the balance, creates an ACH payout, submits and settles it.', [
    'submit',
    'settle',
  ]),
  payoutRecipe(
    'payout.failed',
    'Tops up the balance, creates an ACH payout, submits it and the bank returns it in transit (return_code, default R03).',
    ['submit', 'return'],
    { returns: true },
  ),
  payoutRecipe(
    'payout.returned',
    'Tops up the balance, creates an ACH payout, submits and settles it, then the bank returns it (return_code, default R03).',
    ['submit', 'settle', 'return'],
    { returns: true },
  ),
  payoutRecipe('payout.canceled', 'Tops up the balance, creates an ACH payout and cancels it.', ['cancel']),
];
