/**
 * The recipes of a return's dispute: the ODFI dishonors an ACH entry's return
 * (`transfer|payout.return_dishonored`), then the RDFI contests the dishonor
 * (`transfer|payout.return_contested`). The overrides are checked against the return rules
 * (transfers.returns.ts) before anything is written.
 */
import { SandbankError } from '../../kernel/errors.ts';
import { parseAmount } from '../../kernel/money.ts';
import { parseInput } from '../../kernel/validation.ts';
import { topUp } from '../ledger/ledger.recipes.ts';
import { GOOD_ACCOUNT, type Overrides, type Recipe, type RecipeDriver, ROUTING } from '../recipe.ts';
import { createTransferId, returnTransfer, stepTransfer } from './transfers.recipes.ts';
import { createPayoutId, returnPayout, stepPayout } from './transfers.recipes-payouts.ts';
import { contestCodesFor, dishonorCodesFor, returnRefusal, returnRule } from './transfers.returns.ts';
import {
  type CreatePayoutInput,
  type CreateTransferInput,
  createPayoutFieldCodes,
  createPayoutSchema,
  createTransferFieldCodes,
  createTransferSchema,
} from './transfers.schema.ts';
import { payoutSteps, transferSteps } from './transfers.steps.ts';
import { requestWsudCopyOf } from './transfers.wsud.ts';

/** POST /v1/simulate/{transfers|payouts}/{id}/dishonor_return | contest_dishonored_return {code}. */
async function returnDisputeStep(
  d: RecipeDriver,
  kind: 'transfer' | 'payout',
  step: 'dishonorReturn' | 'contestDishonoredReturn',
  id: string,
  code: string,
): Promise<void> {
  await (kind === 'transfer' ? transferSteps : payoutSteps)[step](d.context(), id, { code });
}

function invalid(param: string, message: string): SandbankError {
  return new SandbankError('parameter_invalid', { param: `set.${param}`, message });
}

/** The operation's own schema on the entry's fields, its errors named as overrides. */
function parsed<T>(schema: Parameters<typeof parseInput>[0], input: Record<string, unknown>, codes = {}): T {
  try {
    const value = parseInput(schema, input, codes) as T & { amount: unknown };
    parseAmount(value.amount, 'USD');
    return value;
  } catch (error) {
    if (error instanceof SandbankError && error.param && !error.param.startsWith('set.'))
      throw new SandbankError(error.code, { param: `set.${error.param}`, message: error.message });
    throw error;
  }
}

/** The return, dishonor and contest codes of a run, checked against the rules; defaults fit each other. */
function codesOf(set: Overrides, direction: 'credit' | 'debit', contest: boolean) {
  const returnCode = set.return_code ?? (direction === 'debit' ? 'R01' : 'R03');
  const rule = returnRule(returnCode);
  if (!rule)
    throw invalid('return_code', `${returnCode.slice(0, 8)} is not a Nacha return code (R01 … R85).`);
  // A recipe's transfers and payouts are CCD entries.
  const refusal = returnRefusal(rule, direction, 'CCD');
  if (refusal) throw invalid('return_code', refusal);
  const dishonors = dishonorCodesFor({ returnCode, returnUntimely: false, direction });
  const dishonorCode = set.dishonor_code ?? 'R69';
  if (!(dishonors as string[]).includes(dishonorCode))
    throw invalid(
      'dishonor_code',
      `A timely ${returnCode} return of a ${direction} can be dishonored with ${dishonors.join(', ')}.`,
    );
  const contests = contestCodesFor(dishonorCode);
  const contestCode = contest ? (set.contest_code ?? contests[0] ?? 'R71') : null;
  if (contestCode !== null && !(contests as string[]).includes(contestCode))
    throw invalid('contest_code', `A ${dishonorCode} dishonor can be contested with ${contests.join(', ')}.`);
  return { returnCode, dishonorCode, contestCode };
}

function achRail(set: Overrides): 'ach' | 'same_day_ach' {
  const rail = set.rail ?? 'ach';
  if (rail !== 'ach' && rail !== 'same_day_ach')
    throw invalid('rail', 'This event happens on ACH: rail is ach or same_day_ach.');
  return rail;
}

