/**
 * Reconciliation: expected payments matched against the bank movements of the merchant's
 * statements, on the simulated clock — the month of history's expected payments each end matched or
 * overdue as designed; the payer magic of the simulate step; the refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { expectRefusedUnchanged } from '../../support/refusals.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const read = async (m: TestMerchant, id: unknown) => (await t.get(m, `/v1/expected_payments/${id}`)).body;
const eventTypes = async (m: TestMerchant, id: unknown) =>
  ((await t.get(m, `/v1/events?object_id=${id}&limit=100`)).body.data as Json[]).map((e) => e.type).reverse();

describe('the month of history', () => {
  it('ends with every expected payment matched or overdue as designed, each match a line of a statement', async () => {
    const m = await t.merchant();
    const res = await t.post(m, '/v1/simulate/fixtures', { name: 'month-of-history' });
    expect(res.status, res.text).toBe(200);
    const byId = new Map((res.body.steps as Json[]).map((s) => [s.id, s.object as Json]));
    const id = (step: string) => (byId.get(step) as Json).id;
    expect(await read(m, id('expect_supplier'))).toMatchObject({ state: 'matched', amount_matched: 180 });
    expect((await read(m, id('expect_supplier'))).matches).toEqual([
      expect.objectContaining({ source_type: 'transfer', source_id: id('supplier_invoice'), amount: 180 }),
    ]);
    expect((await read(m, id('expect_membership'))).matches).toEqual([
      expect.objectContaining({ source_id: id('subscription_pull_1'), amount: 49 }),
    ]);
    expect(await read(m, id('expect_fednow'))).toMatchObject({ state: 'matched', rail: 'fednow' });
    expect((await read(m, id('expect_fednow'))).matches).toEqual([
      expect.objectContaining({ source_type: 'inbound_transfer', source_id: id('customer_fednow') }),
    ]);
    expect(await read(m, id('expect_wholesale'))).toMatchObject({ state: 'overdue', amount_matched: 0 });
    expect(await read(m, id('expect_short'))).toMatchObject({ state: 'overdue', amount_matched: 119.01 });
    expect(await eventTypes(m, id('expect_short'))).toEqual([
      'expected_payment.created',
      'expected_payment.partially_matched',
      'expected_payment.overdue',
    ]);
    // Each match is a line of a statement: its posting is on the statement of the day it was booked.
    const statements = (await t.get(m, '/v1/statements?limit=100&currency=USD')).body.data as Json[];
    const match = ((await read(m, id('expect_supplier'))).matches as Json[])[0] as Json;
    const day = statements.find(
      (s) =>
        Date.parse(String(s.period_start)) <= Date.parse(String(match.booked_at)) &&
        Date.parse(String(match.booked_at)) < Date.parse(String(s.period_end)),
    ) as Json;
    expect((await t.get(m, `/v1/statements/${day.id}/file?format=bai2`)).text).toContain(
      String(match.posting_id),
    );
  });
});

describe('the payer, by magic cents', () => {
  async function expecting(m: TestMerchant, amount: string, extra: Json = {}) {
    const res = await t.post(m, '/v1/expected_payments', {
      direction: 'credit',
      amount,
      currency: 'USD',
      reference: `REF-${amount}`,
      days: 3,
      ...extra,
    });
    expect(res.status, res.text).toBe(200);
    return res.body;
  }
  const pay = async (m: TestMerchant, id: unknown) => {
    const res = await t.post(m, `/v1/simulate/expected_payments/${id}/pay`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  it('pays in full, short, in two halves, over, or under another reference; what is open at the end of the window is overdue', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    await t.post(m, '/v1/clock/advance', { to: '2031-03-04T15:00:00Z' });
    expect(await pay(m, (await expecting(m, '40.00')).id)).toMatchObject({
      state: 'matched',
      amount_matched: 40,
    });
    expect(await pay(m, (await expecting(m, '40.01')).id)).toMatchObject({
      state: 'partially_matched',
      amount_matched: 39.01,
    });
    const split = await pay(m, (await expecting(m, '40.02')).id);
    expect(split).toMatchObject({ state: 'matched', amount_matched: 40.02 });
    expect(split.matches).toHaveLength(2);
    expect(await eventTypes(m, split.id)).toEqual([
      'expected_payment.created',
      'expected_payment.partially_matched',
      'expected_payment.matched',
    ]);
    expect(await pay(m, (await expecting(m, '40.03')).id)).toMatchObject({ state: 'unmatched' });
    expect(await pay(m, (await expecting(m, '40.04')).id)).toMatchObject({ state: 'unmatched' });
    // Without a reference one movement within the range matches: the 41.03 above does.
    const range = await expecting(m, '41.00', {
      reference: undefined,
      amount: undefined,
      amount_min: '41.00',
      amount_max: '41.50',
    });
    expect(range).toMatchObject({ state: 'matched', amount_matched: 41.03 });
    // A late payer: nothing now; it pays the day after the window ends, too late to match.
    const late = await pay(m, (await expecting(m, '40.05')).id);
    expect(late).toMatchObject({ state: 'unmatched', amount_matched: 0 });
    // Three days later, what is still open is overdue, dated at the window's end.
    await t.post(m, '/v1/clock/advance', { seconds: 4 * 86_400 });
    await t.post(m, '/v1/clock/advance', { seconds: 60 }); // the late payment, booked in the advance, is read after it
    const overdue = ((await t.get(m, '/v1/expected_payments?state=overdue')).body.data as Json[]).length;
    expect(overdue).toBe(4); // the short one, the overpaid one, the mis-referenced one, the late one
    expect(await read(m, late.id)).toMatchObject({ state: 'overdue', amount_matched: 0 });
    const arrived = ((await t.get(m, '/v1/inbound_transfers?limit=100')).body.data as Json[]).find(
      (i) => i.reference === 'REF-40.05',
    ) as Json;
    expect(arrived).toMatchObject({ amount: 40.05 });
    expect(Date.parse(String(arrived.created_at))).toBeGreaterThan(Date.parse('2031-03-07T05:00:00Z'));
  });

  it('cancels an open one; refuses impossible windows and amounts, and writes nothing', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    await t.post(m, '/v1/clock/advance', { to: '2031-03-04T15:00:00Z' });
    const open = await expecting(m, '10.00');
    expect((await t.post(m, `/v1/expected_payments/${open.id}/cancel`)).body).toMatchObject({
      state: 'canceled',
    });
    expect((await t.post(m, `/v1/expected_payments/${open.id}/cancel`)).status).toBe(409);
    const refuse = (body: Json, status: number, code: string) =>
      expectRefusedUnchanged(t, m, {
        path: '/v1/expected_payments',
        body,
        status,
        code,
        lists: ['/v1/expected_payments'],
      });
    const base = { direction: 'credit', amount: '10.00', currency: 'USD' };
    await refuse({ ...base, date_from: '2031-03-10', date_to: '2031-03-05' }, 400, 'parameter_invalid');
    await refuse({ ...base, date_from: '2031-03-01', date_to: '2031-03-03' }, 400, 'parameter_invalid');
    await refuse({ ...base, date_from: '2031-03-04', date_to: '2032-04-04' }, 400, 'parameter_invalid');
    await refuse({ ...base, days: 3, date_to: '2031-03-06' }, 400, 'parameter_invalid');
    await refuse({ ...base, days: 0 }, 400, 'parameter_invalid');
    await refuse(
      { direction: 'credit', currency: 'USD', amount_min: '5.00', amount_max: '4.00', days: 2 },
      400,
      'parameter_invalid',
    );
    await refuse({ ...base, amount_min: '5.00', days: 2 }, 400, 'parameter_invalid');
    await refuse({ ...base, amount: '-1', days: 2 }, 400, 'amount_invalid');
    await refuse({ ...base, amount: '100000000000000000000', days: 2 }, 400, 'amount_invalid');
    await refuse({ ...base, date_from: '9998-12-31', days: 366 }, 400, 'parameter_invalid');
    const debit = await t.post(m, '/v1/expected_payments', { ...base, direction: 'debit', days: 2 });
    expect((await t.post(m, `/v1/simulate/expected_payments/${debit.body.id}/pay`)).status).toBe(409);
  });
});
