import { z } from 'zod';
import { CURRENCY_CODES } from '../../kernel/currency.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { currencyField, wireAmount } from '../../kernel/wire-schemas.ts';

export const topUpSchema = z.strictObject({
  amount: wireAmount.describe('How much to add, in major units: 100, 100.5, 100.50 or "100.50".'),
  currency: currencyField(CURRENCY_CODES, 'a currency is USD, EUR, GBP or JPY').describe(
    'The balance to add it to: USD, EUR, GBP or JPY.',
  ),
  description: z
    .string()
    .max(500)
    .optional()
    .describe('Describes the posting (left out or empty: "Sandbox top-up").'),
});

export const topUpFieldCodes: FieldCodes = { amount: 'amount_invalid', currency: 'currency_unsupported' };

/** POST /v1/simulate/balance/top_up's body as parsed: topUpBalance's input. */
export type TopUpInput = z.output<typeof topUpSchema>;
