import { z } from 'zod';
import type { FieldCodes } from '../../kernel/validation.ts';
import { bankAccountSchema } from '../bank-accounts/bank-account.ts';
import { metadataSchema, REFERENCE_PATTERN, wireAmount } from '../collections/collections.schema.ts';
import { RAILS } from './transfers.rails.ts';

export const createTransferSchema = z.strictObject({
  rail: z.enum(RAILS),
  direction: z.enum(['credit', 'debit']).describe('credit sends money to the counterparty; debit pulls it.'),
  amount: wireAmount,
  currency: z.enum(['USD'], { error: 'bank transfers are in USD (upper-case ISO 4217 code)' }),
  counterparty: bankAccountSchema.extend({ name: z.string().min(1).max(100) }),
  sec_code: z.enum(['PPD', 'CCD', 'WEB']).optional().describe('ACH only (default CCD).'),
  reference: z
    .string()
    .regex(REFERENCE_PATTERN, 'a reference is 1-100 characters of A-Z a-z 0-9 . _ : -')
    .optional(),
  description: z.string().max(1000).optional(),
  metadata: metadataSchema.optional(),
});

export const createTransferFieldCodes: FieldCodes = {
  amount: 'amount_invalid',
  currency: 'currency_unsupported',
  reference: 'reference_invalid',
};

export const returnTransferSchema = z.strictObject({
  code: z
    .string()
    .max(8)
    .optional()
    .describe('A Nacha return code (default R01 for debits, R03 for credits).'),
});

export const listTransfersQuery = {
  rail: z.enum(RAILS).optional().describe('Only transfers on this rail.'),
  state: z.string().max(32).optional().describe('Only transfers in this state.'),
};
