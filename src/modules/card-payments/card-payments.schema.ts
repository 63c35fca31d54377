import { z } from 'zod';
import type { FieldCodes } from '../../kernel/validation.ts';
import {
  cardSchema,
  type completeChallengeSchema,
  currencyField,
  labelFields,
  moneyFieldCodes,
  wireAmount,
} from '../../kernel/wire-schemas.ts';

export const createTokenSchema = z.strictObject({ card: cardSchema });

export const createTokenFieldCodes: FieldCodes = { card: 'parameter_invalid' };

/** POST /v1/tokens's body as parsed: createToken's input. */
export type CreateTokenInput = z.output<typeof createTokenSchema>;

export const createCardPaymentSchema = z.strictObject({
  amount: wireAmount,
  currency: currencyField(['USD'], 'card payments are in USD (ISO 4217 code, any case)'),
  card: cardSchema.optional().describe('The card, or `token` from POST /v1/tokens (exactly one).'),
  token: z.string().min(1).max(64).optional(),
  capture: z.boolean().optional().describe('Capture at once (default true); false only authorizes.'),
  ...labelFields,
});

export const createCardPaymentFieldCodes: FieldCodes = { ...moneyFieldCodes, card: 'parameter_invalid' };

/** POST /v1/card_payments's body as parsed: createCardPayment's input. */
export type CreateCardPaymentInput = z.output<typeof createCardPaymentSchema>;

export const captureSchema = z.strictObject({
  amount: wireAmount.optional().describe('At most the authorized amount (default: all of it).'),
});

/** POST /v1/card_payments/{id}/capture's body as parsed: captureCardPayment's input. */
export type CaptureInput = z.output<typeof captureSchema>;

export const refundSchema = z.strictObject({
  amount: wireAmount
    .optional()
    .describe('At most what is captured and not yet refunded (default: all of it).'),
  reason: z.enum(['duplicate', 'fraudulent', 'requested_by_customer']).optional(),
});

/** POST /v1/card_payments/{id}/refunds's body as parsed: refundCardPayment's input. */
export type RefundInput = z.output<typeof refundSchema>;

/** The error codes of a capture's and a refund's fields. */
export const amountFieldCodes: FieldCodes = { amount: 'amount_invalid' };

/**
 * The answer to a 3-D Secure challenge as parsed (kernel/wire-schemas.ts's completeChallengeSchema,
 * which has no special field codes): completeCardPayment3ds's and its collection's completeChallenge's input.
 */
export type CompleteChallengeInput = z.output<typeof completeChallengeSchema>;
