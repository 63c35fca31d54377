import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import type { MerchantRef } from '../context.ts';
import { SANDBANK_ROUTING } from '../statements/statements.document.ts';
import { statementDayOf } from '../statements/statements.period.ts';
import {
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
  transactionCode,
  yymmdd,
} from './ach-files.entries.ts';
import type { NachaFile } from './ach-files.nacha.ts';

/**
 * The returns file of a banking day: the returns of the merchant's entries (addenda 99, the return
 * reason and the original entry's trace number) and the notifications of change (COR batches,
 * addenda 98, the change code and the corrected data) the ACH operator sent Sandbank that day.
 */
/**
 * The corrected data field of a NOC (29 characters), laid out as the Nacha rules lay it out for its
 * change code: C01 the account (1-17); C02 the routing number (1-9); C03 the routing number (1-9) and
 * the account (13-29); C04 the name (1-22); C05 the transaction code (1-2); C06 the account (1-17)
 * and the transaction code (21-22); C07 the routing number (1-9), the account (10-26) and the
 * transaction code (27-28); C09 the individual identification (1-22); C13 the addenda information.
 */
function correctedField(code: string, data: Record<string, string>, direction: string): string {
  const at = (value: string | undefined, width: number) => (value ?? '').slice(0, width).padEnd(width, ' ');
  const { routing_number: routing, account_number: account } = data;
  // A corrected account type is the transaction code of the entry's direction on that type.
  const tc =
    data.transaction_code ?? (data.account_type ? transactionCode(direction, data.account_type) : undefined);
  switch (code) {
    case 'C01':
      return at(account, 17);
    case 'C02':
      return at(routing, 9);
    case 'C03':
      return `${at(routing, 9)}   ${at(account, 17)}`;
    case 'C04':
      return at(data.name, 22);
    case 'C05':
      return at(tc, 2);
    case 'C06':
      return `${at(account, 17)}   ${at(tc, 2)}`;
    case 'C07':
      return `${at(routing, 9)}${at(account, 17)}${at(tc, 2)}`;
    case 'C09':
      return at(data.individual_id, 22);
    default:
      return at(data.addenda_information, 29);
  }
}

const returnCode = (code: string) => `${code[0]}${isDebit(code) ? '6' : '1'}`;
const isDebit = (code: string) => Number(code.slice(1)) >= 5;

export async function returnsFile(exec: Executor, merchant: MerchantRef, day: string): Promise<NachaFile> {
  const rows = await sentRows(exec, merchant.id, sql`true`);
  const returned = rows.filter((row) => row.returned_at && statementDayOf(new Date(row.returned_at)) === day);
  const nocs = rows.flatMap((row) =>
    row.notifications_of_change
      .filter((noc) => statementDayOf(new Date(noc.received_at)) === day)
      .map((noc) => ({ row, noc })),
  );
  let seq = 0;
  const returnBatches = batches(
    returned,
    (row) => `${row.sec_code ?? 'CCD'}|${row.routing_number.slice(0, 8)}`,
    (group) => ({
      ...company(merchant),
      sec: group[0]?.sec_code ?? 'CCD',
      description: describe(group[0] as SentRow),
      effectiveDate: yymmdd(day),
      odfi: (group[0] as SentRow).routing_number.slice(0, 8),
      entries: group.map((row) => {
        seq += 1;
        return {
          ...sentEntry(row),
          // A return goes back to the bank that sent the entry; the addenda names the original RDFI.
          routing: SANDBANK_ROUTING,
          transactionCode: returnCode(transactionCode(row.direction, row.account_type)),
          trace: trace(row.routing_number, seq),
          addenda: {
            type: '99' as const,
            reason: row.return_code ?? 'R99',
            originalTrace: trace(odfi, row.seq),
            originalRdfi: row.routing_number.slice(0, 8),
            info: row.return_reason ?? '',
          },
        };
      }),
    }),
  );
  const nocBatches = batches(
    nocs,
    ({ row }) => row.routing_number.slice(0, 8),
    (group) => ({
      ...company(merchant),
      sec: 'COR',
      description: describe((group[0] as (typeof nocs)[number]).row),
      effectiveDate: yymmdd(day),
      odfi: (group[0] as (typeof nocs)[number]).row.routing_number.slice(0, 8),
      entries: group.map(({ row, noc }) => {
        seq += 1;
        return {
          ...sentEntry(row),
          routing: SANDBANK_ROUTING,
          amount: 0n,
          transactionCode: returnCode(transactionCode(row.direction, row.account_type)),
          trace: trace(row.routing_number, seq),
          addenda: {
            type: '98' as const,
            change: noc.code,
            originalTrace: trace(odfi, row.seq),
            originalRdfi: row.routing_number.slice(0, 8),
            corrected: correctedField(noc.code, noc.corrected_data, row.direction),
          },
        };
      }),
    }),
  );
  return {
    destination: SANDBANK_ROUTING,
    destinationName: 'SANDBANK',
    origin: FED_ROUTING,
    originName: FED_NAME,
    createdAt: new Date(`${day}T12:00:00Z`),
    idModifier: 'R',
    batches: [...returnBatches, ...nocBatches],
  };
}
