/**
 * Dishonored and contested returns through REST, GraphQL, the dashboard and webhooks, on the
 * simulated clock. Instants are written out by hand: December 2031 is EST (UTC−5); entries settle
 * Tuesday 2031-12-02 09:00 EST and come back Wednesday 12-03 13:00 EST (18:00Z). The ODFI may
 * dishonor a return until the end of the 5th banking day after it (Wednesday 12-10, so before
 * 2031-12-11T05:00Z); the RDFI may contest a dishonor until the end of the 2nd banking day after it.
 * The ledger sums to zero after every step.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../../src/modules/ledger/ledger.queries.ts';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { signedIn } from '../../support/dashboard.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { Receiver } from '../../support/receiver.ts';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestApp();
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});
afterEach(() => receiver.assertConforming());

const { post, get, usd, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const SETTLED = '2031-12-02T14:00:00.000Z';
const RETURNED = '2031-12-03T18:00:00.000Z';

async function expectLedgerSumsToZero(m: TestMerchant) {
  const check = await verifyLedger(t.database.db, m.id);
  expect(check.mismatches).toEqual([]);
  expect(Object.keys(check.sums).length).toBeGreaterThan(0);
  for (const sum of Object.values(check.sums)) expect(sum).toBe(0n);
}

/** An ACH entry of 100.00 settled at the merchant's clock (SETTLED). */
async function settled(m: TestMerchant, direction: 'debit' | 'credit' = 'debit'): Promise<string> {
  const created = await post(m, '/v1/transfers', {
    rail: 'ach',
    direction,
    amount: '100.00',
    currency: 'USD',
    counterparty: { name: 'Counterparty', routing_number: '021000021', account_number: '000123456789' },
  });
  const id = String(created.body.id);
  expect((await post(m, `/v1/simulate/transfers/${id}/submit`)).status).toBe(200);
  expect((await post(m, `/v1/simulate/transfers/${id}/settle`)).body).toMatchObject({ state: 'settled' });
  return id;
}

const step = (m: TestMerchant, id: string, name: string, body?: Json, kind = 'transfers') =>
  post(m, `/v1/simulate/${kind}/${id}/${name}`, body);

function expectError(res: { status: number; body: Json }, status: number, code: string, text?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error: { code } });
  if (text) expect(String((res.body.error as Json).message)).toMatch(text);
}

