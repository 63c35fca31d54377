import type { CurrencyCode } from '../../kernel/currency.ts';
import { defineObject, field } from '../../kernel/declare.ts';
import type { Wire } from '../../kernel/wire-resources.ts';
import { merchantAccountNumber } from './statements.document.ts';
import type { StatementRow } from './statements.table.ts';

export type { StatementRow } from './statements.table.ts';

/** The formats a closed day's statement is written in, and the intraday report's. */
export const STATEMENT_FORMATS = ['bai2', 'camt053'] as const;
export const INTRADAY_FORMATS = ['bai2', 'camt052'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];
export type IntradayFormat = (typeof INTRADAY_FORMATS)[number];

const balance = (description: string, get: (row: StatementRow) => bigint) =>
  field.money<StatementRow>(description, (row) => ({
    amount: get(row),
    currency: row.currency as CurrencyCode,
  }));

/** Where a statement's file is downloaded. */
export const statementFileUrl = (publicUrl: string, id: string, format: StatementFormat) =>
  `${publicUrl}/v1/statements/${id}/file?format=${format}`;

export const Statement = defineObject<StatementRow>()(
  'Statement',
  'statement',
  "A prior-day statement of the merchant's account in one currency for one banking day, as a bank sends it: opening and closing balances equal to the ledger's at the period's ends, and one line per posting that moved the ledger balance. Its files: BAI2 and ISO 20022 camt.053.",
  {
    currency: field.currency(),
    date: field.text('The banking day it reports (YYYY-MM-DD, New York).'),
    period_start: field.timestamp(
      'Where its period starts: midnight (New York) after the previous banking day, so weekends and holidays land on the next banking day.',
    ),
    period_end: field.timestamp('Its cut-off: midnight (New York) ending the banking day.'),
    account_number: field.text(
      "The merchant's account number at the simulated bank (routing 110000013), one per currency.",
      (row: StatementRow) => merchantAccountNumber(row.merchantId, row.currency as CurrencyCode),
    ),
    opening_ledger_balance: balance(
      'Everything booked before the period (available + pending + reserved).',
      (r) => r.openingLedger,
    ),
    closing_ledger_balance: balance(
      'Everything booked at the cut-off: the ledger balance then.',
      (r) => r.closingLedger,
    ),
    opening_available_balance: balance('What could be spent at the period start.', (r) => r.openingAvailable),
    closing_available_balance: balance('What could be spent at the cut-off.', (r) => r.closingAvailable),
    total_credits: balance('The sum of the credit lines.', (r) => r.creditsTotal),
    credit_count: field.int('How many credit lines.'),
    total_debits: balance('The sum of the debit lines (a positive amount).', (r) => r.debitsTotal),
    debit_count: field.int('How many debit lines.'),
    bai2_url: field.url<StatementRow>('Its BAI2 file.', (row, rc) =>
      statementFileUrl(rc.publicUrl, row.id, 'bai2'),
    ),
    camt053_url: field.url<StatementRow>('Its ISO 20022 camt.053 file.', (row, rc) =>
      statementFileUrl(rc.publicUrl, row.id, 'camt053'),
    ),
    created_at: field.createdAt(),
  },
);

export const StatementWire = Statement.wire;

/** The API representation of a statement: REST bodies and event payloads. */
export function statementResource(row: StatementRow, publicUrl: string): Wire<typeof StatementWire> {
  return Statement.render(row, { publicUrl });
}