function disputeRecipe(kind: 'transfer' | 'payout', contest: boolean): Recipe {
  const type = `${kind}.${contest ? 'return_contested' : 'return_dishonored'}`;
  const who =
    kind === 'transfer'
      ? 'Creates an ACH debit, submits and settles it, the bank returns it (return_code, default R01)'
      : 'Tops up the balance, creates an ACH payout, submits and settles it, the bank returns it (return_code, default R03)';
  const drives = contest
    ? `${who}, the ODFI dishonors the return (dishonor_code, default R69) and the RDFI contests the dishonor (contest_code, default the first that answers it: R71).`
    : `${who} and the ODFI dishonors the return (dishonor_code, default R69).`;
  const accepts = ['amount', 'rail', 'return_code', 'dishonor_code', ...(contest ? ['contest_code'] : [])];
  return {
    type,
    drives,
    accepts,
    movesClock: false,
    prepare(set) {
      const rail = achRail(set);
      const amount = set.amount ?? '25.00';
      const account = { name: 'Trigger counterparty', routing_number: ROUTING, account_number: GOOD_ACCOUNT };
      const direction = kind === 'transfer' ? 'debit' : 'credit';
      const codes = codesOf(set, direction, contest);
      if (kind === 'transfer') {
        const input = parsed<CreateTransferInput>(
          createTransferSchema,
          { rail, direction, amount, currency: 'USD', counterparty: account },
          createTransferFieldCodes,
        );
        return async (d) => {
          const id = await createTransferId(d, input);
          await stepTransfer(d, 'submit', id);
          await stepTransfer(d, 'settle', id);
          await returnTransfer(d, id, codes.returnCode);
          await returnDisputeStep(d, 'transfer', 'dishonorReturn', id, codes.dishonorCode);
          if (codes.contestCode)
            await returnDisputeStep(d, 'transfer', 'contestDishonoredReturn', id, codes.contestCode);
          return id;
        };
      }
      const input = parsed<CreatePayoutInput>(
        createPayoutSchema,
        {
          amount,
          currency: 'USD',
          method: rail,
          destination: { ...account, name: 'Trigger payout account' },
        },
        createPayoutFieldCodes,
      );
      return async (d) => {
        await topUp(d, input.amount, input.currency);
        const id = await createPayoutId(d, input);
        await stepPayout(d, 'submit', id);
        await stepPayout(d, 'settle', id);
        await returnPayout(d, id, codes.returnCode);
        await returnDisputeStep(d, 'payout', 'dishonorReturn', id, codes.dishonorCode);
        if (codes.contestCode)
          await returnDisputeStep(d, 'payout', 'contestDishonoredReturn', id, codes.contestCode);
        return id;
      };
    },
  };
}

/** transfer.wsud_copy_provided: a consumer debit returned unauthorized, and the statement's copy asked for. */
const wsudCopyRecipe: Recipe = {
  type: 'transfer.wsud_copy_provided',
  drives:
    "Creates an ACH WEB debit, submits and settles it, the bank returns it unauthorized (return_code R07, R10 or R11, default R10) with the receiver's written statement, and the merchant asks for a copy of it.",
  accepts: ['amount', 'rail', 'return_code'],
  movesClock: false,
  prepare(set) {
    const rail = achRail(set);
    const code = set.return_code ?? 'R10';
    const rule = returnRule(code);
    if (!rule?.wsud || returnRefusal(rule, 'debit', 'WEB') !== null)
      throw invalid(
        'return_code',
        'return_code is one that needs a written statement on a WEB debit: R07, R10 or R11.',
      );
    const input = parsed<CreateTransferInput>(
      createTransferSchema,
      {
        rail,
        direction: 'debit',
        sec_code: 'WEB',
        amount: set.amount ?? '25.00',
        currency: 'USD',
        counterparty: { name: 'Trigger counterparty', routing_number: ROUTING, account_number: GOOD_ACCOUNT },
      },
      createTransferFieldCodes,
    );
    return async (d) => {
      const id = await createTransferId(d, input);
      await stepTransfer(d, 'submit', id);
      await stepTransfer(d, 'settle', id);
      await returnTransfer(d, id, code);
      await requestWsudCopyOf(d.context(), id);
      return id;
    };
  },
};

/** transfer|payout.return_dishonored and .return_contested, and transfer.wsud_copy_provided. */
export const returnDisputeRecipes: Recipe[] = [
  disputeRecipe('transfer', false),
  disputeRecipe('transfer', true),
  disputeRecipe('payout', false),
  disputeRecipe('payout', true),
  wsudCopyRecipe,
];