describe('a dishonored return, then contested', () => {
  it('R01 returned, dishonored R69 on the last day, contested R74 on the last day; the ledger follows', async () => {
    const m = await merchantAt(SETTLED);
    const a = await settled(m);
    const b = await settled(m);
    const c = await settled(m);
    expect(await usd(m)).toEqual({ available: 1300, pending: 0, reserved: 0 });
    await advanceTo(m, RETURNED);
    for (const id of [a, b, c]) expect((await step(m, id, 'return', { code: 'R01' })).status).toBe(200);
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    await expectLedgerSumsToZero(m);

    // The rules of each dishonor code, on a timely R01 return of a debit.
    expectError(
      await step(m, a, 'dishonor_return', { code: 'R68' }),
      400,
      'return_code_not_allowed',
      /timely/,
    );
    expectError(
      await step(m, a, 'dishonor_return', { code: 'R70' }),
      400,
      'return_code_not_allowed',
      /R06, R31/,
    );
    expectError(
      await step(m, a, 'dishonor_return', { code: 'R01' }),
      400,
      'return_code_not_allowed',
      /not a dishonor code/,
    );
    expectError(await step(m, a, 'dishonor_return', { code: 'R74' }), 400, 'return_code_not_allowed');
    expectError(await step(m, a, 'dishonor_return', { code: 'R99' }), 400, 'parameter_invalid');
    expectError(await step(m, a, 'dishonor_return', {}), 400, 'parameter_missing');
    // Wrong state: contest before a dishonor.
    expectError(
      await step(m, a, 'contest_dishonored_return', { code: 'R74' }),
      409,
      'invalid_state',
      /is returned/,
    );
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });

    // C is dishonored at once; its contest window ends with Friday 12-05 (2 banking days).
    const dishonoredC = await step(m, c, 'dishonor_return', { code: 'R67' });
    expect(dishonoredC.body).toMatchObject({
      state: 'return_dishonored',
      dishonor_code: 'R67',
      dishonored_at: RETURNED,
    });
    expect(await usd(m)).toEqual({ available: 1100, pending: 0, reserved: 0 });
    await expectLedgerSumsToZero(m);
    await advanceTo(m, '2031-12-06T05:00:00.000Z');
    const lateContest = await step(m, c, 'contest_dishonored_return', { code: 'R75' });
    expectError(lateContest, 409, 'return_deadline_passed', /2031-12-06T05:00:00.000Z/);
    expect(lateContest.body).toMatchObject({ error: { deadline: '2031-12-06T05:00:00.000Z' } });

    // A: dishonored R69 at the last instant of its 5 banking days.
    await advanceTo(m, '2031-12-11T04:59:59.000Z');
    const dishonored = await step(m, a, 'dishonor_return', { code: 'R69' });
    expect(dishonored.status).toBe(200);
    expect(dishonored.body).toMatchObject({
      state: 'return_dishonored',
      return_code: 'R01',
      return_untimely: false,
      dishonored_at: '2031-12-11T04:59:59.000Z',
      dishonor_code: 'R69',
      dishonor_reason: 'Field Error(s)',
      contested_at: null,
      contest_code: null,
    });
    // The debit's money is the merchant's again (C's too).
    expect(await usd(m)).toEqual({ available: 1200, pending: 0, reserved: 0 });
    await expectLedgerSumsToZero(m);
    expectError(
      await step(m, a, 'dishonor_return', { code: 'R69' }),
      409,
      'invalid_state',
      /is return_dishonored/,
    );

    // B: one second later, its dishonor is late.
    await advanceTo(m, '2031-12-11T05:00:00.000Z');
    const late = await step(m, b, 'dishonor_return', { code: 'R69' });
    expectError(late, 409, 'return_deadline_passed', /2031-12-11T05:00:00.000Z/);
    expect(late.body).toMatchObject({ error: { deadline: '2031-12-11T05:00:00.000Z' } });
    expect((await get(m, `/v1/transfers/${b}`)).body).toMatchObject({ state: 'returned' });

    // A's contest: only the codes that answer an R69 dishonor (R74, R76, R71).
    for (const code of ['R73', 'R75', 'R77', 'R72'])
      expectError(
        await step(m, a, 'contest_dishonored_return', { code }),
        400,
        'return_code_not_allowed',
        /R69|late dishonor/,
      );
    expectError(
      await step(m, a, 'contest_dishonored_return', { code: 'R69' }),
      400,
      'return_code_not_allowed',
      /not a contest code/,
    );
    // Wednesday 12-10 + 2 banking days: the end of Friday 12-12.
    await advanceTo(m, '2031-12-13T04:59:59.000Z');
    const contested = await step(m, a, 'contest_dishonored_return', { code: 'R74' });
    expect(contested.status).toBe(200);
    expect(contested.body).toMatchObject({
      state: 'return_contested',
      dishonor_code: 'R69',
      contest_code: 'R74',
      contest_reason: 'Corrected Return',
      contested_at: '2031-12-13T04:59:59.000Z',
    });
    expect(await usd(m)).toEqual({ available: 1100, pending: 0, reserved: 0 });
    await expectLedgerSumsToZero(m);
    expectError(
      await step(m, a, 'contest_dishonored_return', { code: 'R74' }),
      409,
      'invalid_state',
      /is return_contested/,
    );

    expect(await eventTypes(m, a)).toEqual([
      'transfer.created',
      'transfer.submitted',
      'transfer.settled',
      'transfer.returned',
      'transfer.return_dishonored',
      'transfer.return_contested',
    ]);
  });

  it('an untimely return (untimely: true) is dishonored R68, contested R73; R72 never applies', async () => {
    const m = await merchantAt(SETTLED);
    const id = await settled(m, 'credit');
    expect(await usd(m)).toEqual({ available: 900, pending: 0, reserved: 0 });
    await advanceTo(m, '2031-12-05T05:00:00.000Z'); // R03's 2 banking days are over
    expectError(await step(m, id, 'return', { code: 'R03' }), 409, 'return_deadline_passed');
    const returned = await step(m, id, 'return', { code: 'R03', untimely: true });
    expect(returned.body).toMatchObject({ state: 'returned', return_code: 'R03', return_untimely: true });
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    const dishonored = await step(m, id, 'dishonor_return', { code: 'R68' });
    expect(dishonored.body).toMatchObject({
      state: 'return_dishonored',
      dishonor_code: 'R68',
      dishonor_reason: 'Untimely Return',
    });
    expect(await usd(m)).toEqual({ available: 900, pending: 0, reserved: 0 });
    await expectLedgerSumsToZero(m);
    expectError(
      await step(m, id, 'contest_dishonored_return', { code: 'R72' }),
      400,
      'return_code_not_allowed',
      /late dishonor/,
    );
    expectError(
      await step(m, id, 'contest_dishonored_return', { code: 'R74' }),
      400,
      'return_code_not_allowed',
      /R69/,
    );
    const contested = await step(m, id, 'contest_dishonored_return', { code: 'R73' });
    expect(contested.body).toMatchObject({
      state: 'return_contested',
      contest_code: 'R73',
      contest_reason: 'Timely Original Return',
    });
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    await expectLedgerSumsToZero(m);
  });

  it('R70 dishonors only an R06 or R31 return; R62 only a debit’s, contested R77; R67 contested R75; R71 answers any', async () => {
    const m = await merchantAt(SETTLED, '5000.00');
    const r06 = await settled(m);
    const credit = await settled(m, 'credit');
    const debit = await settled(m);
    const dup = await settled(m);
    await advanceTo(m, RETURNED);
    await step(m, r06, 'return', { code: 'R06' });
    await step(m, credit, 'return', { code: 'R02' });
    await step(m, debit, 'return', { code: 'R02' });
    await step(m, dup, 'return', { code: 'R01' });
    expect((await step(m, r06, 'dishonor_return', { code: 'R70' })).body).toMatchObject({
      state: 'return_dishonored',
      dishonor_code: 'R70',
    });
    expect((await step(m, r06, 'contest_dishonored_return', { code: 'R71' })).body).toMatchObject({
      state: 'return_contested',
      contest_code: 'R71',
    });
    expectError(
      await step(m, credit, 'dishonor_return', { code: 'R62' }),
      400,
      'return_code_not_allowed',
      /credit/,
    );
    expect((await step(m, credit, 'dishonor_return', { code: 'R61' })).body).toMatchObject({
      dishonor_code: 'R61',
    });
    expectError(
      await step(m, credit, 'contest_dishonored_return', { code: 'R74' }),
      400,
      'return_code_not_allowed',
      /R61/,
    );
    expect((await step(m, credit, 'contest_dishonored_return', { code: 'R71' })).body).toMatchObject({
      state: 'return_contested',
    });
    expect((await step(m, debit, 'dishonor_return', { code: 'R62' })).body).toMatchObject({
      dishonor_code: 'R62',
    });
    expect((await step(m, debit, 'contest_dishonored_return', { code: 'R77' })).body).toMatchObject({
      contest_code: 'R77',
    });
    expect((await step(m, dup, 'dishonor_return', { code: 'R67' })).body).toMatchObject({
      dishonor_code: 'R67',
    });
    expectError(
      await step(m, dup, 'contest_dishonored_return', { code: 'R76' }),
      400,
      'return_code_not_allowed',
      /R69/,
    );
    expect((await step(m, dup, 'contest_dishonored_return', { code: 'R75' })).body).toMatchObject({
      contest_code: 'R75',
    });
    // Every entry is returned again: the balance is where it started.
    expect(await usd(m)).toEqual({ available: 5000, pending: 0, reserved: 0 });
    await expectLedgerSumsToZero(m);
  });

  it('wrong states: a settled entry, a return before settlement, an RTP transfer', async () => {
    const m = await merchantAt(SETTLED);
    const id = await settled(m);
    expectError(await step(m, id, 'dishonor_return', { code: 'R69' }), 409, 'invalid_state', /is settled/);
    const unsettled = await post(m, '/v1/transfers', {
      rail: 'ach',
      direction: 'debit',
      amount: '10.00',
      currency: 'USD',
      counterparty: { name: 'C', routing_number: '021000021', account_number: '000123456789' },
    });
    const u = String(unsettled.body.id);
    await step(m, u, 'submit');
    expect((await step(m, u, 'return', { code: 'R02' })).body).toMatchObject({
      state: 'returned',
      settled_at: null,
    });
    expectError(
      await step(m, u, 'dishonor_return', { code: 'R69' }),
      409,
      'invalid_state',
      /before it settled/,
    );
    const rtp = await post(m, '/v1/transfers', {
      rail: 'rtp',
      direction: 'credit',
      amount: '10.00',
      currency: 'USD',
      counterparty: { name: 'C', routing_number: '021000021', account_number: '000123456789' },
    });
    expectError(
      await step(m, String(rtp.body.id), 'dishonor_return', { code: 'R69' }),
      409,
      'invalid_state',
      /RTP/,
    );
    await expectLedgerSumsToZero(m);
  });

  it('six dishonors of one return at once, then six contests: one of each wins, the ledger moves once each', async () => {
    const m = await merchantAt(SETTLED);
    const id = await settled(m);
    await advanceTo(m, RETURNED);
    expect((await step(m, id, 'return', { code: 'R01' })).status).toBe(200);
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    for (const [name, code, available] of [
      ['dishonor_return', 'R69', 1100],
      ['contest_dishonored_return', 'R74', 1000],
    ] as const) {
      const answers = await Promise.all(Array.from({ length: 6 }, () => step(m, id, name, { code })));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      for (const res of answers.filter((r) => r.status === 409))
        expect(res.body).toMatchObject({ error: { code: 'invalid_state' } });
      expect(await usd(m)).toEqual({ available, pending: 0, reserved: 0 });
      await expectLedgerSumsToZero(m);
    }
    expect(await eventTypes(m, id)).toEqual([
      'transfer.created',
      'transfer.submitted',
      'transfer.settled',
      'transfer.returned',
      'transfer.return_dishonored',
      'transfer.return_contested',
    ]);
  });

  it("a collection's debit: its return failed the collection, so the return is not dishonored (409, nothing changes)", async () => {
    const m = await merchantAt(SETTLED);
    expect((await post(m, '/v1/collect', { amount: 120, currency: 'USD', reference: 'inv-77' })).status).toBe(
      200,
    );
    const paid = await post(m, '/v1/simulate/collections/inv-77/pay', {
      method: 'bank_account',
      bank_account: { name: 'Ada Lovelace', routing_number: '110000000', account_number: '000123456789' },
    });
    expect(paid.status).toBe(200);
    const id = String((paid.body.payment as Json).id);
    await step(m, id, 'submit');
    expect((await step(m, id, 'settle')).body).toMatchObject({ state: 'settled' });
    expect((await get(m, '/v1/collections/inv-77')).body).toMatchObject({ state: 'succeeded' });
    await advanceTo(m, RETURNED);
    expect((await step(m, id, 'return', { code: 'R01' })).body).toMatchObject({ state: 'returned' });
    expect((await get(m, '/v1/collections/inv-77')).body).toMatchObject({
      state: 'failed',
      failure_code: 'R01',
    });
    const before = await usd(m);

    expectError(await step(m, id, 'dishonor_return', { code: 'R69' }), 409, 'invalid_state', /collection/);
    const gql = await t.gql<Record<string, Json>>(
      `mutation { simulateTransferDishonorReturn(id: "${id}", code: R67) { __typename ... on SandbankError { code } } }`,
      {},
      { key: m.secretKey },
    );
    expect(gql.data?.simulateTransferDishonorReturn).toMatchObject({ code: 'invalid_state' });
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({
      state: 'returned',
      dishonored_at: null,
      dishonor_code: null,
    });
    expect((await get(m, '/v1/collections/inv-77')).body).toMatchObject({ state: 'failed' });
    expect(await usd(m)).toEqual(before);
    expect(await eventTypes(m, id)).not.toContain('transfer.return_dishonored');
    const page = await (await signedIn(() => t, m)).get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('R01');
    expect(page.html).not.toContain('data-testid="action-dishonor_return"');
    await expectLedgerSumsToZero(m);
  });
});

