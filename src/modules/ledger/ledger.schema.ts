import { z } from 'zod';
import { CURRENCY_CODES } from '../../kernel/currency.ts';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { currencyField, wireAmount } from '../../kernel/wire-schemas.ts';
import type { PostingState } from './ledger.machine.ts';
import { POSTING_TYPES, type PostingType, type SourceType } from './ledger.resource.ts';

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

export const BalanceTransactionTypeValues = describedValues(
  'BalanceTransactionType',
  'What a ledger posting records.',
  Object.fromEntries(
    Object.entries(POSTING_TYPES).map(([type, meaning]) => [
      type,
      `${meaning.charAt(0).toUpperCase()}${meaning.slice(1)}.`,
    ]),
  ) as Record<PostingType, string>,
);

export const BalanceTransactionStateValues = describedValues(
  'BalanceTransactionState',
  'Where a ledger posting stands.',
  {
    pending: 'A hold: reserved until it is posted to its destination or voided back to available.',
    posted: 'Applied (a hold: sent to its destination).',
    voided: 'A hold released back to available.',
    reversed: 'Undone by a later reversal posting.',
  } satisfies Record<PostingState, string>,
);

export const BalanceTransactionSourceTypeValues = describedValues(
  'BalanceTransactionSourceType',
  'The kind of object a posting comes from.',
  {
    top_up: "A sandbox top-up (its id is the merchant's).",
    card_payment: 'A card payment.',
    refund: 'A card refund.',
    transfer: 'A bank transfer.',
    payout: 'A payout.',
    inbound_transfer: 'An inbound transfer from an outside originator.',
    issuing_authorization: 'An authorization on a virtual card.',
    fx_conversion: 'An FX conversion.',
    fx_settlement: 'A settlement abroad.',
    dispute: 'A dispute of a card payment.',
  } satisfies Record<SourceType, string>,
);
