/**
 * A BAI2 reader written from the published specification (BAI Cash Management Balance Reporting
 * Specifications, version 2), for the tests: it joins continuation (88) records to the record they
 * continue, reads each record's fields, and checks every trailer's record count and control total
 * itself. It shares nothing with the code that writes the files.
 */
export interface Bai2Account {
  number: string;
  currency: string;
  /** Type code → amount (minor units, signed) and item count of the 03 record. */
  amounts: Map<string, { amount: bigint; count: number | null }>;
  details: {
    code: string;
    amount: bigint;
    fundsType: string;
    bankRef: string;
    customerRef: string;
    text: string;
  }[];
}

export interface Bai2File {
  sender: string;
  receiver: string;
  groups: {
    originator: string;
    asOfDate: string;
    asOfTime: string;
    currency: string;
    modifier: string;
    accounts: Bai2Account[];
  }[];
}

interface Logical {
  code: string;
  fields: string[];
  /** Physical records it spans. */
  physical: number;
}

/** Physical lines → logical records: an 88 continues the record before it. */
function logicalRecords(text: string): Logical[] {
  const lines = text.split(/\r?\n/).filter((line) => line.length > 0);
  const records: { raw: string; physical: number }[] = [];
  for (const line of lines) {
    if (line.length > 80) throw new Error(`a physical record is longer than 80 characters: ${line}`);
    if (line.startsWith('88,')) {
      const last = records.at(-1);
      if (!last) throw new Error('a file cannot start with an 88 record');
      // The continued record ended with "/" after a field, or inside its text field.
      const body = line.slice(3);
      last.raw = last.raw.endsWith('/') ? `${last.raw.slice(0, -1)},${body}` : last.raw + body;
      last.physical += 1;
    } else records.push({ raw: line, physical: 1 });
  }
  return records.map(({ raw, physical }) => {
    const code = raw.slice(0, 2);
    if (code === '16') {
      // 16,type,amount,funds type (Z/0/1/2 take no extra fields),bank ref,customer ref,text…
      const parts = raw.split(',');
      const fixed = parts.slice(0, 6);
      const rest = parts.slice(6).join(',');
      return { code, fields: [...fixed, rest === '/' ? '' : rest], physical };
    }
    if (!raw.endsWith('/')) throw new Error(`record ${code} does not end with "/": ${raw}`);
    return { code, fields: raw.slice(0, -1).split(','), physical };
  });
}

const signed = (value: string) => {
  if (!/^[+-]?\d+$/.test(value)) throw new Error(`not an amount: ${value}`);
  return BigInt(value);
};

export function parseBai2(text: string): Bai2File {
  const records = logicalRecords(text);
  let i = 0;
  const next = (code: string): Logical => {
    const record = records[i++];
    if (!record || record.code !== code) throw new Error(`expected a ${code} record, found ${record?.code}`);
    return record;
  };
  const header = next('01');
  if (header.fields[8] !== '2') throw new Error(`version ${header.fields[8]} is not 2`);
  const file: Bai2File = { sender: header.fields[1] ?? '', receiver: header.fields[2] ?? '', groups: [] };
  let fileRecords = header.physical;
  let fileTotal = 0n;
  while (records[i]?.code === '02') {
    const g = next('02');
    let groupRecords = g.physical;
    let groupTotal = 0n;
    const accounts: Bai2Account[] = [];
    while (records[i]?.code === '03') {
      const a = next('03');
      let accountRecords = a.physical;
      let accountTotal = 0n;
      const account: Bai2Account = {
        number: a.fields[1] ?? '',
        currency: a.fields[2] || g.fields[6] || 'USD',
        amounts: new Map(),
        details: [],
      };
      const groups = a.fields.slice(3);
      for (let k = 0; k + 1 < groups.length; k += 4) {
        const code = groups[k] as string;
        const amount = signed(groups[k + 1] as string);
        const count = groups[k + 2] ? Number(groups[k + 2]) : null;
        if (Number(code) < 100 && (count !== null || groups[k + 3]))
          throw new Error(`status ${code} has a count or funds type`);
        if (Number(code) >= 100 && amount < 0n) throw new Error(`summary ${code} is negative`);
        account.amounts.set(code, { amount, count });
        accountTotal += amount;
      }
      while (records[i]?.code === '16') {
        const d = next('16');
        accountRecords += d.physical;
        const amount = signed(d.fields[2] as string);
        if (amount < 0n) throw new Error('a detail amount is negative');
        accountTotal += amount;
        account.details.push({
          code: d.fields[1] as string,
          amount,
          fundsType: d.fields[3] as string,
          bankRef: d.fields[4] as string,
          customerRef: d.fields[5] as string,
          text: d.fields[6] as string,
        });
      }
      const trailer = next('49');
      accountRecords += trailer.physical;
      if (signed(trailer.fields[1] as string) !== accountTotal)
        throw new Error(`account control total ${trailer.fields[1]} is not ${accountTotal}`);
      if (Number(trailer.fields[2]) !== accountRecords)
        throw new Error(`account record count ${trailer.fields[2]} is not ${accountRecords}`);
      groupRecords += accountRecords;
      groupTotal += accountTotal;
      accounts.push(account);
    }
    const gt = next('98');
    groupRecords += gt.physical;
    if (signed(gt.fields[1] as string) !== groupTotal) throw new Error('group control total');
    if (Number(gt.fields[2]) !== accounts.length) throw new Error('group account count');
    if (Number(gt.fields[3]) !== groupRecords)
      throw new Error(`group record count ${gt.fields[3]} is not ${groupRecords}`);
    fileRecords += groupRecords;
    fileTotal += groupTotal;
    file.groups.push({
      originator: g.fields[2] ?? '',
      asOfDate: g.fields[4] ?? '',
      asOfTime: g.fields[5] ?? '',
      currency: g.fields[6] || 'USD',
      modifier: g.fields[7] ?? '',
      accounts,
    });
  }
  const ft = next('99');
  fileRecords += ft.physical;
  if (signed(ft.fields[1] as string) !== fileTotal) throw new Error('file control total');
  if (Number(ft.fields[2]) !== file.groups.length) throw new Error('file group count');
  if (Number(ft.fields[3]) !== fileRecords)
    throw new Error(`file record count ${ft.fields[3]} is not ${fileRecords}`);
  if (i !== records.length) throw new Error('records after the file trailer');
  return file;
}
