/** The trigger recipes of issuing (docs/guide/trigger.md): virtual cards through their states, and purchases on them. */
import { parseAmount } from '../../kernel/money.ts';
import { topUp } from '../ledger/ledger.recipes.ts';
import {
  asOverride,
  checked,
  DAY,
  metadataOf,
  type Overrides,
  type Recipe,
  type RecipeDriver,
  recipe,
} from '../recipe.ts';
import { simulateAuthorization } from './issuing.authorize.ts';
import { createVirtualCard, updateVirtualCard } from './issuing.cards.ts';
import { validateMcc } from './issuing.controls.ts';
import { AUTHORIZATION_MAX_MINOR } from './issuing.rows.ts';
import {
  type CreateVirtualCardInput,
  createVirtualCardSchema,
  type SimulateAuthorizationInput,
  simulateAuthorizationSchema,
  type UpdateVirtualCardInput,
  updateVirtualCardSchema,
  virtualCardFieldCodes,
} from './issuing.schema.ts';
import { captureAuthorization, refundAuthorization, reverseAuthorization } from './issuing.settle.ts';

async function createVirtualCardId(d: RecipeDriver, input: CreateVirtualCardInput): Promise<string> {
  return (await createVirtualCard(d.context(), input)).id;
}

async function authorizationStep(
  d: RecipeDriver,
  step: 'capture' | 'reverse' | 'refund',
  id: string,
): Promise<void> {
  const run = { capture: captureAuthorization, reverse: reverseAuthorization, refund: refundAuthorization }[
    step
  ];
  await run(d.context(), id);
}

const CARD_KEYS = ['brand', 'cardholder_name', 'metadata.*'] as const;

function cardInput(set: Overrides, extra: Record<string, unknown> = {}) {
  return checked<CreateVirtualCardInput>(
    createVirtualCardSchema,
    {
      brand: set.brand ?? 'visa',
      cardholder_name: set.cardholder_name ?? 'Trigger Cardholder',
      ...(metadataOf(set) ? { metadata: metadataOf(set) } : {}),
      ...extra,
    },
    virtualCardFieldCodes,
  );
}

function cardRecipe(
  type: string,
  drives: string,
  states: readonly ('frozen' | 'active' | 'canceled')[],
): Recipe {
  return recipe(type, drives, CARD_KEYS, (set) => {
    const input = cardInput(set);
    return async (d) => {
      const id = await createVirtualCardId(d, input);
      for (const state of states) await updateVirtualCard(d.context(), id, { state });
      return id;
    };
  });
}

export const virtualCardRecipes: Recipe[] = [
  cardRecipe('virtual_card.created', 'Issues a virtual card.', []),
  cardRecipe('virtual_card.active', 'Issues a virtual card, freezes it and unfreezes it.', [
    'frozen',
    'active',
  ]),
  cardRecipe('virtual_card.frozen', 'Issues a virtual card and freezes it.', ['frozen']),
  cardRecipe('virtual_card.canceled', 'Issues a virtual card and cancels it.', ['canceled']),
  recipe(
    'virtual_card.updated',
    'Issues a virtual card and updates its metadata (metadata.*, default trigger=updated).',
    CARD_KEYS,
    (set) => {
      const input = cardInput({
        ...(set.brand !== undefined ? { brand: set.brand } : {}),
        ...(set.cardholder_name !== undefined ? { cardholder_name: set.cardholder_name } : {}),
      });
      const update = checked<UpdateVirtualCardInput>(updateVirtualCardSchema, {
        metadata: metadataOf(set) ?? { trigger: 'updated' },
      });
      return async (d) => {
        const id = await createVirtualCardId(d, { ...input, metadata: {} });
        await updateVirtualCard(d.context(), id, update);
        return id;
      };
    },
  ),
];

const AUTHORIZATION_KEYS = ['amount', 'merchant_name', 'mcc'] as const;

function authorizationRecipe(
  type: string,
  drives: string,
  then: (d: RecipeDriver, id: string) => Promise<void>,
  options: { declined?: boolean; movesClock?: boolean } = {},
): Recipe {
  return recipe(
    type,
    drives,
    AUTHORIZATION_KEYS,
    (set) => {
      const input = checked<SimulateAuthorizationInput>(simulateAuthorizationSchema, {
        amount: set.amount ?? '25.00',
        merchant: { name: set.merchant_name ?? 'Trigger Store', mcc: set.mcc ?? '5734' },
      });
      // The operation's own bounds, checked before the card is issued and the balance topped up.
      asOverride(() => parseAmount(input.amount, 'USD', { max: AUTHORIZATION_MAX_MINOR }));
      const mcc = asOverride(() => validateMcc(input.merchant.mcc, 'mcc'));
      return async (d) => {
        const card = await createVirtualCardId(
          d,
          cardInput({}, options.declined ? { spending_controls: { blocked_mccs: [mcc] } } : {}),
        );
        if (!options.declined) await topUp(d, String(input.amount), 'USD');
        const id = (await simulateAuthorization(d.context(), card, input)).id;
        await then(d, id);
        return id;
      };
    },
    options.movesClock ?? false,
  );
}

export const authorizationRecipes: Recipe[] = [
  authorizationRecipe(
    'issuing_authorization.approved',
    'Tops up the balance, issues a virtual card and simulates a purchase on it.',
    async () => {},
  ),
  authorizationRecipe(
    'issuing_authorization.declined',
    "Issues a virtual card that blocks the purchase's MCC and simulates a purchase on it.",
    async () => {},
    { declined: true },
  ),
  authorizationRecipe('issuing_authorization.captured', 'An approved purchase, captured.', (d, id) =>
    authorizationStep(d, 'capture', id),
  ),
  authorizationRecipe('issuing_authorization.reversed', 'An approved purchase, reversed in full.', (d, id) =>
    authorizationStep(d, 'reverse', id),
  ),
  authorizationRecipe(
    'issuing_authorization.expired',
    "An approved purchase; the merchant's clock is advanced 7 days, past its expiry.",
    (d) => d.advance(7 * DAY + 1),
    { movesClock: true },
  ),
  authorizationRecipe(
    'issuing_authorization.refunded',
    'An approved purchase, captured, then refunded.',
    async (d, id) => {
      await authorizationStep(d, 'capture', id);
      await authorizationStep(d, 'refund', id);
    },
  ),
];
