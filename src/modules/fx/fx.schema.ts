import { z } from 'zod';
import type { FieldCodes } from '../../kernel/validation.ts';
import { currencyField, labelFields, moneyFieldCodes, wireAmount } from '../../kernel/wire-schemas.ts';

export const FX_TARGETS = ['EUR', 'GBP', 'JPY'] as const;
export const LOCK_DURATIONS = { five_minutes: 300, hour: 3_600, day: 86_400 } as const;
export type LockDuration = keyof typeof LOCK_DURATIONS;

const targetCurrency = currencyField(FX_TARGETS, 'FX targets are EUR, GBP and JPY');

export const createQuoteSchema = z.strictObject({
  source_currency: currencyField(['USD'], 'quotes sell USD').optional().describe('Always USD.'),
  target_currency: targetCurrency,
  source_amount: wireAmount.optional().describe('USD to sell (then target_amount is computed), or…'),
  target_amount: wireAmount
    .optional()
    .describe('…the target amount to buy (then source_amount is computed).'),
  lock_duration: z
    .enum(Object.keys(LOCK_DURATIONS) as [LockDuration, ...LockDuration[]])
    .optional()
    .describe('How long the rate stays locked: five_minutes (default), hour or day.'),
});

export const quoteFieldCodes: FieldCodes = {
  source_currency: 'currency_unsupported',
  target_currency: 'currency_unsupported',
  source_amount: 'amount_invalid',
  target_amount: 'amount_invalid',
};

/** POST /v1/fx/quotes' body as parsed: createQuote's input. */
export type CreateQuoteInput = z.output<typeof createQuoteSchema>;

export const createConversionSchema = z.strictObject({
  quote_id: z.string().min(1).max(255).describe('The quote to convert at (once, before it expires).'),
  ...labelFields,
});

export const conversionFieldCodes: FieldCodes = { reference: moneyFieldCodes.reference };

/** POST /v1/fx/conversions' body as parsed: createConversion's input. */
export type CreateConversionInput = z.output<typeof createConversionSchema>;

/** Validated per currency in the service (IBAN or Japanese account), so it is loose here. */
const destinationSchema = z
  .record(z.string(), z.unknown())
  .describe('EUR/GBP: {name, iban}. JPY: {name, bank_code (4 digits), branch_code (3), account_number (7)}.');

export const createSettlementSchema = z.strictObject({
  quote_id: z.string().min(1).max(255).optional().describe('Convert at this locked quote, or…'),
  target_currency: targetCurrency.optional().describe('…convert now at the current rate (with an amount)…'),
  source_amount: wireAmount.optional(),
  target_amount: wireAmount.optional(),
  currency: targetCurrency.optional().describe('…or pay out of the EUR/GBP/JPY balance (with amount).'),
  amount: wireAmount.optional(),
  destination: destinationSchema,
  ...labelFields,
});

export const settlementFieldCodes: FieldCodes = {
  ...quoteFieldCodes,
  ...conversionFieldCodes,
  currency: 'currency_unsupported',
  amount: 'amount_invalid',
  destination: 'destination_invalid',
};

/** POST /v1/fx/settlements' body as parsed: createSettlement's input. */
export type CreateSettlementInput = z.output<typeof createSettlementSchema>;

export const listByStateQuery = {
  state: z.string().max(32).optional().describe('Only objects in this state.'),
};

export const ratesQuery = z.strictObject({
  at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("The rates of this instant's hour (any instant); the clock's time when left out."),
});

export const failSettlementSchema = z.strictObject({
  code: z
    .string()
    .max(8)
    .optional()
    .describe('The ISO 20022 reason: AC01, AC04 (default), AC06, AG01, BE01 or MS03.'),
});

/** POST /v1/simulate/fx_settlements/{id}/fail's body as parsed: simulateSettlementFail's input. */
export type FailSettlementInput = z.output<typeof failSettlementSchema>;
