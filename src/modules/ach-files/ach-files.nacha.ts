/**
 * NACHA files (the ACH file format of the Nacha Operating Rules, Appendix One): 94-character
 * records — file header (1), batch header (5), entry detail (6), addenda (7), batch control (8),
 * file control (9) — in blocks of ten records, the last block filled with records of nines. Pure:
 * the model in, the text out.
 */
const RECORD = 94;

const alpha = (value: string, length: number) =>
  value
    .normalize('NFKD')
    .replace(/[^\x20-\x7E]/g, '')
    .toUpperCase()
    .slice(0, length)
    .padEnd(length, ' ');
const numeric = (value: bigint | number | string, length: number) => {
  const text = String(value);
  if (!/^\d+$/.test(text)) throw new Error(`NACHA: a numeric field holds ${text}`);
  return text.padStart(length, '0').slice(-length);
};

function record(parts: string[]): string {
  const line = parts.join('');
  if (line.length !== RECORD) throw new Error(`NACHA: a record of ${line.length} characters: ${line}`);
  return line;
}

/** An entry's addenda: 05 payment information, 99 a return, 98 a notification of change. */
export type NachaAddenda =
  | { type: '05'; info: string }
  | { type: '99'; reason: string; originalTrace: string; originalRdfi: string; info: string }
  | { type: '98'; change: string; originalTrace: string; originalRdfi: string; corrected: string };

export interface NachaEntry {
  transactionCode: string;
  /** The receiving DFI's 9-digit routing number. */
  routing: string;
  account: string;
  amount: bigint;
  individualId: string;
  name: string;
  /** The trace number (15 digits): the sending bank's 8 digits and a sequence. */
  trace: string;
  addenda?: NachaAddenda;
}

export interface NachaBatch {
  companyName: string;
  companyId: string;
  sec: string;
  description: string;
  /** YYMMDD. */
  effectiveDate: string;
  /** The originating DFI's 8-digit identification (the bank that sent the batch). */
  odfi: string;
  entries: NachaEntry[];
}

export interface NachaFile {
  destination: string;
  destinationName: string;
  origin: string;
  originName: string;
  createdAt: Date;
  idModifier: string;
  batches: NachaBatch[];
}

/** Debits: transaction codes ending in 5-9 (27 checking debit, 37 savings debit, 26/36 their returns). */
export const isDebitCode = (code: string) => Number(code.slice(1)) >= 5;

function nyParts(instant: Date): { date: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      year: '2-digit',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return { date: `${parts.year}${parts.month}${parts.day}`, time: `${parts.hour}${parts.minute}` };
}

/** The entry hash: the sum of the entries' 8-digit RDFI identifications, its last 10 digits. */
export function entryHash(entries: readonly { routing: string }[]): bigint {
  return entries.reduce((sum, entry) => sum + BigInt(entry.routing.slice(0, 8)), 0n) % 10_000_000_000n;
}

interface Totals {
  count: number;
  hash: bigint;
  debit: bigint;
  credit: bigint;
}

function totalsOf(entries: readonly NachaEntry[]): Totals {
  let debit = 0n;
  let credit = 0n;
  for (const entry of entries) {
    if (isDebitCode(entry.transactionCode)) debit += entry.amount;
    else credit += entry.amount;
  }
  return {
    count: entries.reduce((n, entry) => n + 1 + (entry.addenda ? 1 : 0), 0),
    hash: entryHash(entries),
    debit,
    credit,
  };
}

function serviceClass(entries: readonly NachaEntry[]): string {
  const debits = entries.filter((entry) => isDebitCode(entry.transactionCode)).length;
  if (debits === 0) return '220';
  return debits === entries.length ? '225' : '200';
}

