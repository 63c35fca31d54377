/**
 * The card networks' dispute rules, with expected values taken from the published rules (not from
 * the code): the Visa Core Rules (October 2025, chapter 11) give each condition's category and its
 * time limit in calendar days from the Transaction Processing Date, that date itself not counted
 * (10.x, 12.2–12.6, 13.x: 120; 11.x and 12.7: 75), and one dispute per transaction except 10.5;
 * Mastercard's guide as processors publish it gives 4808 90 days and 4837 120 days, and lets
 * partial chargebacks add up to the transaction amount. Refusals change nothing.
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

const { post, get, merchantAt, advanceTo } = clockedMerchants(() => t);

const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';
const AMEX = '378282246310005';

/** A captured payment of `amount` USD with `number`; its id. */
async function pay(m: TestMerchant, number: string, amount = 100): Promise<string> {
  const cvc = number.startsWith('3') ? '1234' : '123';
  const res = await post(m, '/v1/card_payments', {
    amount,
    currency: 'USD',
    card: { number, exp_month: 12, exp_year: 2099, cvc },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.state).toBe('captured');
  return String(res.body.id);
}

const dispute = (m: TestMerchant, payment: string, body: Json = {}) =>
  post(m, `/v1/simulate/card_payments/${payment}/dispute`, body);

async function opened(m: TestMerchant, payment: string, body: Json = {}): Promise<Json> {
  const res = await dispute(m, payment, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await expectLedgerBalanced(t.database.db, m.id);
  return res.body;
}

const refused = (m: TestMerchant, payment: string, body: Json, status: number, code: string) =>
  expectRefusedUnchanged(t, m, {
    path: `/v1/simulate/card_payments/${payment}/dispute`,
    body,
    status,
    code,
    lists: ['/v1/disputes', '/v1/events', '/v1/card_payments'],
  });

describe('reason codes', () => {
  it('each network files a reason under its own code and category; other codes are refused', async () => {
    const m = await merchantAt('2031-03-03T15:00:00Z');
    const visa = await opened(m, await pay(m, VISA));
    expect(visa).toMatchObject({
      reason: 'general',
      network: 'visa',
      network_reason_code: '12.5',
      network_reason_category: 'processing_error',
      network_reason_description: 'Incorrect Amount',
    });
    const cases: [string, Json, Json][] = [
      [VISA, { reason: 'fraudulent' }, { network_reason_code: '10.4', network_reason_category: 'fraud' }],
      [VISA, { reason: 'product_not_received' }, { network_reason_code: '13.1' }],
      [
        VISA,
        { network_reason_code: '13.2' },
        { reason: 'subscription_canceled', network_reason_category: 'consumer_dispute' },
      ],
      [
        VISA,
        { network_reason_code: '11.3' },
        { reason: 'general', network_reason_category: 'authorization' },
      ],
      [MASTERCARD, { reason: 'fraudulent' }, { network: 'mastercard', network_reason_code: '4837' }],
      [
        MASTERCARD,
        { reason: 'unrecognized' },
        { network_reason_code: '4863', network_reason_category: 'fraud' },
      ],
      [MASTERCARD, { reason: 'product_not_received' }, { network_reason_code: '4853' }],
      [MASTERCARD, { network_reason_code: '4808' }, { network_reason_category: 'authorization' }],
      [AMEX, { reason: 'product_not_received' }, { network: 'amex', network_reason_code: 'C08' }],
      [AMEX, { reason: 'fraudulent' }, { network_reason_code: 'F29', network_reason_category: 'fraud' }],
    ];
    for (const [card, body, expected] of cases)
      expect(await opened(m, await pay(m, card), body), JSON.stringify(body)).toMatchObject(expected);

    const gql = await t.gql<{ dispute: Json }>(
      'query ($id: ID!) { dispute(id: $id) { network networkReasonCode networkReasonCategory networkReasonDescription } }',
      { id: visa.id },
      { key: m.secretKey },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data.dispute).toEqual({
      network: 'visa',
      networkReasonCode: '12.5',
      networkReasonCategory: 'processing_error',
      networkReasonDescription: 'Incorrect Amount',
    });

    const payment = await pay(m, VISA);
    const wrongNetwork = await refused(
      m,
      payment,
      { network_reason_code: '4837' },
      400,
      'dispute_reason_code_invalid',
    );
    expect(wrongNetwork.message).toContain('4837');
    expect(wrongNetwork.message).toContain('Visa');
    const misfit = await refused(
      m,
      payment,
      { network_reason_code: '13.1', reason: 'fraudulent' },
      400,
      'dispute_reason_code_invalid',
    );
    expect(misfit.message).toContain('13.1');
    // 11.1 (Card Recovery Bulletin) is in the October 2025 rules only for disputes processed through 23 October 2026.
    const retired = await refused(
      m,
      payment,
      { network_reason_code: '11.1' },
      400,
      'dispute_reason_code_invalid',
    );
    expect(retired.message).toContain('2026-10-23');
    await refused(m, await pay(m, AMEX), { network_reason_code: '10.4' }, 400, 'dispute_reason_code_invalid');
  });
});

describe("the cardholder's window, from the processing date", () => {
  it('Visa 75 and 120 days, Mastercard 90 and 120 days: the last day is accepted, the next refused naming the deadline', async () => {
    // Captured on Monday 3 March 2031 (ET); that day is not counted.
    const m = await merchantAt('2031-03-03T15:00:00Z');
    const payments = {
      visaAuth: await pay(m, VISA),
      visaAuthLate: await pay(m, VISA),
      mcAuth: await pay(m, MASTERCARD),
      mcAuthLate: await pay(m, MASTERCARD),
      visaFraud: await pay(m, VISA),
      visaFraudLate: await pay(m, VISA),
    };
    // Day 75 is 17 May 2031: its last second ET (EDT) is 03:59:59 UTC on the 18th.
    await advanceTo(m, '2031-05-18T03:59:59Z');
    await opened(m, payments.visaAuth, { network_reason_code: '11.2' });
    await advanceTo(m, '2031-05-18T04:00:00Z');
    for (const code of ['11.2', '11.3', '12.7']) {
      const error = await refused(
        m,
        payments.visaAuthLate,
        { network_reason_code: code },
        409,
        'dispute_window_closed',
      );
      expect(error.deadline).toBe('2031-05-18T04:00:00.000Z');
      expect(error.message).toContain('2031-05-17');
      expect(error.message).toContain('75');
    }
    // A 120-day condition on the same payment is still open.
    await opened(m, payments.visaAuthLate, { network_reason_code: '12.5' });

    // Mastercard 4808: day 90 is 1 June 2031.
    await advanceTo(m, '2031-06-02T03:59:59Z');
    await opened(m, payments.mcAuth, { network_reason_code: '4808' });
    await advanceTo(m, '2031-06-02T04:00:00Z');
    const mc = await refused(
      m,
      payments.mcAuthLate,
      { network_reason_code: '4808' },
      409,
      'dispute_window_closed',
    );
    expect(mc.deadline).toBe('2031-06-02T04:00:00.000Z');
    await opened(m, payments.mcAuthLate, { network_reason_code: '4837' });

    // 120 days: 1 July 2031 is the last day.
    await advanceTo(m, '2031-07-02T03:59:59Z');
    await opened(m, payments.visaFraud, { reason: 'fraudulent' });
    await advanceTo(m, '2031-07-02T04:00:00Z');
    const late = await refused(
      m,
      payments.visaFraudLate,
      { reason: 'fraudulent' },
      409,
      'dispute_window_closed',
    );
    expect(late.deadline).toBe('2031-07-02T04:00:00.000Z');
    const inquiry = await refused(m, payments.visaFraudLate, { inquiry: true }, 409, 'dispute_window_closed');
    expect(inquiry.deadline).toBe('2031-07-02T04:00:00.000Z');
  });
});

describe('more than one dispute of a payment', () => {
  it('Visa: one dispute, then only 10.5 (Visa Fraud Monitoring Program), never more than what is captured', async () => {
    const m = await merchantAt('2031-03-03T15:00:00Z');
    const payment = await pay(m, VISA, 100);
    const first = await opened(m, payment, { reason: 'product_not_received', amount: 40 });
    const second = await refused(
      m,
      payment,
      { reason: 'product_unacceptable', amount: 30 },
      409,
      'invalid_state',
    );
    expect(second.message).toContain('10.5');
    const vfmp = await opened(m, payment, { network_reason_code: '10.5', amount: 30 });
    expect(vfmp).toMatchObject({ reason: 'fraudulent', network_reason_category: 'fraud', amount: 30 });
    await refused(m, payment, { network_reason_code: '10.5', amount: 40 }, 400, 'amount_invalid');
    const last = await opened(m, payment, { network_reason_code: '10.5' });
    expect(last.amount).toBe(30);
    await refused(m, payment, { network_reason_code: '10.5' }, 409, 'invalid_state');

    const paid = (await get(m, `/v1/card_payments/${payment}`)).body;
    expect(paid).toMatchObject({ amount_disputed: 100, dispute: last.id });
    const listed = await get(m, `/v1/disputes?card_payment=${payment}`);
    expect((listed.body.data as Json[]).map((row) => row.id).sort()).toEqual(
      [first.id, vfmp.id, last.id].sort(),
    );
    const gql = await t.gql<{ cardPayment: { disputes: Json[] } }>(
      'query ($id: ID!) { cardPayment(id: $id) { amountDisputed { amount } disputes { id networkReasonCode } } }',
      { id: payment },
      { key: m.secretKey },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data.cardPayment.disputes).toEqual([
      { id: first.id, networkReasonCode: '13.1' },
      { id: vfmp.id, networkReasonCode: '10.5' },
      { id: last.id, networkReasonCode: '10.5' },
    ]);
  });

  it('Mastercard: partial chargebacks up to the amount; American Express: once', async () => {
    const m = await merchantAt('2031-03-03T15:00:00Z');
    const mc = await pay(m, MASTERCARD, 100);
    for (const [code, amount] of [
      ['4853', 30],
      ['4837', 20],
      ['4834', 50],
    ] as const)
      await opened(m, mc, { network_reason_code: code, amount });
    await refused(m, mc, { network_reason_code: '4853' }, 409, 'invalid_state');
    expect((await get(m, `/v1/card_payments/${mc}`)).body.amount_disputed).toBe(100);

    const amex = await pay(m, AMEX, 100);
    await opened(m, amex, { reason: 'product_not_received', amount: 10 });
    const again = await refused(m, amex, { reason: 'fraudulent', amount: 10 }, 409, 'invalid_state');
    expect(again.message).toContain('American Express');
  });

  it('4000000404000079: two chargebacks a day after capture, 13.1 for half and 10.5 for the rest', async () => {
    const m = await merchantAt('2031-03-03T15:00:00Z', '0');
    const payment = await pay(m, '4000000404000079', 101);
    await advanceTo(m, '2031-03-04T15:00:01Z');
    await expectLedgerBalanced(t.database.db, m.id);
    const listed = (await get(m, `/v1/disputes?card_payment=${payment}`)).body.data as Json[];
    const byCode = Object.fromEntries(listed.map((row) => [row.network_reason_code, row]));
    expect(Object.keys(byCode).sort()).toEqual(['10.5', '13.1']);
    expect(byCode['13.1']).toMatchObject({
      reason: 'product_not_received',
      amount: 50.5,
      state: 'needs_response',
      fee: 15,
    });
    expect(byCode['10.5']).toMatchObject({
      reason: 'fraudulent',
      amount: 50.5,
      state: 'needs_response',
      fee: 15,
    });
    const balances = (await get(m, '/v1/balances')).body.data as Json[];
    const usd = balances.find((row) => row.currency === 'USD') as Json;
    // The payment's 101.00 is pending; both amounts and both 15.00 fees left available.
    const cents = (value: unknown) => Math.round(Number(value) * 100);
    expect(cents(usd.available) + cents(usd.pending)).toBe(10100 - 10100 - 3000);
  });
});
