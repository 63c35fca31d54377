import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import {
  cardSchema,
  currencyField,
  metadataSchema,
  REFERENCE_PATTERN,
  wireAmount,
} from '../../kernel/wire-schemas.ts';
import { bankAccountSchema } from '../bank-accounts/bank-account.ts';
import type { AttemptState } from './collections.machine.ts';

export const createCollectionSchema = z.strictObject({
  amount: wireAmount,
  currency: currencyField(['USD'], 'collections are in USD (ISO 4217 code, any case)').describe(
    'Collections are in USD.',
  ),
  email: z.email().max(254).optional().describe("The payer's e-mail address."),
  reference: z
    .string()
    .regex(REFERENCE_PATTERN, 'a reference is 1-100 characters of A-Z a-z 0-9 . _ : -')
    .refine(
      (value) => !value.startsWith('col_'),
      'references starting with "col_" are reserved for collection ids',
    )
    .optional()
    .describe('Your reference, unique per merchant; generated (the collection id) when omitted.'),
  description: z
    .string()
    .max(1000)
    .optional()
    .describe('Shown to the payer at checkout (up to 1000 characters).'),
  redirect_url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional()
    .describe('Where the payer is sent after paying, with ?reference=…&state=….'),
  metadata: metadataSchema.optional(),
  expires_in: z
    .int()
    .min(1800)
    .max(86400)
    .optional()
    .describe('Seconds until the checkout expires (1800-86400, default 86400).'),
});

/** POST /v1/collect's body as parsed: createCollection's input. */
export type CreateCollectionInput = z.output<typeof createCollectionSchema>;

/** POST /v1/collections/{reference}: what a collection's owner may change after creating it. */
export const updateCollectionSchema = z.strictObject({
  metadata: z
    .record(z.string().min(1).max(40), z.string().max(500))
    .optional()
    .describe(
      'Keys merged into the metadata (up to 50 in all, keys ≤ 40 chars, values ≤ 500); a key set to "" is removed.',
    ),
  description: z
    .string()
    .max(1000)
    .nullable()
    .optional()
    .describe('Shown to the payer at checkout (up to 1000 characters); null clears it.'),
});

/** POST /v1/collections/{reference}'s body as parsed: updateCollection's input. */
export type UpdateCollectionInput = z.output<typeof updateCollectionSchema>;

export const createCollectionFieldCodes: FieldCodes = {
  amount: 'amount_invalid',
  currency: 'currency_unsupported',
  email: 'email_invalid',
  reference: 'reference_invalid',
  redirect_url: 'url_invalid',
};

export const payCollectionSchema = z.discriminatedUnion('method', [
  z.strictObject({
    method: z.literal('card'),
    card: cardSchema,
    three_d_secure: z
      .enum(['succeed', 'fail'])
      .optional()
      .describe('Completes a 3-D Secure challenge in the same call, for headless tests.'),
  }),
  z.strictObject({ method: z.literal('bank_account'), bank_account: bankAccountSchema }),
]);

/** The error codes of a payment's special fields. */
export const payCollectionFieldCodes: FieldCodes = { card: 'parameter_invalid' };

/** A payment of a collection as parsed: payCollection's input. */
export type PayCollectionInput = z.output<typeof payCollectionSchema>;

export const PaymentMethodValues = describedValues('PaymentMethod', 'How a payer pays a collection.', {
  card: 'By card: a card payment.',
  bank_account: "By bank account: an ACH debit of the payer's account.",
} satisfies Record<'card' | 'bank_account', string>);

export const PaymentAttemptStateValues = describedValues(
  'PaymentAttemptState',
  'Where a payment attempt stands.',
  {
    requires_action: 'Waits for the payer to complete 3-D Secure.',
    processing: 'A bank payment on its way.',
    succeeded: 'The collection was paid by this attempt.',
    failed: 'The attempt did not pay the collection.',
  } satisfies Record<AttemptState, string>,
);
