import { z } from 'zod';
import { parseLocalDate } from '../../kernel/banking-days.ts';
import { CURRENCY_CODES } from '../../kernel/currency.ts';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { currencyField } from '../../kernel/wire-schemas.ts';
import { INTRADAY_FORMATS, STATEMENT_FORMATS } from './statements.resource.ts';

const isRealDate = (value: string) => {
  try {
    const { year } = parseLocalDate(value);
    return year >= 1970 && year <= 9998;
  } catch {
    return false;
  }
};

/** A banking day, YYYY-MM-DD. */
export const statementDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date is YYYY-MM-DD')
  .refine(isRealDate, 'a date is a real calendar date from 1970 to 9998');

const currency = currencyField(CURRENCY_CODES, 'a currency is USD, EUR, GBP or JPY');

export const createStatementSchema = z.strictObject({
  currency: currency.describe("The account's currency: USD, EUR, GBP or JPY."),
  date: statementDate.describe(
    "The banking day (YYYY-MM-DD, New York): a past one on the merchant's clock; 409 statement_not_ready before the day has ended.",
  ),
});
export const createStatementFieldCodes: FieldCodes = { currency: 'currency_unsupported' };

export const listStatementsQuery = {
  currency: currency.optional().describe('Only the statements of this currency.'),
  date: statementDate.optional().describe('Only the statements of this banking day.'),
};

export const statementFileQuery = z.strictObject({
  format: z
    .enum(STATEMENT_FORMATS, { error: 'a format is bai2 or camt053' })
    .describe('bai2 (BAI2, text) or camt053 (ISO 20022 camt.053.001.08, XML).'),
});

export const intradayQuery = z.strictObject({
  currency: currency.describe("The account's currency."),
  format: z
    .enum(INTRADAY_FORMATS, { error: 'a format is bai2 or camt052' })
    .describe('bai2 (BAI2 same-day, text) or camt052 (ISO 20022 camt.052.001.08, XML).'),
});

export const StatementFileFormatValues = describedValues(
  'StatementFileFormat',
  "A statement file's format.",
  {
    bai2: 'BAI2 (BAI Cash Management Balance Reporting, version 2): text.',
    camt053: 'ISO 20022 camt.053.001.08 (bank-to-customer statement): XML.',
  },
);

export const IntradayReportFormatValues = describedValues(
  'IntradayReportFormat',
  "An intraday report's format.",
  {
    bai2: 'BAI2 same-day data (as-of-date modifier 3): text.',
    camt052: 'ISO 20022 camt.052.001.08 (bank-to-customer account report): XML.',
  },
);
