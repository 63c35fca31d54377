/**
 * The bank files Sandbank writes, read by parts nobody here wrote: statements' camt.053 and the
 * intraday camt.052 validated against the published ISO 20022 schemas (xmllint) and read back with
 * an independent XML parser, their balances and entries agreeing with the statement objects; the
 * ACH files parsed by a NACHA parser from npm, their controls adding up.
 */
import { from as parseNacha } from '@midlandsbank/node-nacha';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../support/harness.ts';
import { camtSummary, parseIso, validateIso } from './iso20022.ts';

let t: TestApp;
let m: TestMerchant;
type Json = Record<string, unknown>;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant();
  for (const name of ['month-of-history', 'returned-ach']) {
    const res = await t.post(m, '/v1/simulate/fixtures', { name });
    expect(res.status, res.text).toBe(200);
  }
});
afterAll(() => t.close());

describe('statements of a month of history', () => {
  it("each statement's camt.053 is valid against the schema and says what the statement says", async () => {
    const statements = (await t.get(m, '/v1/statements?limit=100')).body.data as Json[];
    expect(statements.length).toBeGreaterThanOrEqual(8);
    for (const s of statements) {
      const res = await t.get(m, `/v1/statements/${s.id}/file?format=camt053`);
      expect(res.status).toBe(200);
      expect(await validateIso('camt.053.001.08', res.text)).toEqual([]);
      const summary = camtSummary(res.text);
      expect(summary).toMatchObject({ account: s.account_number, currency: s.currency });
      expect(summary.balances).toEqual({
        OPBD: Number(s.opening_ledger_balance),
        CLBD: Number(s.closing_ledger_balance),
        OPAV: Number(s.opening_available_balance),
        CLAV: Number(s.closing_available_balance),
      });
      expect(summary.entries).toBe(Number(s.credit_count) + Number(s.debit_count));
      expect(summary.net).toBeCloseTo(Number(s.closing_ledger_balance) - Number(s.opening_ledger_balance), 6);
    }
  });

  it('the intraday camt.052 is valid against the schema', async () => {
    const res = await t.get(m, '/v1/intraday_report?currency=USD&format=camt052');
    expect(res.status).toBe(200);
    expect(await validateIso('camt.052.001.08', res.text)).toEqual([]);
    expect(camtSummary(res.text).balances).toHaveProperty('ITBD');
  });

  it('a schema violation is caught (the check can fail)', async () => {
    const statements = (await t.get(m, '/v1/statements?limit=1')).body.data as Json[];
    const res = await t.get(m, `/v1/statements/${statements[0]?.id}/file?format=camt053`);
    const broken = res.text.replace('<CdtDbtInd>CRDT</CdtDbtInd>', '<CdtDbtInd>PLUS</CdtDbtInd>');
    expect((await validateIso('camt.053.001.08', broken)).length).toBeGreaterThan(0);
  });
});

describe('the ACH files of a month of history and of returned entries', () => {
  it('parse in a NACHA parser from npm, which writes them back byte for byte; their controls add up', async () => {
    const files = (await t.get(m, '/v1/ach_files?limit=100')).body.data as Json[];
    // That parser knows the PPD, CCD, WEB and CTX layouts: a notifications-of-change batch (COR)
    // is beyond it (the api tier's reader checks those).
    const parsable = files.filter((f) => !(f.sec_codes as string[]).includes('COR'));
    expect(parsable.map((f) => f.kind)).toEqual(expect.arrayContaining(['sent', 'returns']));
    for (const summary of parsable) {
      const text = (await t.get(m, `/v1/ach_files/${summary.id}/file`)).text;
      const parsed = parseNacha(text);
      // Written back, the same records (that parser adds a block of nines to a file of whole blocks).
      const records = (ach: string) =>
        ach.split('\n').filter((line) => line.trim() && line !== '9'.repeat(94));
      expect(records(parsed.to('ach'))).toEqual(records(text));
      const { file, batches } = parsed.data;
      const entries = batches.flatMap((b) => b.entries);
      const debit = (code: string) => Number(code[1]) >= 5;
      const sum = (list: typeof entries) => list.reduce((total, e) => total + e.amount, 0);
      expect(file.footer).toMatchObject({
        batchCount: batches.length,
        blockCount: text.trimEnd().split('\n').length / 10,
        entryAndAddendaCount: entries.length + entries.filter((e) => e.addenda).length,
        entryHash: entries.reduce((total, e) => total + e.receivingDFIIdentification, 0) % 1e10,
        totalDebit: sum(entries.filter((e) => debit(e.transactionCode))),
        totalCredit: sum(entries.filter((e) => !debit(e.transactionCode))),
      });
      expect(file.footer.totalDebit).toBe(Math.round(Number(summary.total_debit) * 100));
      expect(file.footer.totalCredit).toBe(Math.round(Number(summary.total_credit) * 100));
      expect(String(file.footer.entryHash).padStart(10, '0')).toBe(summary.entry_hash);
      for (const batch of batches) {
        expect(batch.footer.entryHash).toBe(
          batch.entries.reduce((total, e) => total + e.receivingDFIIdentification, 0) % 1e10,
        );
        expect(batch.footer.totalDebit + batch.footer.totalCredit).toBe(sum(batch.entries));
      }
    }
  });
});