describe('payouts share the steps', () => {
  it('a paid payout returned R02, dishonored R61, contested R71; events payout.return_dishonored|contested', async () => {
    const m = await merchantAt(SETTLED);
    const created = await post(m, '/v1/payouts', {
      amount: '400.00',
      currency: 'USD',
      destination: { name: 'Own', routing_number: '021000021', account_number: '000123456789' },
    });
    const id = String(created.body.id);
    await step(m, id, 'submit', undefined, 'payouts');
    await step(m, id, 'settle', undefined, 'payouts');
    await advanceTo(m, RETURNED);
    await step(m, id, 'return', { code: 'R02' }, 'payouts');
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    const dishonored = await step(m, id, 'dishonor_return', { code: 'R61' }, 'payouts');
    expect(dishonored.body).toMatchObject({
      object: 'payout',
      state: 'return_dishonored',
      failure_code: 'R02',
      dishonor_code: 'R61',
    });
    expect(await usd(m)).toEqual({ available: 600, pending: 0, reserved: 0 });
    await expectLedgerSumsToZero(m);
    const contested = await step(m, id, 'contest_dishonored_return', { code: 'R71' }, 'payouts');
    expect(contested.body).toMatchObject({ state: 'return_contested', contest_code: 'R71' });
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    await expectLedgerSumsToZero(m);
    expect(await eventTypes(m, id)).toEqual([
      'payout.created',
      'payout.in_transit',
      'payout.paid',
      'payout.returned',
      'payout.return_dishonored',
      'payout.return_contested',
    ]);
    const listed = await get(m, '/v1/payouts?state=return_contested');
    expect((listed.body.data as Json[]).map((p) => p.id)).toEqual([id]);
  });
});

