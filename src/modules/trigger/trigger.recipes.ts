import { cardPaymentRecipes } from '../card-payments/card-payments.recipes.ts';
import { collectionRecipes } from '../collections/collections.recipes.ts';
import { disputeRecipes } from '../disputes/disputes.recipes.ts';
import { fxRecipes, settlementRecipes } from '../fx/fx.recipes.ts';
import { inboundRecipes } from '../inbound-transfers/inbound-transfers.recipes.ts';
import { authorizationRecipes, virtualCardRecipes } from '../issuing/issuing.recipes.ts';
import { ledgerRecipes } from '../ledger/ledger.recipes.ts';
import { nocRecipes } from '../nocs/nocs.recipes.ts';
import type { Recipe } from '../recipe.ts';
import { heldCreditRecipes, transferRecipes } from '../transfers/transfers.recipes.ts';
import { payoutRecipes } from '../transfers/transfers.recipes-payouts.ts';
import { returnDisputeRecipes } from '../transfers/transfers.recipes-returns.ts';
import { webhookRecipes } from '../webhooks/webhooks.recipes.ts';

/**
 * Every recipe, by event type. Each lives with the module whose objects it drives
 * (`<module>.recipes.ts`, what a recipe is: modules/recipe.ts); this is the one list of them.
 */
export const RECIPES: ReadonlyMap<string, Recipe> = new Map(
  [
    ...collectionRecipes,
    ...cardPaymentRecipes,
    ...disputeRecipes,
    ...transferRecipes,
    ...nocRecipes,
    ...payoutRecipes,
    ...returnDisputeRecipes,
    ...inboundRecipes,
    ...ledgerRecipes,
    ...heldCreditRecipes,
    ...virtualCardRecipes,
    ...authorizationRecipes,
    ...fxRecipes,
    ...settlementRecipes,
    ...webhookRecipes,
  ].map((r) => [r.type, r]),
);
