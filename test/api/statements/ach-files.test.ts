/**
 * ACH files in the NACHA format: the file of each submission window the merchant's entries went out
 * in, the returns and notifications of change of a banking day, the entries received. Each is read
 * by a reader written from the Nacha record layouts, which checks every control; its entries are
 * the merchant's transfers, its totals theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { readNacha } from '../../support/nacha.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const cents = (value: unknown) => Math.round(Number(value) * 100);
const compact = (iso: string) => iso.replaceAll('-', '').replaceAll(':', '').replace('.', '');

async function files(m: TestMerchant) {
  const list = await t.get(m, '/v1/ach_files?limit=100');
  expect(list.status, list.text).toBe(200);
  return list.body.data as Json[];
}

async function fileOf(m: TestMerchant, id: string) {
  const res = await t.get(m, `/v1/ach_files/${id}/file`);
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return readNacha(res.text);
}

describe('a month of history', () => {
  it('every ACH window used has its file, holding exactly its entries, with their totals', async () => {
    const m = await t.merchant();
    expect((await t.post(m, '/v1/simulate/fixtures', { name: 'month-of-history' })).status).toBe(200);
    const entries = [
      ...((await t.get(m, '/v1/transfers?limit=100')).body.data as Json[]),
      ...((await t.get(m, '/v1/payouts?limit=100')).body.data as Json[]),
    ]
      .filter((e) => ['ach', 'same_day_ach'].includes(String(e.rail ?? e.method)))
      // A payout's submission is its in_transit_at.
      .map((e): Json => ({ ...e, submitted_at: e.submitted_at ?? e.in_transit_at }));
    expect(entries.length).toBeGreaterThanOrEqual(4);
    const listed = await files(m);
    const windows = new Set(entries.map((e) => String(e.submitted_at)));
    expect(
      listed
        .filter((f) => f.kind === 'sent')
        .map((f) => f.window_at)
        .sort(),
    ).toEqual([...windows].sort());
    for (const window of windows) {
      const inWindow = entries.filter((e) => e.submitted_at === window);
      const id = `achf_sent_${compact(window)}`;
      const summary = listed.find((f) => f.id === id) as Json;
      const file = await fileOf(m, id);
      expect(file).toMatchObject({ destination: '011000015', origin: '110000013' });
      const read = file.batches.flatMap((b) => b.entries);
      expect(read).toHaveLength(inWindow.length);
      const debits = inWindow.filter((e) => e.direction === 'debit');
      expect(file.totalDebit).toBe(debits.reduce((sum, e) => sum + cents(e.amount), 0));
      expect(file.totalCredit).toBe(
        inWindow.filter((e) => e.direction !== 'debit').reduce((s, e) => s + cents(e.amount), 0),
      );
      expect(cents(summary.total_debit)).toBe(file.totalDebit);
      expect(cents(summary.total_credit)).toBe(file.totalCredit);
      for (const e of inWindow) {
        // The individual identification is the entry's reference, or its id's last 15 characters.
        const entry = read.find(
          (r) =>
            r.individualId ===
            String(e.reference ?? e.id)
              .toUpperCase()
              .slice(-15),
        );
        expect(entry, String(e.id)).toBeDefined();
        expect(entry?.amount).toBe(cents(e.amount));
        expect(entry?.routing).toBe(((e.counterparty ?? e.destination) as Json | undefined)?.routing_number);
        expect(Number(entry?.transactionCode[1])).toBe(e.direction === 'debit' ? 7 : 2);
      }
      for (const batch of file.batches) {
        expect(batch.odfi).toBe('11000001');
        expect(['PPD', 'CCD', 'WEB']).toContain(batch.sec);
      }
    }
  });
});

describe('returns, notifications of change and entries received', () => {
  it('are the files the operator sends back, each entry naming its original', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    await t.post(m, '/v1/clock/advance', { to: '2031-03-03T14:00:00Z' }); // a Monday
    await t.post(m, '/v1/simulate/balance/top_up', { amount: '1000.00', currency: 'USD' });
    const credit = (account: string, amount: string) =>
      t.post(m, '/v1/transfers', {
        rail: 'ach',
        direction: 'credit',
        amount,
        currency: 'USD',
        counterparty: { name: `Payee ${account}`, routing_number: '021000021', account_number: account },
      });
    const returned = (await credit('000111111113', '12.00')).body;
    const corrected = (await credit('20001', '13.00')).body;
    const inbound = await t.post(m, '/v1/simulate/inbound_transfers', {
      rail: 'ach',
      direction: 'credit',
      amount: '7.00',
      currency: 'USD',
      originator: { name: 'Payroll Co', routing_number: '021000021', account_number: '000987654321' },
    });
    expect(inbound.status, inbound.text).toBe(200);
    await t.post(m, '/v1/clock/advance', { to: '2031-03-07T20:00:00Z' });
    expect((await t.get(m, `/v1/transfers/${returned.id}`)).body).toMatchObject({
      state: 'returned',
      return_code: 'R02',
    });
    const listed = await files(m);
    const sentId = String(listed.find((f) => f.kind === 'sent')?.id);
    const sent = await fileOf(m, sentId);
    const original = (id: unknown) =>
      sent.batches.flatMap((b) => b.entries).find((e) => String(id).toUpperCase().endsWith(e.individualId));

    const returnsFile = listed.find(
      (f) => f.kind === 'returns' && (f.sec_codes as string[]).includes('CCD'),
    ) as Json;
    const returns = await fileOf(m, String(returnsFile.id));
    expect(returns).toMatchObject({ destination: '110000013', origin: '011000015' });
    const ret = returns.batches.flatMap((b) => b.entries).find((e) => e.addenda?.type === '99');
    expect(ret).toMatchObject({ transactionCode: '21', routing: '110000013', amount: 1200 });
    expect(ret?.addenda?.text.slice(0, 3)).toBe('R02');
    expect(ret?.addenda?.text.slice(3, 18)).toBe(original(returned.id)?.trace);

    const nocFile = listed.find((f) => (f.sec_codes as string[]).includes('COR')) as Json;
    expect(nocFile, JSON.stringify(listed)).toBeDefined();
    const noc = (await fileOf(m, String(nocFile.id))).batches.find((b) => b.sec === 'COR');
    expect(noc?.entries[0]).toMatchObject({ transactionCode: '21', amount: 0 });
    expect(noc?.entries[0]?.addenda?.type).toBe('98');
    expect(noc?.entries[0]?.addenda?.text.slice(0, 3)).toBe('C01');
    expect(noc?.entries[0]?.addenda?.text.slice(3, 18)).toBe(original(corrected.id)?.trace);
    // C01's corrected data is the account number, in positions 1-17 of the field; the RDFI follows.
    expect(noc?.entries[0]?.addenda?.text.slice(24, 32)).toBe('02100002');
    const nocs = (await t.get(m, `/v1/transfers/${corrected.id}`)).body.notifications_of_change as Json[];
    const last4 = String(((nocs[0] as Json).corrected_data as Json).account_number).slice(-4);
    const field = String(noc?.entries[0]?.addenda?.text.slice(32, 61));
    expect(field.slice(0, 17).trim()).toMatch(new RegExp(`^\\d+${last4}$`));
    expect(field.slice(17)).toBe(' '.repeat(12));

    const receivedId = String(listed.find((f) => f.kind === 'received')?.id);
    const received = await fileOf(m, receivedId);
    expect(received.batches[0]).toMatchObject({ companyName: 'PAYROLL CO', odfi: '02100002' });
    expect(received.batches[0]?.entries[0]).toMatchObject({
      transactionCode: '22',
      routing: '110000013',
      amount: 700,
    });

    // GraphQL answers the same file; an id of no file is 404.
    const gql = await t.gql<{ achFile: { kind: string; file: string } }>(
      'query($id: ID!) { achFile(id: $id) { kind file } }',
      { id: receivedId },
      { key: m.secretKey },
    );
    expect(gql.errors, JSON.stringify(gql.errors)).toBeUndefined();
    expect(gql.data.achFile.file).toBe((await t.get(m, `/v1/ach_files/${receivedId}/file`)).text);
    expect((await t.get(m, '/v1/ach_files/achf_sent_20310303T000000000Z')).status).toBe(404);
    expect((await t.get(m, '/v1/ach_files/achf_nothing')).status).toBe(404);
    // A date or time that does not exist names no file.
    expect((await t.get(m, '/v1/ach_files/achf_sent_20261399T999999000Z')).status).toBe(404);
    expect((await t.get(m, '/v1/ach_files/achf_returns_20260230')).status).toBe(404);
    expect((await t.get(m, '/v1/ach_files?starting_after=achf_nothing')).status).toBe(400);
  });
});
