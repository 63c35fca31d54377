/**
 * The trigger recipes of account verification (docs/guide/trigger.md): a saved counterparty sent
 * micro-deposits, then confirmed once they arrive, or returned by a magic account's bank.
 */
import { GOOD_ACCOUNT, type Recipe, type RecipeDriver, ROUTING, recipe } from '../recipe.ts';
import { createCounterparty } from './counterparties.service.ts';
import {
  confirmMicrodeposits,
  MICRODEPOSIT_AMOUNTS,
  sendMicrodeposits,
} from './counterparties.verification.ts';

/** Moves the merchant's clock just past `at`. */
async function advancePast(d: RecipeDriver, at: Date | null): Promise<void> {
  if (!at) return;
  const seconds = Math.ceil((at.getTime() - d.now().getTime()) / 1000) + 1;
  if (seconds > 0) await d.advance(seconds);
}

function verification(
  type: string,
  drives: string,
  account: string,
  then: 'none' | 'arrive' | 'confirm',
): Recipe {
  return recipe(
    type,
    drives,
    [],
    () => async (d) => {
      const saved = await createCounterparty(d.context(), {
        name: 'Trigger counterparty',
        routing_number: ROUTING,
        account_number: account,
        account_type: 'checking',
      });
      const sent = await sendMicrodeposits(d.context(), saved.id);
      if (then !== 'none')
        await advancePast(d, sent.verification ? new Date(sent.verification.available_at) : null);
      if (then === 'confirm')
        await confirmMicrodeposits(d.context(), saved.id, { amounts: [...MICRODEPOSIT_AMOUNTS] });
      return saved.id;
    },
    then !== 'none',
  );
}

export const counterpartyRecipes: Recipe[] = [
  verification(
    'counterparty.verification_pending',
    'Saves a counterparty and sends it micro-deposits.',
    GOOD_ACCOUNT,
    'none',
  ),
  verification(
    'counterparty.verified',
    "Saves a counterparty, sends it micro-deposits, advances the merchant's clock until they arrive and confirms 0.32 and 0.45.",
    GOOD_ACCOUNT,
    'confirm',
  ),
  verification(
    'counterparty.verification_failed',
    "Saves counterparty 000111111116, sends it micro-deposits and advances the merchant's clock until its bank returns them (R03).",
    '000111111116',
    'arrive',
  ),
];
