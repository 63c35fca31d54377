/**
 * A NACHA file reader written from the Nacha Operating Rules' record layouts, for the tests: it
 * reads every record by position and checks what a receiving bank checks — 94-character records,
 * blocks of ten, batch and file controls (entry and addenda counts, entry hash, debit and credit
 * totals, batch count, block count), the addenda indicator. It shares nothing with the writer.
 */
export interface NachaEntryRead {
  transactionCode: string;
  routing: string;
  account: string;
  amount: number;
  individualId: string;
  name: string;
  trace: string;
  addenda: { type: string; text: string } | null;
}

export interface NachaBatchRead {
  serviceClass: string;
  companyName: string;
  sec: string;
  description: string;
  effectiveDate: string;
  odfi: string;
  entries: NachaEntryRead[];
}

export interface NachaRead {
  destination: string;
  origin: string;
  batches: NachaBatchRead[];
  totalDebit: number;
  totalCredit: number;
}

const field = (line: string, from: number, to: number) => line.slice(from - 1, to);
const num = (line: string, from: number, to: number) => {
  const text = field(line, from, to);
  if (!/^\d+$/.test(text)) throw new Error(`not numeric at ${from}-${to}: "${text}" in ${line}`);
  return Number(text);
};
const isDebit = (code: string) => Number(code[1]) >= 5;

export function readNacha(text: string): NachaRead {
  const lines = text.split('\n').filter((line) => line.length > 0);
  for (const line of lines) if (line.length !== 94) throw new Error(`a record of ${line.length} characters`);
  if (lines.length % 10 !== 0) throw new Error(`${lines.length} records: not whole blocks of ten`);
  const header = lines[0] as string;
  if (field(header, 1, 3) !== '101' || field(header, 35, 40) !== '094101')
    throw new Error(`not a file header: ${header}`);
  const file: NachaRead = {
    destination: field(header, 4, 13).trim(),
    origin: field(header, 14, 23).trim(),
    batches: [],
    totalDebit: 0,
    totalCredit: 0,
  };
  let i = 1;
  let fileEntries = 0;
  let fileHash = 0;
  while (lines[i]?.startsWith('5')) {
    const h = lines[i++] as string;
    const batch: NachaBatchRead = {
      serviceClass: field(h, 2, 4),
      companyName: field(h, 5, 20).trim(),
      sec: field(h, 51, 53),
      description: field(h, 54, 63).trim(),
      effectiveDate: field(h, 70, 75),
      odfi: field(h, 80, 87),
      entries: [],
    };
    let count = 0;
    let hash = 0;
    let debit = 0;
    let credit = 0;
    while (lines[i]?.startsWith('6')) {
      const e = lines[i++] as string;
      const entry: NachaEntryRead = {
        transactionCode: field(e, 2, 3),
        routing: field(e, 4, 12),
        account: field(e, 13, 29).trim(),
        amount: num(e, 30, 39),
        individualId: field(e, 40, 54).trim(),
        name: field(e, 55, 76).trim(),
        trace: field(e, 80, 94),
        addenda: null,
      };
      count += 1;
      hash += num(e, 4, 11);
      if (isDebit(entry.transactionCode)) debit += entry.amount;
      else credit += entry.amount;
      const indicator = field(e, 79, 79);
      if (indicator === '1') {
        const a = lines[i++] as string;
        if (!a?.startsWith('7')) throw new Error('the addenda indicator says 1 and no addenda follows');
        count += 1;
        entry.addenda = { type: field(a, 2, 3), text: field(a, 4, 94) };
        const expected = entry.addenda.type === '05' ? field(a, 88, 94) : field(a, 80, 94);
        const wanted = entry.addenda.type === '05' ? entry.trace.slice(-7) : entry.trace;
        if (expected !== wanted) throw new Error(`addenda sequence ${expected} is not the entry's ${wanted}`);
      } else if (indicator !== '0') throw new Error(`addenda indicator ${indicator}`);
      batch.entries.push(entry);
    }
    const c = lines[i++] as string;
    if (!c?.startsWith('8')) throw new Error('a batch without its control record');
    if (field(c, 2, 4) !== batch.serviceClass) throw new Error('batch control service class');
    if (num(c, 5, 10) !== count) throw new Error(`batch entry count ${field(c, 5, 10)} is not ${count}`);
    if (num(c, 11, 20) !== hash % 1e10)
      throw new Error(`batch entry hash ${field(c, 11, 20)} is not ${hash}`);
    if (num(c, 21, 32) !== debit || num(c, 33, 44) !== credit) throw new Error('batch totals');
    if (field(c, 80, 94) !== field(h, 80, 94)) throw new Error('batch control ODFI and number');
    const service =
      debit > 0 && credit > 0 ? '200' : debit > 0 ? '225' : credit > 0 ? '220' : batch.serviceClass;
    if (batch.entries.some((e) => e.amount > 0) && service !== batch.serviceClass)
      throw new Error(`service class ${batch.serviceClass} does not fit its entries`);
    fileEntries += count;
    fileHash += hash;
    file.totalDebit += debit;
    file.totalCredit += credit;
    file.batches.push(batch);
  }
  const fc = lines[i++] as string;
  if (!fc?.startsWith('9') || fc === '9'.repeat(94)) throw new Error('no file control record');
  if (num(fc, 2, 7) !== file.batches.length) throw new Error('file batch count');
  if (num(fc, 8, 13) !== lines.length / 10) throw new Error(`block count ${field(fc, 8, 13)}`);
  if (num(fc, 14, 21) !== fileEntries) throw new Error('file entry and addenda count');
  if (num(fc, 22, 31) !== fileHash % 1e10) throw new Error('file entry hash');
  if (num(fc, 32, 43) !== file.totalDebit || num(fc, 44, 55) !== file.totalCredit)
    throw new Error('file totals');
  for (const rest of lines.slice(i))
    if (rest !== '9'.repeat(94)) throw new Error(`after the file control: ${rest}`);
  return file;
}
