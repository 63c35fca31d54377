/** The trigger recipes of collections (docs/guide/trigger.md): a checkout created, paid, expired or canceled. */
import { SandbankError } from '../../kernel/errors.ts';
import {
  checked,
  GOOD_ACCOUNT,
  LABELS,
  labels,
  type Overrides,
  type Recipe,
  type RecipeDriver,
  ROUTING,
  recipe,
  VISA,
} from '../recipe.ts';
import { debitsOfCollection } from '../transfers/transfers.read.ts';
import { returnCode, returnTransfer } from '../transfers/transfers.recipes.ts';
import { transferSteps } from '../transfers/transfers.steps.ts';
import { payCollection } from './collections.pay.ts';
import {
  type CreateCollectionInput,
  createCollectionFieldCodes,
  createCollectionSchema,
} from './collections.schema.ts';
import { cancelCollection, createCollection } from './collections.service.ts';

async function payCollectionByCard(d: RecipeDriver, reference: string, number: string): Promise<void> {
  const card = { number, exp_month: 12, exp_year: d.now().getUTCFullYear() + 3, cvc: '123' };
  await payCollection(d.context(), reference, { method: 'card', card });
}

async function payCollectionByBank(d: RecipeDriver, reference: string, accountNumber: string): Promise<void> {
  await payCollection(d.context(), reference, {
    method: 'bank_account',
    bank_account: { routing_number: ROUTING, account_number: accountNumber, account_type: 'checking' },
  });
}

/** Submits the ACH debit that pays a collection (unless its window already has): its id. */
async function submitCollectionDebit(d: RecipeDriver, collectionId: string): Promise<string> {
  const ctx = d.context();
  const [debit] = await debitsOfCollection(ctx.db, ctx.merchant.id, collectionId);
  if (!debit) throw new SandbankError('invalid_state', { message: 'The collection has no bank debit.' });
  if (debit.state === 'pending') await transferSteps.submit(ctx, debit.id);
  return debit.id;
}

const COLLECTION_KEYS = ['amount', 'currency', 'email', ...LABELS] as const;

function collectionInput(set: Overrides, extra: Record<string, unknown> = {}) {
  return checked<CreateCollectionInput>(
    createCollectionSchema,
    {
      amount: set.amount ?? '25.00',
      currency: set.currency ?? 'USD',
      ...(set.email !== undefined ? { email: set.email } : {}),
      ...labels(set),
      ...extra,
    },
    createCollectionFieldCodes,
  );
}

type CreatedCollection = Awaited<ReturnType<typeof createCollection>>;

/**
 * Creates a collection from the overrides (with `extra`), then `then` drives it; with `returns`,
 * the override return_code (default R01) is checked before anything is written and handed to it.
 */
function collectionRecipe(
  type: string,
  drives: string,
  then: (d: RecipeDriver, collection: CreatedCollection, code: string) => Promise<unknown>,
  options: { extra?: Record<string, unknown>; returns?: boolean; movesClock?: boolean } = {},
): Recipe {
  return recipe(
    type,
    drives,
    [...COLLECTION_KEYS, ...(options.returns ? ['return_code'] : [])],
    (set) => {
      const input = collectionInput(set, options.extra);
      const code = options.returns ? returnCode(set, 'R01', 'debit', 'WEB') : 'R01';
      return async (d) => {
        const collection = await createCollection(d.context(), input);
        await then(d, collection, code);
        return collection.id;
      };
    },
    options.movesClock ?? false,
  );
}

export const collectionRecipes: Recipe[] = [
  collectionRecipe('collection.created', 'Creates a collection (a checkout).', async () => {}),
  collectionRecipe(
    'collection.processing',
    'Creates a collection and pays it by bank account (an ACH debit of the payer).',
    async (d, collection) => {
      await payCollectionByBank(d, collection.reference, GOOD_ACCOUNT);
      await submitCollectionDebit(d, collection.id);
    },
  ),
  collectionRecipe(
    'collection.succeeded',
    'Creates a collection and pays it by card (Visa 4242…).',
    (d, collection) => payCollectionByCard(d, collection.reference, VISA),
  ),
  collectionRecipe(
    'collection.failed',
    'Creates a collection, pays it by bank account, submits the ACH debit and returns it before settlement (return_code, default R01).',
    async (d, collection, code) => {
      await payCollectionByBank(d, collection.reference, GOOD_ACCOUNT);
      const debit = await submitCollectionDebit(d, collection.id);
      await returnTransfer(d, debit, code);
    },
    { returns: true },
  ),
  collectionRecipe(
    'collection.expired',
    "Creates a collection that expires in 30 minutes and advances the merchant's clock past it.",
    (d) => d.advance(1801),
    { extra: { expires_in: 1800 }, movesClock: true },
  ),
  collectionRecipe('collection.canceled', 'Creates a collection and cancels it.', (d, collection) =>
    cancelCollection(d.context(), collection.reference),
  ),
];
