import { nyDateOf } from '../../kernel/calendar.ts';
import { lineCode } from './statements.codes.ts';
import { SANDBANK_ROUTING, type StatementDocument, totalsOf } from './statements.document.ts';

/**
 * A statement as a BAI2 file (BAI Cash Management Balance Reporting Specifications, version 2):
 * file (01/99), one group (02/98) and one account (03/49) with its balances and totals, and one
 * transaction detail (16) per line. Physical records are at most 80 characters; longer logical
 * records continue in 88 records. Amounts are in the currency's minor units, without a decimal
 * point; balances carry a minus sign when negative.
 */
const RECORD_LENGTH = 80;

const yymmdd = (date: string) => date.slice(2).replaceAll('-', '');

function nyTimeOf(instant: Date): string {
  const text = instant.toLocaleTimeString('en-US', {
    timeZone: 'America/New_York',
    hour12: false,
    hour: '2-digit',
    minute: '2-digit',
  });
  return text.replace(':', '').replace(/^24/, '00');
}

/** Fields safe in a BAI2 reference or text: no commas or slashes where they would end the field. */
const reference = (value: string) => value.replace(/[,/]/g, ' ').slice(0, 40);
const text = (value: string) => value.replace(/^\/+/, '').replace(/\s+/g, ' ').trim();

/**
 * One logical record as physical records of at most RECORD_LENGTH characters: fields are never split,
 * a record continued after a field ends in "/" and the next begins "88,"; a text field (the last of
 * a 16 record) may be split anywhere.
 */
function physical(fields: string[], textField: string | null): string[] {
  const records: string[] = [];
  let current = fields[0] as string;
  for (const field of fields.slice(1)) {
    if (current.length + 1 + field.length + 1 > RECORD_LENGTH) {
      records.push(`${current}/`);
      current = `88,${field}`;
    } else current = `${current},${field}`;
  }
  if (textField === null) {
    records.push(`${current}/`);
    return records;
  }
  let rest = textField;
  if (rest === '') {
    records.push(`${current},/`);
    return records;
  }
  current = `${current},`;
  for (;;) {
    const room = RECORD_LENGTH - current.length;
    if (rest.length <= room) {
      records.push(current + rest);
      return records;
    }
    records.push(current + rest.slice(0, room));
    rest = rest.slice(room);
    current = '88,';
  }
}

export function statementBai2(doc: StatementDocument, fileId: number): string {
  const intraday = doc.kind === 'intraday';
  const totals = totalsOf(doc.lines);
  const status: [string, bigint][] = intraday
    ? [
        ['010', doc.opening.ledger],
        ['030', doc.closing.ledger],
        ['040', doc.opening.available],
        ['060', doc.closing.available],
      ]
    : [
        ['010', doc.opening.ledger],
        ['015', doc.closing.ledger],
        ['040', doc.opening.available],
        ['045', doc.closing.available],
      ];
  const accountFields = [
    '03',
    doc.account,
    doc.currency,
    ...status.flatMap(([code, amount]) => [code, amount.toString(), '', '']),
    '100',
    totals.credits.toString(),
    String(totals.creditCount),
    '',
    '400',
    totals.debits.toString(),
    String(totals.debitCount),
  ];
  // An 03 record ends with its last type code's funds type field, left empty: ",/".
  const account = physical([...accountFields, ''], null);
  const details = doc.lines.flatMap((line) => {
    const codes = lineCode(line);
    const who = line.counterparty ?? line.description;
    return physical(
      [
        '16',
        codes.bai,
        (line.amount < 0n ? -line.amount : line.amount).toString(),
        line.immediate ? '0' : 'Z',
        reference(line.postingId),
        reference(line.sourceId),
      ],
      text(`${codes.label}${who ? `: ${who}` : ''}${line.reference ? ` ref ${line.reference}` : ''}`),
    );
  });
  const accountTotal =
    status.reduce((sum, [, amount]) => sum + amount, 0n) +
    totals.credits +
    totals.debits +
    doc.lines.reduce((sum, line) => sum + (line.amount < 0n ? -line.amount : line.amount), 0n);
  const accountRecords = account.length + details.length + 1;
  const created = doc.createdAt;
  const asOfTime = intraday ? nyTimeOf(doc.periodEnd) : '2400';
  const lines = [
    `01,${SANDBANK_ROUTING},${doc.merchantId},${yymmdd(nyDateOf(created))},${nyTimeOf(created)},${fileId},,,2/`,
    `02,${doc.merchantId},${SANDBANK_ROUTING},1,${yymmdd(doc.date)},${asOfTime},${doc.currency},${intraday ? 3 : 2}/`,
    ...account,
    ...details,
    `49,${accountTotal},${accountRecords}/`,
    `98,${accountTotal},1,${accountRecords + 2}/`,
    `99,${accountTotal},1,${accountRecords + 4}/`,
  ];
  return `${lines.join('\n')}\n`;
}
