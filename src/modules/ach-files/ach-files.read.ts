import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../db/client.ts';
import { nyDateOf } from '../../kernel/calendar.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { MerchantRef } from '../context.ts';
import { merchantAccountNumber, SANDBANK_ROUTING } from '../statements/statements.document.ts';
import { statementDayOf } from '../statements/statements.period.ts';
import {
  ACH_RAILS,
  batches,
  company,
  describe,
  FED_NAME,
  FED_ROUTING,
  odfi,
  type SentRow,
  sentEntry,
  sentRows,
  trace,
  yymmdd,
} from './ach-files.entries.ts';
import type { NachaFile } from './ach-files.nacha.ts';
import { returnsFile } from './ach-files.returns.ts';

/**
 * The merchant's ACH files, read from its entries (nothing is stored): the file Sandbank sends the
 * ACH operator in each submission window the merchant's entries went out in (`sent`), the file of
 * returns and notifications of change the operator sends back on a banking day (`returns`), and the
 * file of entries other originators sent the merchant on a banking day (`received`).
 */
export type AchFileKind = 'sent' | 'returns' | 'received';

/** `2026-11-30T15:30:00.000Z` → `20261130T153000000Z` (milliseconds kept); `2026-12-01` → `20261201`. */
const compact = (value: string) => value.replaceAll('-', '').replaceAll(':', '').replace('.', '');

export function achFileId(kind: AchFileKind, key: string): string {
  return `achf_${kind}_${compact(key)}`;
}

/** An id back to its kind and key (the window's instant, or the banking day); 404 for any other id. */
export function parseAchFileId(id: string): { kind: AchFileKind; key: string } {
  const notFound = () =>
    new SandbankError('resource_not_found', { message: `No ACH file ${id.slice(0, 60)}.` });
  const match =
    /^achf_(sent|returns|received)_(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(\d{3})Z)?$/.exec(id);
  if (!match || (match[1] === 'sent') !== (match[5] !== undefined)) throw notFound();
  const [, kind, y, mo, d, h, mi, sec, ms] = match as unknown as [string, AchFileKind, ...string[]];
  const date = `${y}-${mo}-${d}`;
  const key = h === undefined ? date : `${date}T${h}:${mi}:${sec}.${ms}Z`;
  // A date or time that does not exist (month 13, hour 24) names no file.
  const instant = new Date(h === undefined ? `${date}T12:00:00Z` : key);
  if (Number.isNaN(instant.getTime()) || !instant.toISOString().startsWith(date)) throw notFound();
  if (h !== undefined && instant.toISOString() !== key) throw notFound();
  return { kind, key };
}

async function sentFile(exec: Executor, merchant: MerchantRef, window: string): Promise<NachaFile> {
  const rows = await sentRows(
    exec,
    merchant.id,
    sql`s.submitted_at = ${new Date(window).toISOString()}::timestamptz`,
  );
  return {
    destination: FED_ROUTING,
    destinationName: FED_NAME,
    origin: SANDBANK_ROUTING,
    originName: 'SANDBANK',
    createdAt: new Date(window),
    idModifier: 'A',
    batches: batches(
      rows,
      (row) => `${row.sec_code ?? 'CCD'}|${describe(row)}|${row.expected_settlement_at}`,
      (group) => ({
        ...company(merchant),
        sec: group[0]?.sec_code ?? 'CCD',
        description: describe(group[0] as SentRow),
        effectiveDate: yymmdd(nyDateOf(new Date(group[0]?.expected_settlement_at ?? window))),
        odfi,
        entries: group.map(sentEntry),
      }),
    ),
  };
}

interface ReceivedRow {
  id: string;
  direction: string;
  amount: string;
  originator_name: string;
  originator_routing_number: string;
  sec_code: string | null;
  description: string | null;
  reference: string | null;
  created_at: string | Date;
}

