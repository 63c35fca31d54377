import { z } from 'zod';
import { SandbankError } from '../../kernel/errors.ts';

/** ABA routing number checksum: weights 3, 7, 1 repeated; the weighted sum is a multiple of 10. */
export function abaChecksumValid(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  const sum = weights.reduce((total, weight, i) => total + weight * Number(routing[i]), 0);
  return sum % 10 === 0;
}

export const bankAccountSchema = z.strictObject({
  name: z.string().min(1).max(100).optional().describe("The account holder's name."),
  routing_number: z.string().describe('The ABA routing number (9 digits, checksummed).'),
  account_number: z.string().describe('The account number (4-17 digits).'),
  account_type: z
    .enum(['checking', 'savings'])
    .default('checking')
    .describe('checking (default) or savings.'),
});

export type BankAccountInput = z.input<typeof bankAccountSchema>;

export interface BankAccount {
  name: string | null;
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
  last4: string;
}

/** Checks a US bank account (routing checksum, 4-17 digit account) and returns it normalised. */
export function validateBankAccount(
  input: z.output<typeof bankAccountSchema>,
  paramPrefix: string,
): BankAccount {
  const param = (name: string) => (paramPrefix ? `${paramPrefix}.${name}` : name);
  if (!abaChecksumValid(input.routing_number)) {
    throw new SandbankError('invalid_routing_number', {
      param: param('routing_number'),
      message: 'A routing number is 9 digits that pass the ABA checksum (weights 3-7-1).',
    });
  }
  if (!/^\d{4,17}$/.test(input.account_number)) {
    throw new SandbankError('invalid_account_number', { param: param('account_number') });
  }
  return {
    name: input.name ?? null,
    routingNumber: input.routing_number,
    accountNumber: input.account_number,
    accountType: input.account_type,
    last4: input.account_number.slice(-4),
  };
}
