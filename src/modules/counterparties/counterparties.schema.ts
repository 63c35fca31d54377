import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import { metadataSchema, wireAmount } from '../../kernel/wire-schemas.ts';
import { bankAccountSchema } from '../bank-accounts/bank-account.ts';
import { CHANGE_CODES, changeCodeTitle, REFUSAL_CODES } from '../bank-accounts/bank-accounts.corrections.ts';
import type { VerificationState } from './counterparties.verification-rules.ts';

export const createCounterpartySchema = bankAccountSchema.extend({
  name: z.string().min(1).max(100).describe("The account holder's name."),
  individual_id: z
    .string()
    .regex(/^[A-Za-z0-9 -]{1,15}$/, 'an individual id is 1-15 letters, digits, spaces or hyphens')
    .optional()
    .describe(
      "The receiver's identification number entries to it carry (PPD/WEB Individual ID, CCD Identification Number).",
    ),
  metadata: metadataSchema.optional(),
});

export type CreateCounterpartyInput = z.output<typeof createCounterpartySchema>;

/** A saved counterparty's id, as a transfer names it instead of an inline bank account. */
export const counterpartyIdSchema = z
  .string()
  .regex(/^cpty_[0-9A-Za-z]{1,60}$/, 'a saved counterparty id is cpty_…')
  .describe('The id of a saved counterparty (cpty_…), instead of an inline bank account.');

const titleOf = (code: string) => `${changeCodeTitle(code) ?? code}.`;

export const AchChangeCodeValues = describedValues(
  'AchChangeCode',
  'A Nacha change code: what a notification of change corrects (C01-C14; Sandbank sends C01-C07, C09 and C13).',
  Object.fromEntries(CHANGE_CODES.map((code) => [code, titleOf(code)])),
);

export const AchRefusedNocCodeValues = describedValues(
  'AchRefusedNocCode',
  'A refused-NOC code (C61-C69): why the ODFI sent a notification of change back.',
  Object.fromEntries(REFUSAL_CODES.map((code) => [code, titleOf(code)])),
);

export const confirmMicrodepositsSchema = z.strictObject({
  amounts: z
    .array(wireAmount)
    .min(1)
    .max(4)
    .describe(
      'The micro-deposit amounts the account holder saw (major units, any order; in this sandbox 0.32 and 0.45).',
    ),
});

/** POST /v1/counterparties/{id}/microdeposits/confirm's body as parsed. */
export type ConfirmMicrodepositsInput = z.output<typeof confirmMicrodepositsSchema>;

export const VerificationStateValues = describedValues(
  'CounterpartyVerificationStatus',
  "A saved counterparty's account verification.",
  {
    unverified: 'Never verified: usable, except for WEB debits.',
    verification_pending:
      'Micro-deposits to confirm (no ACH debits yet), or a prenote in its waiting period (no ACH entries yet).',
    verified: 'Verified by micro-deposits or a prenote.',
    verification_failed:
      'Its entries were returned, or its micro-deposits confirmed wrongly too often: not usable until verified again.',
  } satisfies Record<VerificationState, string>,
);

export const VerificationMethodValues = describedValues(
  'CounterpartyVerificationMethod',
  'How a counterparty is verified.',
  {
    microdeposits:
      'Two credits under 1.00 and their offsetting debit (ACCTVERIFY); the amounts confirm the account.',
    prenote: 'A zero-dollar entry; live ACH entries from the third banking day after it settles.',
  },
);
