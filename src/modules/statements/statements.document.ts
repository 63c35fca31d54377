import { createHash } from 'node:crypto';
import type { CurrencyCode } from '../../kernel/currency.ts';
import type { LedgerBalances, StatementLine } from './statements.ledger.ts';

/** The routing number of Sandbank's simulated bank: the sender of its files, the servicer of accounts. */
export const SANDBANK_ROUTING = '110000013';
export const SANDBANK_NAME = 'Sandbank';

/**
 * The number of a merchant's account in one currency at the simulated bank: 12 digits, the same
 * every time (a hash of the merchant and the currency), so files of different days name one account.
 */
export function merchantAccountNumber(merchantId: string, currency: CurrencyCode): string {
  const digest = createHash('sha256').update(`${merchantId}:${currency}`).digest();
  return `9${(digest.readBigUInt64BE(0) % 100_000_000_000n).toString().padStart(11, '0')}`;
}

/** What a statement file reports, whichever format writes it. */
export interface StatementDocument {
  /** prior_day: a closed banking day; intraday: the day so far. */
  kind: 'prior_day' | 'intraday';
  /** The statement's id (stmt_…), or the intraday report's. */
  id: string;
  merchantId: string;
  currency: CurrencyCode;
  /** The banking day reported. */
  date: string;
  periodStart: Date;
  /** The cut-off (prior day) or the moment of the report (intraday). */
  periodEnd: Date;
  /** When the file was written (the merchant's clock). */
  createdAt: Date;
  account: string;
  opening: LedgerBalances;
  closing: LedgerBalances;
  lines: StatementLine[];
}

export interface Totals {
  credits: bigint;
  creditCount: number;
  debits: bigint;
  debitCount: number;
}

export function totalsOf(lines: readonly StatementLine[]): Totals {
  const totals: Totals = { credits: 0n, creditCount: 0, debits: 0n, debitCount: 0 };
  for (const line of lines) {
    if (line.amount > 0n) {
      totals.credits += line.amount;
      totals.creditCount += 1;
    } else {
      totals.debits -= line.amount;
      totals.debitCount += 1;
    }
  }
  return totals;
}
