import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { currencyField, labelFields, moneyFieldCodes, wireAmount } from '../../kernel/wire-schemas.ts';
import { statementDate } from '../statements/statements.schema.ts';
import type { ExpectedPaymentState } from './reconciliation.machine.ts';

export const EXPECTED_RAILS = ['ach', 'same_day_ach', 'rtp', 'fednow', 'wire'] as const;

export const createExpectedPaymentSchema = z.strictObject({
  direction: z
    .enum(['credit', 'debit'])
    .describe('credit: money the merchant expects to receive; debit: money it expects to leave.'),
  amount: wireAmount
    .optional()
    .describe('The exact amount expected; or give amount_min and amount_max for a range.'),
  amount_min: wireAmount.optional().describe('The least amount that matches (with amount_max).'),
  amount_max: wireAmount.optional().describe('The most amount that matches (with amount_min).'),
  currency: currencyField(['USD'], 'expected payments are in USD (ISO 4217 code, any case)').describe('USD.'),
  rail: z
    .enum(EXPECTED_RAILS)
    .optional()
    .describe(
      'Only movements on this rail match (ach, same_day_ach, rtp, fednow, wire); any rail when left out.',
    ),
  date_from: statementDate
    .optional()
    .describe("The first day of the window (YYYY-MM-DD, New York); default the merchant's clock's day."),
  date_to: statementDate
    .optional()
    .describe(
      "The last day of the window (YYYY-MM-DD, New York): at most 366 days after date_from, not before the clock's day. Or give days.",
    ),
  days: z
    .number()
    .int()
    .min(1)
    .max(366)
    .optional()
    .describe('The window in days from date_from (date_to is date_from + days - 1), in place of date_to.'),
  ...labelFields,
  reference: labelFields.reference.describe(
    "The reference the payment carries (its sender's reference or description): movements with it add up to the amount; without one, a single movement must match.",
  ),
});
export type CreateExpectedPaymentInput = z.output<typeof createExpectedPaymentSchema>;
export const createExpectedPaymentFieldCodes: FieldCodes = {
  ...moneyFieldCodes,
  amount_min: 'amount_invalid',
  amount_max: 'amount_invalid',
};

export const listExpectedPaymentsQuery = {
  state: z
    .enum(['unmatched', 'partially_matched', 'matched', 'overdue', 'canceled'])
    .optional()
    .describe('Only expected payments in this state.'),
};

export const ExpectedPaymentStateValues = describedValues(
  'ExpectedPaymentState',
  'Where an expected payment stands.',
  {
    unmatched: 'No movement has matched it yet.',
    partially_matched: 'Movements carrying its reference matched part of its amount.',
    matched: "A movement (or its reference's movements together) matched its amount.",
    overdue: 'Its window ended before it was matched.',
    canceled: 'The merchant canceled it.',
  } satisfies Record<ExpectedPaymentState, string>,
);

export const ExpectedPaymentDirectionValues = describedValues(
  'ExpectedPaymentDirection',
  'Which way the expected money moves.',
  { credit: "Into the merchant's account.", debit: "Out of the merchant's account." },
);
