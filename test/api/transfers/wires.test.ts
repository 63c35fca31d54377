/**
 * Wires on the Fedwire Funds Service's published schedule (the Federal Reserve: the business day
 * opens at 9:00 p.m. ET on the preceding calendar day, Monday to Friday except Federal Reserve
 * holidays; transfers for a bank's customer are taken until 6:45 p.m. ET; settlement is immediate
 * and final), the IMAD (22 characters: cycle date, source, sequence) and OMAD (34: cycle date,
 * destination, sequence, output MMDD and HHMM, application id), returns by the beneficiary's bank,
 * recalls, inbound wires and the refusals. 2031-12-01 is a Monday; 2031-12-25 a Thursday.
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

const GOOD = '000123456789';

async function wire(m: TestMerchant, amount: string, account = GOOD): Promise<Json> {
  const res = await post(m, '/v1/transfers', {
    rail: 'wire',
    direction: 'credit',
    amount,
    currency: 'USD',
    counterparty: { name: 'Beneficiary', routing_number: '021000021', account_number: account },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const transfer = async (m: TestMerchant, id: unknown) => (await get(m, `/v1/transfers/${id}`)).body;

const refused = (m: TestMerchant, path: string, body: Json, status: number, code: string) =>
  expectRefusedUnchanged(t, m, { path, body, status, code, lists: ['/v1/transfers'] });

describe('the operating day', () => {
  it('inside it a wire settles at once and is final; IMAD and OMAD name the cycle date', async () => {
    const m = await merchantAt('2031-12-01T19:00:00Z'); // Monday 14:00 ET
    const sent = await wire(m, '250.00');
    expect(sent).toMatchObject({
      rail: 'wire',
      state: 'pending',
      expected_settlement_at: '2031-12-01T19:00:02.000Z',
    });
    expect(sent.imad).toMatch(/^20311201SBNKUS33\d{6}$/);
    expect(await usd(m)).toMatchObject({ available: 750 });
    // Taken by the service at once: no longer cancelable, even before it settles.
    await refused(m, `/v1/transfers/${sent.id}/cancel`, {}, 409, 'invalid_state');
    await advanceTo(m, '2031-12-01T19:00:05Z');
    const done = await transfer(m, sent.id);
    expect(done).toMatchObject({
      state: 'completed',
      settled_at: '2031-12-01T19:00:02.000Z',
      imad: sent.imad,
    });
    expect(String(done.omad)).toHaveLength(34);
    expect(String(done.omad)).toMatch(/^20311201SBNKUS33\d{6}12011400FT03$/);
    expect(await usd(m)).toMatchObject({ available: 750, pending: 0 });
    expect(await eventTypes(m, String(sent.id))).toEqual(['transfer.created', 'transfer.completed']);
    await expectLedgerBalanced(t.database.db, m.id);
    // Final: no cancel, no simulated return.
    await refused(m, `/v1/transfers/${sent.id}/cancel`, {}, 409, 'invalid_state');
  });

  it('after the 18:45 ET cut-off, overnight, on a weekend and before a holiday it waits for the next opening (21:00 ET the evening before)', async () => {
    const cases: [at: string, opensAt: string, cycle: string][] = [
      // Monday 18:45 ET: the cut-off itself is too late; Tuesday's day opens Monday 21:00 ET.
      ['2031-12-01T23:45:00Z', '2031-12-02T02:00:00.000Z', '20311202'],
      // Tuesday 05:00 ET: Tuesday's day is open (since Monday 21:00).
      ['2031-12-02T10:00:00Z', '2031-12-02T10:00:00.000Z', '20311202'],
      // Friday 19:00 ET: Monday's day opens Sunday 21:00 ET.
      ['2031-12-06T00:00:00Z', '2031-12-08T02:00:00.000Z', '20311208'],
      // Saturday noon ET: the same.
      ['2031-12-06T17:00:00Z', '2031-12-08T02:00:00.000Z', '20311208'],
      // Wednesday 24 December 19:00 ET: no day on Christmas; Friday's opens Thursday 21:00 ET.
      ['2031-12-25T00:00:00Z', '2031-12-26T02:00:00.000Z', '20311226'],
    ];
    for (const [at, opensAt, cycle] of cases) {
      const m = await merchantAt(at);
      const sent = await wire(m, '10.00');
      expect(sent, at).toMatchObject({ state: 'pending', expected_submission_at: opensAt });
      expect(String(sent.imad).slice(0, 8), at).toBe(cycle);
      const settles = new Date(new Date(opensAt).getTime() + 2000).toISOString();
      expect(sent.expected_settlement_at, at).toBe(settles);
      await advanceTo(m, new Date(new Date(opensAt).getTime() + 1000).toISOString());
      expect((await transfer(m, sent.id)).state, at).toBe('pending');
      await advanceTo(m, settles);
      expect(await transfer(m, sent.id), at).toMatchObject({ state: 'completed', settled_at: settles });
    }
  });

  it('a wire waiting for the operating day can be canceled: the hold is released', async () => {
    const m = await merchantAt('2031-12-06T17:00:00Z'); // Saturday
    const sent = await wire(m, '100.00');
    expect(await usd(m)).toMatchObject({ available: 900 });
    const canceled = await post(m, `/v1/transfers/${sent.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.state).toBe('canceled');
    expect(await usd(m)).toMatchObject({ available: 1000 });
    await advanceTo(m, '2031-12-08T03:00:00Z');
    expect((await transfer(m, sent.id)).state).toBe('canceled');
    await expectLedgerBalanced(t.database.db, m.id);
  });
});

describe('refusals', () => {
  it('debits, amounts over the Fedwire maximum, unreachable routing and SEC codes are 400, nothing written', async () => {
    const m = await merchantAt('2031-12-01T19:00:00Z');
    const body = (over: Json) => ({
      rail: 'wire',
      direction: 'credit',
      amount: '5.00',
      currency: 'USD',
      counterparty: { name: 'B', routing_number: '021000021', account_number: GOOD },
      ...over,
    });
    await refused(m, '/v1/transfers', body({ direction: 'debit' }), 400, 'rail_direction_unsupported');
    await refused(m, '/v1/transfers', body({ amount: '10000000000.00' }), 400, 'amount_exceeds_rail_limit');
    await refused(
      m,
      '/v1/transfers',
      body({ counterparty: { name: 'B', routing_number: '790000051', account_number: GOOD } }),
      400,
      'routing_number_unreachable',
    );
    await refused(m, '/v1/transfers', body({ sec_code: 'PPD' }), 400, 'parameter_invalid');
  });
});

describe("the beneficiary's bank", () => {
  it('000111111113: completes, then comes back AC04 an hour later; the money returns to available', async () => {
    const m = await merchantAt('2031-12-01T19:00:00Z');
    const sent = await wire(m, '300.00', '000111111113');
    await advanceTo(m, '2031-12-01T19:00:05Z');
    expect((await transfer(m, sent.id)).state).toBe('completed');
    expect(await usd(m)).toMatchObject({ available: 700 });
    await advanceTo(m, '2031-12-01T20:00:03Z');
    expect(await transfer(m, sent.id)).toMatchObject({
      state: 'returned',
      return_code: 'AC04',
      return_reason: 'Closed account number',
      returned_at: '2031-12-01T20:00:02.000Z',
    });
    expect(await usd(m)).toMatchObject({ available: 1000 });
    expect(await eventTypes(m, String(sent.id))).toEqual([
      'transfer.created',
      'transfer.completed',
      'transfer.returned',
    ]);
    await expectLedgerBalanced(t.database.db, m.id);
  });

  it('a recall is answered an hour later: honored (returned FOCR) or refused (000666666661, CUST); once only', async () => {
    const m = await merchantAt('2031-12-01T15:00:00Z'); // Monday 10:00 ET
    const honored = await wire(m, '200.00');
    const refusedWire = await wire(m, '50.00', '000666666661');
    await refused(m, `/v1/transfers/${honored.id}/recall`, { reason: 'DUPL' }, 409, 'invalid_state'); // still pending
    await advanceTo(m, '2031-12-01T15:00:05Z');
    await refused(m, `/v1/transfers/${honored.id}/recall`, { reason: 'NOPE' }, 400, 'parameter_invalid');
    const asked = await post(m, `/v1/transfers/${honored.id}/recall`, { reason: 'DUPL' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body).toMatchObject({
      state: 'completed',
      recall: {
        reason: 'DUPL',
        state: 'requested',
        requested_at: '2031-12-01T15:00:05.000Z',
        answer_due_at: '2031-12-01T16:00:05.000Z',
      },
    });
    await refused(m, `/v1/transfers/${honored.id}/recall`, { reason: 'DUPL' }, 409, 'invalid_state');
    const gql = await t.gql<{ recallTransfer: { data: Json } }>(
      'mutation ($id: ID!) { recallTransfer(id: $id, reason: FRAD) { ... on MutationRecallTransferSuccess { data { recall { state reason } omad } } } }',
      { id: refusedWire.id },
      { key: m.secretKey },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data.recallTransfer.data.recall).toEqual({ state: 'requested', reason: 'FRAD' });
    await advanceTo(m, '2031-12-01T16:00:06Z');
    expect(await transfer(m, honored.id)).toMatchObject({
      state: 'returned',
      return_code: 'FOCR',
      recall: { state: 'accepted', answered_at: '2031-12-01T16:00:05.000Z' },
    });
    expect(await transfer(m, refusedWire.id)).toMatchObject({
      state: 'completed',
      recall: { state: 'refused', refusal_code: 'CUST' },
    });
    expect(await eventTypes(m, String(honored.id))).toEqual([
      'transfer.created',
      'transfer.completed',
      'transfer.recall_requested',
      'transfer.returned',
    ]);
    expect(await eventTypes(m, String(refusedWire.id))).toContain('transfer.recall_refused');
    expect(await usd(m)).toMatchObject({ available: 950 });
    await expectLedgerBalanced(t.database.db, m.id);

    // A recall after the cut-off is answered when the service next opens.
    await advanceTo(m, '2031-12-01T23:30:00Z'); // 18:30 ET
    const late = await wire(m, '10.00');
    await advanceTo(m, '2031-12-01T23:30:03Z');
    const lateRecall = await post(m, `/v1/transfers/${late.id}/recall`, { reason: 'CUST' });
    expect(lateRecall.body).toMatchObject({ recall: { answer_due_at: '2031-12-02T02:00:00.000Z' } });
    // Only wires are recalled.
    const ach = await post(m, '/v1/transfers', {
      rail: 'ach',
      direction: 'debit',
      amount: '5.00',
      currency: 'USD',
      counterparty: { name: 'B', routing_number: '021000021', account_number: GOOD },
    });
    await refused(m, `/v1/transfers/${ach.body.id}/recall`, { reason: 'DUPL' }, 409, 'invalid_state');
  });
});

describe('inbound wires and wire payouts', () => {
  it('an inbound wire arrives at once in the operating day, at the next opening otherwise; a payout by wire is paid', async () => {
    const m = await merchantAt('2031-12-06T17:00:00Z', '0'); // Saturday
    const body = {
      rail: 'wire',
      direction: 'credit',
      amount: '400.00',
      currency: 'USD',
      originator: { name: 'Sender', routing_number: '021000021', account_number: GOOD },
    };
    const weekend = await post(m, '/v1/simulate/inbound_transfers', body);
    expect(weekend.status, JSON.stringify(weekend.body)).toBe(200);
    expect(weekend.body).toMatchObject({
      state: 'pending',
      expected_settlement_at: '2031-12-08T02:00:00.000Z',
    });
    expect(String(weekend.body.imad).slice(0, 8)).toBe('20311208');
    expect(await usd(m)).toMatchObject({ available: 0, pending: 0 });
    await advanceTo(m, '2031-12-08T02:00:00Z');
    const arrived = (await get(m, `/v1/inbound_transfers/${weekend.body.id}`)).body;
    expect(arrived).toMatchObject({ state: 'completed', completed_at: '2031-12-08T02:00:00.000Z' });
    expect(String(arrived.omad)).toMatch(/^20311208SBNKUS33\d{6}12072100FT03$/);
    expect(await usd(m)).toMatchObject({ available: 400 });
    const now = await post(m, '/v1/simulate/inbound_transfers', body);
    expect(now.body).toMatchObject({ state: 'completed', completed_at: '2031-12-08T02:00:00.000Z' });
    expect(await usd(m)).toMatchObject({ available: 800 });
    await refused(
      m,
      '/v1/simulate/inbound_transfers',
      { ...body, direction: 'debit' },
      400,
      'rail_direction_unsupported',
    );

    const payout = await post(m, '/v1/payouts', {
      method: 'wire',
      amount: '300.00',
      currency: 'USD',
      destination: { name: 'Own', routing_number: '021000021', account_number: GOOD },
    });
    expect(payout.status, JSON.stringify(payout.body)).toBe(200);
    await advanceTo(m, '2031-12-08T02:00:05Z');
    expect((await get(m, `/v1/payouts/${payout.body.id}`)).body).toMatchObject({
      method: 'wire',
      state: 'paid',
    });
    expect(await usd(m)).toMatchObject({ available: 500 });
    await expectLedgerBalanced(t.database.db, m.id);
  });
});
