import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import {
  cardSchema,
  type completeChallengeSchema,
  currencyField,
  labelFields,
  moneyFieldCodes,
  wireAmount,
} from '../../kernel/wire-schemas.ts';
import type { RefundState } from './card-payments.machine.ts';
import type { REFUND_REASONS } from './card-payments.resource.ts';

export const createTokenSchema = z.strictObject({ card: cardSchema });

export const createTokenFieldCodes: FieldCodes = { card: 'parameter_invalid' };

/** POST /v1/tokens's body as parsed: createToken's input. */
export type CreateTokenInput = z.output<typeof createTokenSchema>;

export const createCardPaymentSchema = z.strictObject({
  amount: wireAmount,
  currency: currencyField(['USD'], 'card payments are in USD (ISO 4217 code, any case)').describe(
    'USD (card payments are in USD; another code is currency_unsupported).',
  ),
  card: cardSchema.optional().describe('The card; or token (exactly one of them).'),
  token: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('A card token (POST /v1/tokens, createCardToken in GraphQL), instead of card.'),
  capture: z.boolean().optional().describe('Capture at once (default true); false only authorizes.'),
  reference: labelFields.reference.describe(
    "The merchant's own reference: 1-100 characters of A-Z a-z 0-9 . _ : -.",
  ),
  description: labelFields.description.describe('A free-text description, up to 1000 characters.'),
  metadata: labelFields.metadata,
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
  reason: z
    .enum(['duplicate', 'fraudulent', 'requested_by_customer'])
    .optional()
    .describe('Why the merchant refunds.'),
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

export const RefundStateValues = describedValues('RefundState', 'Where a refund stands.', {
  pending: 'Asked for; the card network has not answered yet.',
  succeeded: 'The money went back to the card.',
  failed: 'The refund did not go through (failureReason says why); nothing left the balance.',
} satisfies Record<RefundState, string>);

export const RefundReasonValues = describedValues('RefundReason', 'Why the merchant refunds.', {
  duplicate: 'The payment was taken twice.',
  fraudulent: 'The payment was fraudulent.',
  requested_by_customer: 'The customer asked for their money back.',
} satisfies Record<(typeof REFUND_REASONS)[number], string>);