async function receivedFile(exec: Executor, merchant: MerchantRef, day: string): Promise<NachaFile> {
  const rows = (
    await queryRows<ReceivedRow>(
      exec,
      sql`SELECT id, direction, amount::text, originator_name, originator_routing_number, sec_code, description,
        reference, created_at
      FROM inbound_transfers WHERE merchant_id = ${merchant.id} AND rail IN ${ACH_RAILS} ORDER BY created_at, id`,
    )
  ).filter((row) => statementDayOf(new Date(row.created_at)) === day);
  let seq = 0;
  return {
    destination: SANDBANK_ROUTING,
    destinationName: 'SANDBANK',
    origin: FED_ROUTING,
    originName: FED_NAME,
    createdAt: new Date(`${day}T12:00:00Z`),
    idModifier: 'I',
    batches: batches(
      rows,
      (row) => `${row.originator_name}|${row.originator_routing_number}|${row.sec_code ?? 'CCD'}`,
      (group) => {
        const first = group[0] as ReceivedRow;
        return {
          companyName: first.originator_name,
          companyId: `1${first.originator_routing_number}`,
          sec: first.sec_code ?? 'CCD',
          description: first.direction === 'debit' ? 'DEBIT' : 'CREDIT',
          effectiveDate: yymmdd(day),
          odfi: first.originator_routing_number.slice(0, 8),
          entries: group.map((row) => {
            seq += 1;
            return {
              transactionCode: row.direction === 'debit' ? '27' : '22',
              routing: SANDBANK_ROUTING,
              account: merchantAccountNumber(merchant.id, 'USD'),
              amount: BigInt(row.amount),
              individualId: (row.reference ?? row.id).slice(-15),
              name: merchant.name,
              trace: trace(row.originator_routing_number, seq),
              ...(row.description ? { addenda: { type: '05' as const, info: row.description } } : {}),
            };
          }),
        };
      },
    ),
  };
}

/** One of the merchant's ACH files, by its id; 404 for a window or day it has no entries in. */
export async function readAchFile(exec: Executor, merchant: MerchantRef, id: string): Promise<NachaFile> {
  const { kind, key } = parseAchFileId(id);
  const file =
    kind === 'sent'
      ? await sentFile(exec, merchant, key)
      : kind === 'returns'
        ? await returnsFile(exec, merchant, key)
        : await receivedFile(exec, merchant, key);
  if (file.batches.length === 0)
    throw new SandbankError('resource_not_found', { message: `No ACH file ${id.slice(0, 60)}.` });
  return file;
}

/** The ids of the merchant's ACH files, newest first. */
export async function achFileIds(exec: Executor, merchantId: string): Promise<string[]> {
  const rows = await queryRows<{ kind: AchFileKind; at: string | Date }>(
    exec,
    sql`SELECT DISTINCT 'sent' AS kind, submitted_at AS at FROM transfers
        WHERE merchant_id = ${merchantId} AND rail IN ${ACH_RAILS} AND submitted_at IS NOT NULL
      UNION SELECT DISTINCT 'returns', returned_at FROM transfers
        WHERE merchant_id = ${merchantId} AND rail IN ${ACH_RAILS} AND submitted_at IS NOT NULL AND returned_at IS NOT NULL
      UNION SELECT DISTINCT 'returns', (n->>'received_at')::timestamptz FROM transfers, jsonb_array_elements(notifications_of_change) n
        WHERE merchant_id = ${merchantId} AND rail IN ${ACH_RAILS} AND submitted_at IS NOT NULL
      UNION SELECT DISTINCT 'received', created_at FROM inbound_transfers
        WHERE merchant_id = ${merchantId} AND rail IN ${ACH_RAILS}`,
  );
  const ids = new Map<string, number>();
  for (const row of rows) {
    const at = new Date(row.at);
    const id = achFileId(row.kind, row.kind === 'sent' ? at.toISOString() : statementDayOf(at));
    ids.set(id, Math.max(ids.get(id) ?? 0, at.getTime()));
  }
  return [...ids].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1)).map(([id]) => id);
}
