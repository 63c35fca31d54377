/**
 * Requests for payment on RTP and FedNow, following the ISO 20022 message flow both networks
 * publish: the request (pain.013), the payer's answer (pain.014: accepted, or rejected with an
 * ExternalStatusReason code such as AC04 closed account, AM14 amount over the agreed maximum), and
 * the payment by a credit transfer (pacs.008) on the same rail; lapsing at the request's expiry,
 * withdrawal by the requester. Both directions, on the simulated clock; refusals change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { expectLedgerBalanced } from '../../support/ledger.ts';
import { expectRefusedUnchanged } from '../../support/refusals.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const { post, get, usd, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const START = '2031-12-07T08:00:00Z'; // a Sunday: instant rails run every day
const clockAt = (seconds: number) => new Date(new Date(START).getTime() + seconds * 1000).toISOString();

async function request(m: TestMerchant, account: string, extra: Json = {}): Promise<Json> {
  const res = await post(m, '/v1/payment_requests', {
    rail: 'rtp',
    amount: '42.00',
    currency: 'USD',
    payer: { name: 'Payer', routing_number: '021000021', account_number: account },
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const read = async (m: TestMerchant, id: unknown) => (await get(m, `/v1/payment_requests/${id}`)).body;

const refused = (m: TestMerchant, path: string, body: Json | undefined, status: number, code: string) =>
  expectRefusedUnchanged(t, m, { path, body, status, code, lists: ['/v1/payment_requests'] });

describe('requests the merchant sends', () => {
  it('accepted a minute later, paid by an RTP credit a minute after that', async () => {
    const m = await merchantAt(START, '0');
    const sent = await request(m, '000123456789');
    expect(sent).toMatchObject({
      object: 'payment_request',
      direction: 'outbound',
      rail: 'rtp',
      state: 'pending',
      amount: 42,
      counterparty: { name: 'Payer', account_number: '••••6789' },
      expires_at: clockAt(7 * 86_400),
    });
    await advanceTo(m, clockAt(61));
    expect(await read(m, sent.id)).toMatchObject({ state: 'accepted', responded_at: clockAt(60) });
    await advanceTo(m, clockAt(121));
    const paid = await read(m, sent.id);
    expect(paid).toMatchObject({ state: 'paid', paid_at: clockAt(120) });
    const arrived = (await get(m, `/v1/inbound_transfers/${paid.transfer}`)).body;
    expect(arrived).toMatchObject({ rail: 'rtp', direction: 'credit', state: 'completed', amount: 42 });
    expect(await usd(m)).toMatchObject({ available: 42 });
    expect(await eventTypes(m, String(sent.id))).toEqual([
      'payment_request.created',
      'payment_request.accepted',
      'payment_request.paid',
    ]);
    const gql = await t.gql<{ paymentRequest: Json }>(
      'query ($id: ID!) { paymentRequest(id: $id) { state direction rail transferId amount { amount } } }',
      { id: sent.id },
      { key: m.secretKey },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data.paymentRequest).toMatchObject({
      state: 'paid',
      direction: 'outbound',
      rail: 'rtp',
      transferId: paid.transfer,
    });
    await expectLedgerBalanced(t.database.db, m.id);
  });

  it("the payer's bank rejects with an ISO 20022 reason; unanswered or unpaid requests expire", async () => {
    const m = await merchantAt(START, '0');
    const closed = await request(m, '000444444440');
    const overLimit = await request(m, '000555555553', { rail: 'fednow' });
    const unreachable = await post(m, '/v1/payment_requests', {
      rail: 'rtp',
      amount: '1.00',
      currency: 'USD',
      payer: { name: 'Nobody', routing_number: '790000051', account_number: '000123456789' },
    });
    const ignored = await request(m, '000000000009', { expires_at: clockAt(3600) });
    const acceptsOnly = await request(m, '000888888885', { expires_at: clockAt(3600) });
    await advanceTo(m, clockAt(61));
    expect(await read(m, closed.id)).toMatchObject({
      state: 'rejected',
      rejection_code: 'AC04',
      rejection_reason: 'Closed account number',
    });
    expect(await read(m, overLimit.id)).toMatchObject({
      state: 'rejected',
      rail: 'fednow',
      rejection_code: 'AM14',
    });
    expect(await read(m, unreachable.body.id)).toMatchObject({ state: 'rejected', rejection_code: 'AC03' });
    expect(await read(m, ignored.id)).toMatchObject({ state: 'pending', responded_at: null });
    expect(await read(m, acceptsOnly.id)).toMatchObject({ state: 'accepted' });
    await advanceTo(m, clockAt(3600));
    expect((await read(m, ignored.id)).state).toBe('expired');
    expect((await read(m, acceptsOnly.id)).state).toBe('expired');
    expect((await read(m, closed.id)).state).toBe('rejected');
    expect(await usd(m)).toMatchObject({ available: 0 });
  });

  it('can be withdrawn until paid; bad input is 400 and writes nothing', async () => {
    const m = await merchantAt(START, '0');
    const sent = await request(m, '000123456789');
    const canceled = await post(m, `/v1/payment_requests/${sent.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.state).toBe('canceled');
    await advanceTo(m, clockAt(200));
    expect((await read(m, sent.id)).state).toBe('canceled');
    await refused(m, `/v1/payment_requests/${sent.id}/cancel`, undefined, 409, 'invalid_state');
    await refused(m, `/v1/payment_requests/${sent.id}/accept`, undefined, 409, 'invalid_state');
    const base = {
      rail: 'rtp',
      amount: '5.00',
      currency: 'USD',
      payer: { name: 'P', routing_number: '021000021', account_number: '000123456789' },
    };
    await refused(m, '/v1/payment_requests', { ...base, expires_at: clockAt(100) }, 400, 'parameter_invalid');
    await refused(
      m,
      '/v1/payment_requests',
      { ...base, expires_at: clockAt(200 + 91 * 86_400) },
      400,
      'parameter_invalid',
    );
    await refused(
      m,
      '/v1/payment_requests',
      { ...base, amount: '10000000.01' },
      400,
      'amount_exceeds_rail_limit',
    );
    await refused(m, '/v1/payment_requests', { ...base, rail: 'ach' }, 400, 'parameter_invalid');
    await refused(m, '/v1/payment_requests', { ...base, currency: 'EUR' }, 400, 'currency_unsupported');
  });
});

describe('requests the merchant receives', () => {
  const inbound = (m: TestMerchant, extra: Json = {}) =>
    post(m, '/v1/simulate/payment_requests', {
      rail: 'fednow',
      amount: '30.00',
      currency: 'USD',
      requester: { name: 'Utility Co', routing_number: '021000021', account_number: '000123456789' },
      ...extra,
    });

  it('accepted: paid at once by a FedNow credit to the requester; refused with a reason; or lapsing', async () => {
    const m = await merchantAt(START, '0');
    const asked = (await inbound(m)).body;
    expect(asked).toMatchObject({
      direction: 'inbound',
      state: 'pending',
      counterparty: { name: 'Utility Co' },
    });
    // Nothing to pay with: 422, and the request stays pending.
    await refused(m, `/v1/payment_requests/${asked.id}/accept`, undefined, 422, 'insufficient_balance');
    expect((await read(m, asked.id)).state).toBe('pending');
    expect((await post(m, '/v1/simulate/balance/top_up', { amount: '100.00', currency: 'USD' })).status).toBe(
      200,
    );
    const accepted = await post(m, `/v1/payment_requests/${asked.id}/accept`);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({ state: 'paid', responded_at: START.replace('Z', '.000Z') });
    const transfer = (await get(m, `/v1/transfers/${accepted.body.transfer}`)).body;
    expect(transfer).toMatchObject({
      rail: 'fednow',
      direction: 'credit',
      amount: 30,
      counterparty: { name: 'Utility Co' },
    });
    expect(await usd(m)).toMatchObject({ available: 70 });
    expect(await eventTypes(m, String(asked.id))).toEqual([
      'payment_request.created',
      'payment_request.accepted',
      'payment_request.paid',
    ]);
    await refused(m, `/v1/payment_requests/${asked.id}/reject`, { reason: 'AC04' }, 409, 'invalid_state');
    await refused(m, `/v1/payment_requests/${asked.id}/cancel`, undefined, 409, 'invalid_state');

    const declined = (await inbound(m)).body;
    const rejected = await post(m, `/v1/payment_requests/${declined.id}/reject`, { reason: 'FRAD' });
    expect(rejected.body).toMatchObject({
      state: 'rejected',
      rejection_code: 'FRAD',
      rejection_reason: 'Fraudulent origin',
    });
    await refused(
      m,
      `/v1/payment_requests/${declined.id}/reject`,
      { reason: 'ZZZZ' },
      400,
      'parameter_invalid',
    );

    // A requester whose bank rejects credits (AC04) cannot be paid: refused, nothing written.
    const closedRequester = (
      await inbound(m, {
        requester: { name: 'Closed', routing_number: '021000021', account_number: '000444444440' },
      })
    ).body;
    await refused(m, `/v1/payment_requests/${closedRequester.id}/accept`, undefined, 409, 'invalid_state');
    expect((await read(m, closedRequester.id)).state).toBe('pending');

    const lapsing = (await inbound(m, { expires_at: clockAt(600) })).body;
    await advanceTo(m, clockAt(600));
    expect((await read(m, lapsing.id)).state).toBe('expired');
    const listed = (await get(m, '/v1/payment_requests?direction=inbound&state=expired')).body.data as Json[];
    expect(listed.map((row) => row.id)).toEqual([lapsing.id]);
    await expectLedgerBalanced(t.database.db, m.id);
  });
});
