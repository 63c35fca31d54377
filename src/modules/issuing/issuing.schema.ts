import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { currencyField, metadataSchema, wireAmount } from '../../kernel/wire-schemas.ts';
import type { DeclineReason, LimitInterval } from './issuing.controls.ts';
import { LIMIT_INTERVALS } from './issuing.controls.ts';
import type { VirtualCardState } from './issuing.machine.ts';

const mccList = z.array(z.string().max(8)).max(200);

export const spendingControlsSchema = z.strictObject({
  limits: z
    .array(z.strictObject({ amount: wireAmount, interval: z.enum(LIMIT_INTERVALS) }))
    .max(20)
    .optional()
    .describe(
      'Spending limits in USD (at most 20); every one applies (calendar windows in UTC on the clock).',
    ),
  allowed_mccs: mccList.optional().describe('Only these merchant category codes are allowed (at most 200).'),
  blocked_mccs: mccList.optional().describe('These merchant category codes are declined (at most 200).'),
});

/** Spending controls as parsed (amounts and codes are checked by the service). */
export type SpendingControlsInput = z.output<typeof spendingControlsSchema>;

export const createVirtualCardSchema = z.strictObject({
  brand: z.enum(['visa', 'mastercard']).describe('The network to issue it on.'),
  cardholder_name: z.string().min(1).max(100).describe('The name on the card (1-100 characters).'),
  currency: currencyField(['USD'], 'virtual cards spend USD').optional().describe('Virtual cards spend USD.'),
  spending_controls: spendingControlsSchema.optional().describe('What it may spend, and where.'),
  metadata: metadataSchema.optional(),
});

/** The error codes of a new card's special fields. */
export const virtualCardFieldCodes: FieldCodes = {
  currency: 'currency_unsupported',
  spending_controls: 'parameter_invalid',
};

/** POST /v1/virtual_cards's body as parsed: createVirtualCard's input. */
export type CreateVirtualCardInput = z.output<typeof createVirtualCardSchema>;

export const updateVirtualCardSchema = z.strictObject({
  state: z
    .enum(['active', 'frozen', 'canceled'])
    .optional()
    .describe('frozen freezes it, active unfreezes it, canceled cancels it for good.'),
  spending_controls: spendingControlsSchema.optional().describe("Replaces the card's controls as a whole."),
  metadata: metadataSchema
    .optional()
    .describe(
      "Replaces the card's metadata: up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars).",
    ),
});

/** The error codes of a card update's special fields. */
export const updateVirtualCardFieldCodes: FieldCodes = { spending_controls: 'parameter_invalid' };

/** POST /v1/virtual_cards/{id}'s body as parsed: updateVirtualCard's input. */
export type UpdateVirtualCardInput = z.output<typeof updateVirtualCardSchema>;

export const simulateAuthorizationSchema = z.strictObject({
  amount: wireAmount.describe('How much the merchant asks for, in USD.'),
  currency: currencyField(['USD'], 'authorizations are in USD').optional(),
  merchant: z.strictObject({
    name: z.string().min(1).max(100).describe("The merchant's name (1-100 characters)."),
    mcc: z.string().max(8).describe("The merchant's category code (4 digits)."),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'a country is an ISO 3166-1 alpha-2 code')
      .optional()
      .describe("The merchant's country, ISO 3166-1 alpha-2 (default US)."),
  }),
  reference: z.string().max(100).optional().describe("The merchant's reference, up to 100 characters."),
});

export const authorizationFieldCodes: FieldCodes = {
  amount: 'amount_invalid',
  currency: 'currency_unsupported',
  merchant: 'parameter_invalid',
};

/** A simulated authorization's body as parsed: simulateAuthorization's input. */
export type SimulateAuthorizationInput = z.output<typeof simulateAuthorizationSchema>;

export const authorizationAmountSchema = z.strictObject({ amount: wireAmount.optional() });

/** The same body as a REST route and a mutation take it: its amount described for the verb. */
export const amountBodyOf = (verb: 'capture' | 'reverse' | 'refund') =>
  z.strictObject({
    amount: wireAmount.optional().describe(`How much to ${verb}, in USD (default: all that can be).`),
  });

export const authorizationAmountFieldCodes: FieldCodes = { amount: 'amount_invalid' };

/** The body of capture, reverse and refund as parsed (it may be omitted: no amount, the default one). */
export type AuthorizationAmountInput = z.output<typeof authorizationAmountSchema>;

export const SpendingLimitIntervalValues = describedValues(
  'SpendingLimitInterval',
  "The window a spending limit counts over: calendar windows in UTC, on the merchant's clock.",
  {
    per_authorization: 'Each authorization alone.',
    daily: 'A calendar day, from 00:00 UTC.',
    weekly: 'A calendar week, from Monday 00:00 UTC.',
    monthly: 'A calendar month, from the 1st.',
    yearly: 'A calendar year, from January 1st.',
    all_time: 'Everything the card ever spent.',
  } satisfies Record<LimitInterval, string>,
);

export const VirtualCardStateValues = describedValues('VirtualCardState', 'Where a virtual card stands.', {
  active: 'Authorizations are decided by its controls and the balance.',
  frozen: 'Every authorization is declined (card_frozen) until it is unfrozen.',
  canceled: 'Every authorization is declined (card_canceled), for good.',
} satisfies Record<VirtualCardState, string>);

export const VirtualCardBrandValues = describedValues(
  'VirtualCardBrand',
  'The network a virtual card is issued on.',
  {
    visa: 'Visa.',
    mastercard: 'Mastercard.',
  } satisfies Record<'visa' | 'mastercard', string>,
);

export const IssuingDeclineReasonValues = describedValues(
  'IssuingDeclineReason',
  'Why an authorization on a virtual card was declined; when several apply, the first listed here wins.',
  {
    card_canceled: 'The card is canceled.',
    card_frozen: 'The card is frozen.',
    card_expired: 'The card is past its expiry month.',
    mcc_blocked: "The merchant's category is among the card's blocked ones.",
    mcc_not_allowed: "The card allows only some categories, and the merchant's is not one of them.",
    spending_limit_exceeded: 'A spending limit would be exceeded (declineInterval names its window).',
    insufficient_funds: 'The available USD balance cannot fund it.',
  } satisfies Record<DeclineReason, string>,
);