function addendaRecord(entry: NachaEntry, addenda: NachaAddenda): string {
  if (addenda.type === '05')
    return record(['7', '05', alpha(addenda.info, 80), '0001', numeric(entry.trace.slice(-7), 7)]);
  if (addenda.type === '99')
    return record([
      '7',
      '99',
      alpha(addenda.reason, 3),
      numeric(addenda.originalTrace, 15),
      alpha('', 6),
      numeric(addenda.originalRdfi, 8),
      alpha(addenda.info, 44),
      numeric(entry.trace, 15),
    ]);
  return record([
    '7',
    '98',
    alpha(addenda.change, 3),
    numeric(addenda.originalTrace, 15),
    alpha('', 6),
    numeric(addenda.originalRdfi, 8),
    alpha(addenda.corrected, 29),
    alpha('', 15),
    numeric(entry.trace, 15),
  ]);
}

function batchRecords(batch: NachaBatch, number: number): string[] {
  const service = serviceClass(batch.entries);
  const totals = totalsOf(batch.entries);
  const lines = [
    record([
      '5',
      service,
      alpha(batch.companyName, 16),
      alpha('', 20),
      alpha(batch.companyId, 10),
      alpha(batch.sec, 3),
      alpha(batch.description, 10),
      alpha('', 6),
      numeric(batch.effectiveDate, 6),
      alpha('', 3),
      '1',
      numeric(batch.odfi, 8),
      numeric(number, 7),
    ]),
  ];
  for (const entry of batch.entries) {
    lines.push(
      record([
        '6',
        numeric(entry.transactionCode, 2),
        numeric(entry.routing, 9),
        alpha(entry.account, 17),
        numeric(entry.amount, 10),
        alpha(entry.individualId, 15),
        alpha(entry.name, 22),
        alpha('', 2),
        entry.addenda ? '1' : '0',
        numeric(entry.trace, 15),
      ]),
    );
    if (entry.addenda) lines.push(addendaRecord(entry, entry.addenda));
  }
  lines.push(
    record([
      '8',
      service,
      numeric(totals.count, 6),
      numeric(totals.hash, 10),
      numeric(totals.debit, 12),
      numeric(totals.credit, 12),
      alpha(batch.companyId, 10),
      alpha('', 19),
      alpha('', 6),
      numeric(batch.odfi, 8),
      numeric(number, 7),
    ]),
  );
  return lines;
}

/** The file as text: records joined by line breaks, padded to whole blocks of ten with nines. */
export function nachaText(file: NachaFile): string {
  const created = nyParts(file.createdAt);
  const lines = [
    record([
      '1',
      '01',
      ` ${numeric(file.destination, 9)}`,
      ` ${numeric(file.origin, 9)}`,
      created.date,
      created.time,
      alpha(file.idModifier, 1),
      '094',
      '10',
      '1',
      alpha(file.destinationName, 23),
      alpha(file.originName, 23),
      alpha('', 8),
    ]),
  ];
  file.batches.forEach((batch, i) => {
    lines.push(...batchRecords(batch, i + 1));
  });
  const all = file.batches.flatMap((batch) => batch.entries);
  const totals = totalsOf(all);
  const blocks = Math.ceil((lines.length + 1) / 10);
  lines.push(
    record([
      '9',
      numeric(file.batches.length, 6),
      numeric(blocks, 6),
      numeric(totals.count, 8),
      numeric(totals.hash, 10),
      numeric(totals.debit, 12),
      numeric(totals.credit, 12),
      alpha('', 39),
    ]),
  );
  while (lines.length % 10 !== 0) lines.push('9'.repeat(RECORD));
  return `${lines.join('\n')}\n`;
}

/** The file's control totals, as its file control record states them. */
export function nachaTotals(file: NachaFile) {
  const totals = totalsOf(file.batches.flatMap((batch) => batch.entries));
  return {
    batchCount: file.batches.length,
    entryAndAddendaCount: totals.count,
    entryHash: totals.hash.toString().padStart(10, '0'),
    totalDebit: totals.debit,
    totalCredit: totals.credit,
  };
}
