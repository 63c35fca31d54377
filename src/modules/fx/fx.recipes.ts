/** The trigger recipes of FX (docs/guide/trigger.md): quotes, conversions and settlements abroad. */
import { SandbankError } from '../../kernel/errors.ts';
import { parseAmount } from '../../kernel/money.ts';
import { topUp } from '../ledger/ledger.recipes.ts';
import {
  asOverride,
  checked,
  LABELS,
  labels,
  type Overrides,
  type Recipe,
  type RecipeDriver,
  recipe,
} from '../recipe.ts';
import { createConversion } from './fx.conversions.ts';
import { FAILURE_REASONS } from './fx.destinations.ts';
import { priceQuote } from './fx.pricing.ts';
import { createQuote } from './fx.quotes.ts';
import {
  type CreateQuoteInput,
  conversionFieldCodes,
  createConversionSchema,
  createQuoteSchema,
  quoteFieldCodes,
} from './fx.schema.ts';
import { simulateSettlementFail, simulateSettlementPay } from './fx.settle.ts';
import { createSettlement } from './fx.settlements.ts';

/** The accounts abroad a recipe's settlement pays, by currency (each one paid, not a failing one). */
const DESTINATIONS = {
  EUR: { name: 'Trigger Beneficiary', iban: 'DE89370400440532013000' },
  GBP: { name: 'Trigger Beneficiary', iban: 'GB29NWBK60161331926819' },
  JPY: { name: 'Trigger Beneficiary', bank_code: '0001', branch_code: '001', account_number: '1234567' },
} as const;

async function createQuoteId(d: RecipeDriver, input: CreateQuoteInput): Promise<string> {
  return (await createQuote(d.context(), input)).id;
}

/**
 * The checks POST /v1/fx/quotes makes before writing (an amount that converts to nothing at the
 * current rate, or more than a quote converts): run before a recipe tops up the balance for it.
 */
function checkQuote(d: RecipeDriver, input: CreateQuoteInput): void {
  priceQuote(d.context().config.fx, d.now(), {
    target: input.target_currency,
    sourceAmount: input.source_amount,
    targetAmount: input.target_amount,
    lockDuration: input.lock_duration ?? 'five_minutes',
  });
}

async function convert(d: RecipeDriver, quoteId: string, labels: Record<string, unknown>): Promise<string> {
  return (await createConversion(d.context(), { quote_id: quoteId, ...labels })).id;
}

/** POST /v1/fx/settlements, converted now from USD, to a destination that is paid. */
async function createSettlementId(
  d: RecipeDriver,
  quote: CreateQuoteInput,
  labels: Record<string, unknown>,
): Promise<string> {
  const settlement = await createSettlement(d.context(), {
    target_currency: quote.target_currency,
    ...(quote.source_amount !== undefined ? { source_amount: quote.source_amount } : {}),
    destination: { ...DESTINATIONS[quote.target_currency] },
    ...labels,
  });
  return settlement.id;
}

async function settlementStep(
  d: RecipeDriver,
  id: string,
  step: 'pay' | 'fail',
  code?: string,
): Promise<void> {
  if (step === 'pay') await simulateSettlementPay(d.context(), id);
  else await simulateSettlementFail(d.context(), id, code ? { code } : {});
}

const QUOTE_KEYS = ['target_currency', 'source_amount'] as const;

function quoteInput(set: Overrides) {
  const input = checked<CreateQuoteInput>(
    createQuoteSchema,
    { target_currency: set.target_currency ?? 'EUR', source_amount: set.source_amount ?? '25.00' },
    quoteFieldCodes,
  );
  asOverride(() => parseAmount(input.source_amount, 'USD', { param: 'source_amount' }));
  return input;
}

/** reference, description and metadata of a conversion or settlement, checked as a conversion checks them. */
function conversionLabels(set: Overrides): Record<string, unknown> {
  const { quote_id: _quote, ...rest } = checked<Record<string, unknown>>(
    createConversionSchema,
    { quote_id: 'fxq_trigger', ...labels(set) },
    conversionFieldCodes,
  );
  return rest;
}

export const fxRecipes: Recipe[] = [
  recipe('fx_quote.created', 'Asks for an FX quote (USD to EUR by default).', QUOTE_KEYS, (set) => {
    const input = quoteInput(set);
    return (d) => createQuoteId(d, input);
  }),
  recipe(
    'fx_quote.used',
    'Tops up the balance, asks for an FX quote and converts at it.',
    [...QUOTE_KEYS, ...LABELS],
    (set) => {
      const input = quoteInput(set);
      const extra = conversionLabels(set);
      return async (d) => {
        asOverride(() => checkQuote(d, input));
        await topUp(d, String(input.source_amount), 'USD');
        const quote = await createQuoteId(d, input);
        await convert(d, quote, extra);
        return quote;
      };
    },
  ),
  recipe(
    'fx_quote.expired',
    "Asks for an FX quote locked five minutes and advances the merchant's clock past it.",
    QUOTE_KEYS,
    (set) => {
      const input = quoteInput(set);
      return async (d) => {
        const quote = await createQuoteId(d, input);
        await d.advance(301);
        return quote;
      };
    },
    true,
  ),
  recipe(
    'fx_conversion.completed',
    'Tops up the balance, asks for an FX quote and converts at it.',
    [...QUOTE_KEYS, ...LABELS],
    (set) => {
      const input = quoteInput(set);
      const extra = conversionLabels(set);
      return async (d) => {
        asOverride(() => checkQuote(d, input));
        await topUp(d, String(input.source_amount), 'USD');
        return convert(d, await createQuoteId(d, input), extra);
      };
    },
  ),
];

const SETTLEMENT_KEYS = ['target_currency', 'source_amount', ...LABELS] as const;

function settlementRecipe(
  type: string,
  drives: string,
  then: (d: RecipeDriver, id: string, set: Overrides) => Promise<void>,
  extraKeys: readonly string[] = [],
): Recipe {
  return recipe(type, drives, [...SETTLEMENT_KEYS, ...extraKeys], (set) => {
    const quote = quoteInput(set);
    const extra = conversionLabels(set);
    if (set.failure_code !== undefined && !(set.failure_code in FAILURE_REASONS))
      throw new SandbankError('parameter_invalid', {
        param: 'set.failure_code',
        message: `A failure code is one of ${Object.keys(FAILURE_REASONS).join(', ')}.`,
      });
    return async (d) => {
      asOverride(() => checkQuote(d, quote));
      await topUp(d, String(quote.source_amount), 'USD');
      const id = await createSettlementId(d, quote, extra);
      await then(d, id, set);
      return id;
    };
  });
}

export const settlementRecipes: Recipe[] = [
  settlementRecipe(
    'fx_settlement.created',
    'Tops up the balance and pays a settlement abroad, converted now (EUR to an IBAN by default).',
    async () => {},
  ),
  settlementRecipe(
    'fx_settlement.converted',
    'The same: a settlement is converted as it is created.',
    async () => {},
  ),
  settlementRecipe('fx_settlement.paid', 'A settlement abroad, then paid (simulate pay).', (d, id) =>
    settlementStep(d, id, 'pay'),
  ),
  settlementRecipe(
    'fx_settlement.failed',
    'A settlement abroad, then refused by the beneficiary bank (failure_code, default AC04).',
    (d, id, set) => settlementStep(d, id, 'fail', set.failure_code),
    ['failure_code'],
  ),
];
