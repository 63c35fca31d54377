/**
 * ISO 20022 messages of instant and wire credit transfers and of requests for payment: which
 * messages an object has in each outcome, and what they say of it. The outside tier validates each
 * against its published schema (test/outside/bank-files.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const messages = async (m: TestMerchant, objectId: unknown) => {
  const res = await t.get(m, `/v1/iso20022_messages?object_id=${objectId}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data as Json[];
};
const summary = (list: Json[]) => list.map((msg) => `${msg.direction} ${msg.definition}`);
const xmlOf = async (m: TestMerchant, id: unknown) => {
  const res = await t.get(m, `/v1/iso20022_messages/${id}/file`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
  return res.text;
};
const counterparty = (account: string, routing = '021000021') => ({
  name: 'Payee',
  routing_number: routing,
  account_number: account,
});

describe('the month of history', () => {
  it('has the messages of every instant transfer: an RTP credit sent and settled, a FedNow credit received', async () => {
    const m = await t.merchant();
    const res = await t.post(m, '/v1/simulate/fixtures', { name: 'month-of-history' });
    expect(res.status, res.text).toBe(200);
    const byId = new Map((res.body.steps as Json[]).map((s) => [s.id, s.object as Json]));
    const rtp = byId.get('rush_supplier_rtp') as Json;
    expect(summary(await messages(m, rtp.id))).toEqual(['sent pacs.008.001.08', 'received pacs.002.001.10']);
    const sent = await xmlOf(m, `${rtp.id}.pacs.008`);
    expect(sent).toContain('<IntrBkSttlmAmt Ccy="USD">65.00</IntrBkSttlmAmt>');
    expect(sent).toContain('<Prtry>RTP</Prtry>');
    expect(sent).toContain('<Nm>Brass Works LLC</Nm>');
    expect(await xmlOf(m, `${rtp.id}.pacs.002`)).toContain('<TxSts>ACSC</TxSts>');
    const fednow = byId.get('customer_fednow') as Json;
    expect(summary(await messages(m, fednow.id))).toEqual([
      'received pacs.008.001.08',
      'sent pacs.002.001.10',
    ]);
    expect(await xmlOf(m, `${fednow.id}.pacs.008`)).toContain('<Prtry>FEDNOW</Prtry>');
    // An ACH entry has none: its files are NACHA files.
    expect(await messages(m, (byId.get('supplier_invoice') as Json).id)).toEqual([]);
  });
});

describe('outcomes', () => {
  it('a rejected RTP credit, a returned wire, requests for payment answered both ways', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    await t.post(m, '/v1/clock/advance', { to: '2031-03-04T15:00:00Z' }); // a Tuesday, Fedwire open
    await t.post(m, '/v1/simulate/balance/top_up', { amount: '1000.00', currency: 'USD' });
    const transfer = (rail: string, account: string, routing?: string) =>
      t.post(m, '/v1/transfers', {
        rail,
        direction: 'credit',
        amount: '10.00',
        currency: 'USD',
        counterparty: counterparty(account, routing),
      });
    const rejected = (await transfer('rtp', '000123456789', '790000051')).body;
    const wire = (await transfer('wire', '000111111113')).body;
    const request = (
      await t.post(m, '/v1/payment_requests', {
        rail: 'rtp',
        amount: '20.00',
        currency: 'USD',
        payer: counterparty('000444444440'),
      })
    ).body;
    const accepted = (
      await t.post(m, '/v1/payment_requests', {
        rail: 'fednow',
        amount: '21.00',
        currency: 'USD',
        payer: counterparty('000123456789'),
      })
    ).body;
    await t.post(m, '/v1/clock/advance', { seconds: 2 * 3600 });

    expect(summary(await messages(m, rejected.id))).toEqual([
      'sent pacs.008.001.08',
      'received pacs.002.001.10',
    ]);
    const status = await xmlOf(m, `${rejected.id}.pacs.002`);
    expect(status).toContain('<TxSts>RJCT</TxSts>');
    expect(status).toContain('<Cd>AC03</Cd>');

    expect(summary(await messages(m, wire.id))).toEqual([
      'sent pacs.008.001.08',
      'received pacs.002.001.10',
      'received pacs.004.001.10',
    ]);
    const returned = await xmlOf(m, `${wire.id}.pacs.004`);
    expect(returned).toContain('<RtrdIntrBkSttlmAmt Ccy="USD">10.00</RtrdIntrBkSttlmAmt>');
    expect(returned).toMatch(/<RtrRsnInf>\s*<Rsn>\s*<Cd>AC04<\/Cd>/);
    expect(await xmlOf(m, `${wire.id}.pacs.008`)).toContain('<Prtry>FEDWIRE</Prtry>');

    expect(summary(await messages(m, request.id))).toEqual([
      'sent pain.013.001.07',
      'received pain.014.001.07',
    ]);
    expect(await xmlOf(m, `${request.id}.pain.014`)).toMatch(/<TxSts>RJCT<\/TxSts>[\s\S]*<Cd>AC04<\/Cd>/);
    expect(await xmlOf(m, `${accepted.id}.pain.014`)).toContain('<TxSts>ACTC</TxSts>');
    const paidBy = (await t.get(m, `/v1/payment_requests/${accepted.id}`)).body.transfer;
    expect(summary(await messages(m, paidBy))).toEqual(['received pacs.008.001.08', 'sent pacs.002.001.10']);

    // GraphQL answers the same XML; unknown objects and messages are 404.
    const gql = await t.gql<{ iso20022Messages: { type: string; xml: string }[] }>(
      'query($id: ID!) { iso20022Messages(objectId: $id) { type xml } }',
      { id: wire.id },
      { key: m.secretKey },
    );
    expect(gql.errors, JSON.stringify(gql.errors)).toBeUndefined();
    expect(gql.data.iso20022Messages[2]?.xml).toBe(returned);
    expect((await t.get(m, '/v1/iso20022_messages?object_id=tr_nothing')).status).toBe(404);
    expect((await t.get(m, `/v1/iso20022_messages/${rejected.id}.pacs.004`)).status).toBe(404);
    expect((await t.get(m, '/v1/iso20022_messages?object_id=cp_123')).status).toBe(404);
  });
});
