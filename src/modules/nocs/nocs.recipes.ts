import { SandbankError } from '../../kernel/errors.ts';
import { parseInput } from '../../kernel/validation.ts';
import type { Overrides, Recipe, RecipeDriver } from '../recipe.ts';
import { createTransferId, stepTransfer } from '../transfers/transfers.recipes.ts';
import {
  type CreateTransferInput,
  createTransferFieldCodes,
  createTransferSchema,
} from '../transfers/transfers.schema.ts';
import { nocCode, SENT_NOC_CODES } from './nocs.rules.ts';
import { nocSteps } from './nocs.service.ts';

/** The recipes of notifications of change: a settled ACH debit (it needs no funds) gets an NOC. */

const KEYS = ['amount', 'currency', 'rail', 'noc_code'] as const;

function overrideError(param: string, message: string): SandbankError {
  return new SandbankError('parameter_invalid', { param: `set.${param}`, message });
}

function settledDebit(set: Overrides) {
  const rail = set.rail ?? 'ach';
  if (rail !== 'ach' && rail !== 'same_day_ach')
    throw overrideError(
      'rail',
      'Notifications of change are about ACH entries: rail is ach or same_day_ach.',
    );
  const code = set.noc_code ?? 'C01';
  if (!SENT_NOC_CODES.includes(code))
    throw overrideError(
      'noc_code',
      `noc_code is one of the codes Sandbank sends: ${SENT_NOC_CODES.join(', ')}.`,
    );
  let input: CreateTransferInput;
  try {
    input = parseInput(
      createTransferSchema,
      {
        rail,
        direction: 'debit',
        amount: set.amount ?? '25.00',
        currency: set.currency ?? 'USD',
        counterparty: {
          name: 'Trigger counterparty',
          routing_number: '110000000',
          account_number: '000123456789',
        },
      },
      createTransferFieldCodes,
    );
  } catch (error) {
    if (error instanceof SandbankError && error.param) throw overrideError(error.param, error.message);
    throw error;
  }
  return { input, code };
}

function nocRecipe(type: string, drives: string, refuse: boolean): Recipe {
  return {
    type,
    drives,
    accepts: refuse ? [...KEYS, 'refusal_code'] : KEYS,
    movesClock: false,
    prepare(set) {
      const { input, code } = settledDebit(set);
      const refusal = set.refusal_code ?? 'C61';
      const refusalCode = nocCode(refusal);
      if (refuse && !refusalCode?.refusal)
        throw overrideError('refusal_code', 'refusal_code is one of the refused-NOC codes, C61-C69.');
      return async (d: RecipeDriver) => {
        const id = await createTransferId(d, input);
        await stepTransfer(d, 'submit', id);
        await stepTransfer(d, 'settle', id);
        await nocSteps.receive(d.context(), id, { code });
        if (refuse) await nocSteps.refuse(d.context(), id, { code: refusal });
        return id;
      };
    },
  };
}

export const nocRecipes: Recipe[] = [
  nocRecipe(
    'transfer.notification_of_change',
    'Creates an ACH debit, submits and settles it, then the receiving bank sends a notification of change (noc_code, default C01; its corrected data derived).',
    false,
  ),
  nocRecipe(
    'transfer.notification_of_change_refused',
    'As transfer.notification_of_change, then the merchant refuses the NOC (refusal_code, default C61).',
    true,
  ),
];
