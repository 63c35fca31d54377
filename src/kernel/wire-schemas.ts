import { z } from 'zod';
import type { FieldCodes } from './validation.ts';

/**
 * The wire schemas the modules' requests share: amounts, references, metadata and labels, a card as
 * a payer types it, and a 3-D Secure challenge's answer. Each module's own request schemas live in
 * its `*.schema.ts` and are built from these.
 */

/**
 * Wire amounts: a JSON number or a decimal string, read exactly by kernel/money. The document says
 * what kernel/money accepts (a number above 0, a string of digits with an optional fraction) as
 * metadata only: the server's checks and their errors stay kernel/money's (amount_invalid).
 */
export const wireAmount = z
  .union([z.number().meta({ exclusiveMinimum: 0 }), z.string().meta({ pattern: '^[0-9]+(\\.[0-9]+)?$' })], {
    error: 'an amount is a number or a decimal string',
  })
  .describe('Decimal amount in major units: 100, 100.5, 100.50 or "100.50".');

/**
 * A currency field: one of `codes`, in any case ("usd", as Stripe's clients send it), read and
 * answered in upper case. The document shows the exact set as a pattern (each letter in either
 * case), so a validator built from it refuses what the server refuses.
 */
export function currencyField<const C extends readonly [string, ...string[]]>(codes: C, error: string) {
  const either = (code: string) => [...code].map((c) => `[${c}${c.toLowerCase()}]`).join('');
  const pattern = new RegExp(`^(${codes.map(either).join('|')})$`);
  return z
    .string({ error })
    .regex(pattern, { error })
    .transform((value) => value.toUpperCase() as C[number]);
}

export const REFERENCE_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;

export const metadataSchema = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((value) => Object.keys(value).length <= 50, 'metadata has at most 50 keys')
  .describe('Up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars).');

/** What a merchant may attach to a payment or transfer: its reference, description and metadata. */
export const labelFields = {
  reference: z
    .string()
    .regex(REFERENCE_PATTERN, 'a reference is 1-100 characters of A-Z a-z 0-9 . _ : -')
    .optional()
    .describe("The merchant's own reference: 1-100 characters of A-Z a-z 0-9 . _ : -."),
  description: z.string().max(1000).optional().describe('A free-text description, up to 1000 characters.'),
  metadata: metadataSchema.optional(),
};

/** The error codes of the fields a money-moving request shares. */
export const moneyFieldCodes: FieldCodes = {
  amount: 'amount_invalid',
  currency: 'currency_unsupported',
  reference: 'reference_invalid',
};

/** A card as a payer types it (card payments, tokens, a collection's checkout). */
export const cardSchema = z.strictObject({
  number: z.string().max(40),
  exp_month: z.union([z.int(), z.string().max(4)]),
  exp_year: z.union([z.int(), z.string().max(4)]),
  cvc: z.string().max(8),
  name: z.string().max(100).optional(),
});

/** The answer to a 3-D Secure challenge (a card payment's, or its collection's). */
export const completeChallengeSchema = z.strictObject({
  outcome: z.enum(['succeed', 'fail']).describe('Whether the payer passes the challenge.'),
});