describe('ISO 20022 messages of instant transfers, wires and requests for payment', () => {
  it('each is valid against its schema, and names its object and its amount', async () => {
    const other = await t.merchant();
    const post = (path: string, body: unknown) => t.post(other, path, body);
    await post('/v1/clock/freeze', {});
    await post('/v1/clock/advance', { to: '2031-03-04T15:00:00Z' });
    await post('/v1/simulate/balance/top_up', { amount: '1000.00', currency: 'USD' });
    const payee = (account: string, routing = '021000021') => ({
      name: 'Payee',
      routing_number: routing,
      account_number: account,
    });
    const objects: Json[] = [];
    for (const [rail, account, routing] of [
      ['rtp', '000123456789', undefined],
      ['fednow', '000123456789', '790000051'],
      ['wire', '000111111113', undefined],
      ['wire', '000123456789', undefined],
    ] as const)
      objects.push(
        (
          await post('/v1/transfers', {
            rail,
            direction: 'credit',
            amount: '10.25',
            currency: 'USD',
            counterparty: payee(account, routing),
          })
        ).body,
      );
    for (const account of ['000444444440', '000123456789'])
      objects.push(
        (
          await post('/v1/payment_requests', {
            rail: 'rtp',
            amount: '20.50',
            currency: 'USD',
            payer: payee(account),
          })
        ).body,
      );
    objects.push(
      (
        await post('/v1/simulate/inbound_transfers', {
          rail: 'fednow',
          direction: 'credit',
          amount: '30.75',
          currency: 'USD',
          originator: payee('000987654321'),
        })
      ).body,
    );
    await post('/v1/clock/advance', { seconds: 7200 });
    const mine = (await t.get(m, '/v1/transfers?limit=100')).body.data as Json[];
    const amounts = new Map([...objects, ...mine].map((o) => [String(o.id), Number(o.amount).toFixed(2)]));
    const seen = new Set<string>();
    for (const [id, amount] of amounts) {
      const owner = mine.some((o) => o.id === id) ? m : other;
      const object = (await t.get(owner, `/v1/iso20022_messages?object_id=${id}`)).body.data as Json[];
      for (const message of object) {
        const xml = (await t.get(owner, `/v1/iso20022_messages/${message.id}/file`)).text;
        const definition = String(message.definition);
        expect(await validateIso(definition, xml), `${message.id}\n${xml}`).toEqual([]);
        seen.add(definition);
        const doc = parseIso(xml);
        // The status reports name the payment; the others carry its amount too.
        if (!/^(pacs\.002|pain\.014)/.test(definition)) expect(JSON.stringify(doc)).toContain(`"${amount}"`);
        expect(JSON.stringify(doc)).toContain(id);
      }
    }
    expect([...seen].sort()).toEqual([
      'pacs.002.001.10',
      'pacs.004.001.10',
      'pacs.008.001.08',
      'pain.013.001.07',
      'pain.014.001.07',
    ]);
  });
});
