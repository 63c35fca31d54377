import { z } from 'zod';
import type { FieldCodes } from '../../kernel/validation.ts';
import { cardSchema, labelFields, moneyFieldCodes, wireAmount } from '../../kernel/wire-schemas.ts';

export const createTokenSchema = z.strictObject({ card: cardSchema });

export const createCardPaymentSchema = z.strictObject({
  amount: wireAmount,
  currency: z.enum(['USD'], { error: 'card payments are in USD (upper-case ISO 4217 code)' }),
  card: cardSchema.optional().describe('The card, or `token` from POST /v1/tokens (exactly one).'),
  token: z.string().min(1).max(64).optional(),
  capture: z.boolean().optional().describe('Capture at once (default true); false only authorizes.'),
  ...labelFields,
});

export const createCardPaymentFieldCodes: FieldCodes = moneyFieldCodes;

export const captureSchema = z.strictObject({
  amount: wireAmount.optional().describe('At most the authorized amount (default: all of it).'),
});

export const refundSchema = z.strictObject({
  amount: wireAmount
    .optional()
    .describe('At most what is captured and not yet refunded (default: all of it).'),
  reason: z.enum(['duplicate', 'fraudulent', 'requested_by_customer']).optional(),
});

export const amountFieldCodes: FieldCodes = { amount: 'amount_invalid' };
