import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../db/client.ts';
import type { MerchantRef } from '../context.ts';
import { merchantAccountNumber, SANDBANK_ROUTING } from '../statements/statements.document.ts';
import type { NachaBatch, NachaEntry } from './ach-files.nacha.ts';

/** What the ACH files are built from: the merchant's ACH entries that went out, and the batches they form. */
export const FED_ROUTING = '011000015';
export const FED_NAME = 'FEDERAL RESERVE BANK';
export const ACH_RAILS = sql`('ach', 'same_day_ach')`;
export const odfi = SANDBANK_ROUTING.slice(0, 8);

export const yymmdd = (date: string) => date.slice(2).replaceAll('-', '');

export interface SentRow {
  id: string;
  kind: string;
  direction: string;
  amount: string;
  routing_number: string;
  account_last4: string;
  account_type: string;
  sec_code: string | null;
  counterparty_name: string;
  account_number: string | null;
  collection_id: string | null;
  reference: string | null;
  description: string | null;
  submitted_at: string | Date;
  expected_settlement_at: string | Date | null;
  return_code: string | null;
  return_reason: string | null;
  returned_at: string | Date | null;
  notifications_of_change: { code: string; corrected_data: Record<string, string>; received_at: string }[];
  /** Its place among the day's entries sent (1-based): the trace number's sequence. */
  seq: string;
}

/** The merchant's ACH entries that went out, each with its place in its window's file. */
export const sentRows = (exec: Executor, merchantId: string, where: ReturnType<typeof sql>) =>
  queryRows<SentRow>(
    exec,
    sql`SELECT * FROM (
      SELECT t.id, t.kind, t.direction, t.amount::text, t.routing_number, t.account_last4, t.account_type,
        t.sec_code, t.counterparty_name, c.account_number, t.collection_id, t.reference, t.description,
        t.submitted_at, t.expected_settlement_at, t.return_code, t.return_reason, t.returned_at,
        t.notifications_of_change,
        -- Trace numbers run through the banking day's windows, so no two entries of a day share one.
        (row_number() OVER (
          PARTITION BY (t.submitted_at AT TIME ZONE 'America/New_York')::date ORDER BY t.submitted_at, t.id
        ))::text AS seq
      FROM transfers t LEFT JOIN counterparties c ON c.id = t.counterparty_id AND c.merchant_id = t.merchant_id
      WHERE t.merchant_id = ${merchantId} AND t.rail IN ${ACH_RAILS} AND t.submitted_at IS NOT NULL
    ) s WHERE ${where} ORDER BY s.submitted_at, s.id`,
  );

/** The account field: the full number when a saved counterparty holds it, else its last 4 digits. */
export const accountOf = (row: { account_number: string | null; account_last4: string }) =>
  row.account_number ?? `XXXXXXXX${row.account_last4}`;

export const transactionCode = (direction: string, accountType: string) =>
  `${accountType === 'savings' ? '3' : '2'}${direction === 'debit' ? '7' : '2'}`;

export const describe = (row: SentRow) =>
  row.kind === 'payout' ? 'PAYOUT' : row.collection_id ? 'COLLECTION' : 'PAYMENT';

export const trace = (bank: string, seq: number | string) =>
  `${bank.slice(0, 8)}${String(seq).padStart(7, '0')}`;

export function company(merchant: MerchantRef) {
  return { companyName: merchant.name, companyId: `1${merchantAccountNumber(merchant.id, 'USD').slice(-9)}` };
}

/** Entries grouped into batches by a key, in first-seen order. */
export function batches<R>(
  rows: R[],
  keyOf: (row: R) => string,
  make: (rows: R[]) => NachaBatch,
): NachaBatch[] {
  const groups = new Map<string, R[]>();
  for (const row of rows) groups.set(keyOf(row), [...(groups.get(keyOf(row)) ?? []), row]);
  return [...groups.values()].map(make);
}

export function sentEntry(row: SentRow): NachaEntry {
  return {
    transactionCode: transactionCode(row.direction, row.account_type),
    routing: row.routing_number,
    account: accountOf(row),
    amount: BigInt(row.amount),
    individualId: (row.reference ?? row.id).slice(-15),
    name: row.counterparty_name,
    trace: trace(odfi, row.seq),
    ...(row.description ? { addenda: { type: '05' as const, info: row.description } } : {}),
  };
}