describe('GraphQL, webhooks and the dashboard', () => {
  it("the dashboard's return form lets a late return arrive only when it is ticked untimely", async () => {
    const m = await merchantAt(SETTLED);
    const id = await settled(m);
    // Thursday 10:00 EST: past R01's deadline, the opening of business (08:30 ET) of Thursday 2031-12-04.
    await advanceTo(m, '2031-12-04T15:00:00.000Z');
    const browser = await signedIn(() => t, m);
    const page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('data-testid="action-return-untimely"');

    const refused = await browser.post(`/dashboard/transactions/${id}/actions/return`, { code: 'R01' });
    expect(refused.status).toBe(303);
    const shown = await browser.get(`/dashboard/transactions/${id}`);
    expect(shown.html).toContain('2031-12-04T13:30:00.000Z');
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({ state: 'settled' });

    const late = await browser.post(`/dashboard/transactions/${id}/actions/return`, {
      code: 'R01',
      untimely: 'true',
    });
    expect(late.status).toBe(303);
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({
      state: 'returned',
      return_code: 'R01',
      return_untimely: true,
    });
    expect((await browser.get(`/dashboard/transactions/${id}`)).html).toContain(
      'arrived after its time frame',
    );
    await expectLedgerSumsToZero(m);
  });

  it('the mutations take the same steps; the events reach a webhook endpoint; the page offers the buttons', async () => {
    const m = await merchantAt(SETTLED);
    const endpoint = await post(m, '/v1/webhook_endpoints', { url: receiver.url });
    expect(endpoint.status).toBe(200);
    const id = await settled(m);
    await advanceTo(m, RETURNED);
    const gql = (query: string) => t.gql<Record<string, Json>>(query, {}, { key: m.secretKey });
    const returned = await gql(`mutation { simulateTransferReturn(id: "${id}", code: R16) {
      __typename ... on MutationSimulateTransferReturnSuccess { data { state returnCode returnUntimely } }
      ... on SandbankError { code message } } }`);
    expect(returned.data?.simulateTransferReturn).toMatchObject({
      data: { state: 'returned', returnCode: 'R16', returnUntimely: false },
    });

    const browser = await signedIn(() => t, m);
    const page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('data-testid="action-dishonor_return"');
    expect(page.html).not.toContain('data-testid="action-contest_dishonored_return"');

    const wrong = await gql(`mutation { simulateTransferDishonorReturn(id: "${id}", code: R68) {
      __typename ... on SandbankError { code message } } }`);
    expect(wrong.data?.simulateTransferDishonorReturn).toMatchObject({ code: 'return_code_not_allowed' });

    const res = await browser.post(`/dashboard/transactions/${id}/actions/dishonor_return`, { code: 'R69' });
    expect(res.status).toBe(303);
    const after = await browser.get(`/dashboard/transactions/${id}`);
    expect(after.html).toContain('is now return_dishonored');
    expect(after.html).toContain('R69');
    expect(after.html).toContain('data-testid="action-contest_dishonored_return"');
    expect(after.html).not.toContain('data-testid="action-dishonor_return"');

    const contested = await gql(`mutation { simulateTransferContestDishonoredReturn(id: "${id}", code: R76) {
      __typename ... on MutationSimulateTransferContestDishonoredReturnSuccess { data { state dishonorCode contestCode contestReason } } } }`);
    expect(contested.data?.simulateTransferContestDishonoredReturn).toMatchObject({
      data: {
        state: 'return_contested',
        dishonorCode: 'R69',
        contestCode: 'R76',
        contestReason: 'No Errors Found',
      },
    });
    const final = await browser.get(`/dashboard/transactions/${id}`);
    expect(final.html).toContain('data-testid="no-actions"');
    await expectLedgerSumsToZero(m);

    // The clock moving delivers the merchant's events to its endpoint.
    await advanceTo(m, '2031-12-03T18:10:00.000Z');
    const deadline = Date.now() + 10_000;
    while (!receiver.types().includes('transfer.return_contested') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const types = receiver.types();
    expect(types).toContain('transfer.return_dishonored');
    expect(types).toContain('transfer.return_contested');
  });
});
