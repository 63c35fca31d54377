/**
 * Bank transfers over the API, driven by each merchant's simulated clock. The instants are
 * written out by hand: December 2031 is EST (UTC−5); 2031-12-02 is a Tuesday, 2031-12-25 a Thursday
 * (Christmas, a Fed holiday). Windows close 10:30, 14:45, 16:45 ET and settle 13:00, 17:00, 18:00 ET;
 * standard ACH settles the next banking day at 08:30 ET; returns arrive at 13:00 ET, the next banking
 * day (5 banking days for the 60-day unauthorized codes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockedMerchants, gqlStep, type Json, stateStepCases } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const { post, get, usd, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const ROUTING = '021000021';
const TUESDAY_0900 = '2031-12-02T14:00:00.000Z';

function transfer(m: TestMerchant, fields: Json & { account?: string; routing?: string }) {
  const { account = '000123456789', routing = ROUTING, ...rest } = fields;
  return post(m, '/v1/transfers', {
    amount: '250.00',
    currency: 'USD',
    counterparty: {
      name: 'Acme Supplies',
      routing_number: routing,
      account_number: account,
      account_type: 'checking',
    },
    ...rest,
  });
}

describe('ACH on the Federal Reserve timeline', () => {
  it('a standard ACH credit: held at creation, submitted at the 10:30 ET cut-off, settled next banking day 08:30 ET', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const created = await transfer(m, { rail: 'ach', direction: 'credit', reference: 'inv-7' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'transfer',
      rail: 'ach',
      direction: 'credit',
      state: 'pending',
      amount: 250,
      sec_code: 'CCD',
      counterparty: { name: 'Acme Supplies', routing_number: ROUTING, account_number: '••••6789' },
      expected_submission_at: '2031-12-02T15:30:00.000Z',
      expected_settlement_at: '2031-12-03T13:30:00.000Z',
      reference: 'inv-7',
    });
    expect(created.text).not.toContain('000123456789');
    const id = String(created.body.id);
    expect(await usd(m)).toEqual({ available: 750, pending: 0, reserved: 250 });

    expect(await advanceTo(m, '2031-12-02T15:29:59.000Z')).toEqual([]);
    expect(await advanceTo(m, '2031-12-02T15:30:00.000Z')).toEqual([
      'transfer.submit@2031-12-02T15:30:00.000Z',
    ]);
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({
      state: 'submitted',
      submitted_at: '2031-12-02T15:30:00.000Z',
    });
    expect(await usd(m)).toEqual({ available: 750, pending: 0, reserved: 0 });

    expect(await advanceTo(m, '2031-12-03T13:30:00.000Z')).toEqual([
      'transfer.settle@2031-12-03T13:30:00.000Z',
    ]);
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({
      state: 'settled',
      settled_at: '2031-12-03T13:30:00.000Z',
    });
    expect(await eventTypes(m, id)).toEqual(['transfer.created', 'transfer.submitted', 'transfer.settled']);
    expect(await usd(m)).toEqual({ available: 750, pending: 0, reserved: 0 });
  });

  it('a Same-Day credit to 000111111113 settles 13:00 ET and returns R02 the next banking day, restoring the balance', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const created = await transfer(m, { rail: 'same_day_ach', direction: 'credit', account: '000111111113' });
    expect(created.body).toMatchObject({ expected_settlement_at: '2031-12-02T18:00:00.000Z' });
    const id = String(created.body.id);
    expect(await advanceTo(m, '2031-12-03T17:59:59.000Z')).toEqual([
      'transfer.submit@2031-12-02T15:30:00.000Z',
      'transfer.settle@2031-12-02T18:00:00.000Z',
    ]);
    expect(await usd(m)).toEqual({ available: 750, pending: 0, reserved: 0 });
    expect(await advanceTo(m, '2031-12-03T18:00:00.000Z')).toEqual([
      'transfer.return@2031-12-03T18:00:00.000Z',
    ]);
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({
      state: 'returned',
      returned_at: '2031-12-03T18:00:00.000Z',
      return_code: 'R02',
      return_reason: 'Account Closed',
    });
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    expect(await eventTypes(m, id)).toEqual([
      'transfer.created',
      'transfer.submitted',
      'transfer.settled',
      'transfer.returned',
    ]);
  });

  it('a debit from 000222222227: pending at submission, available at settlement, reversed by R01', async () => {
    const m = await merchantAt(TUESDAY_0900, '0');
    const id = String(
      (await transfer(m, { rail: 'same_day_ach', direction: 'debit', account: '000222222227' })).body.id,
    );
    expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 0 });
    await advanceTo(m, '2031-12-02T15:30:00.000Z');
    expect(await usd(m)).toEqual({ available: 0, pending: 250, reserved: 0 });
    await advanceTo(m, '2031-12-02T18:00:00.000Z');
    expect(await usd(m)).toEqual({ available: 250, pending: 0, reserved: 0 });
    await advanceTo(m, '2031-12-03T18:00:00.000Z');
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({
      state: 'returned',
      return_code: 'R01',
    });
    expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 0 });
  });

  it('an unauthorized-debit return of a PPD entry (000333333335, R10) comes 5 banking days after settlement', async () => {
    const m = await merchantAt(TUESDAY_0900, '0');
    const id = String(
      (await transfer(m, { rail: 'ach', direction: 'debit', sec_code: 'PPD', account: '000333333335' })).body
        .id,
    );
    // Settles Wednesday 08:30 ET; Thu 4, Fri 5, Mon 8, Tue 9, Wed 10 → Wednesday 2031-12-10 13:00 ET.
    expect(await advanceTo(m, '2031-12-10T17:59:59.000Z')).toEqual([
      'transfer.submit@2031-12-02T15:30:00.000Z',
      'transfer.settle@2031-12-03T13:30:00.000Z',
    ]);
    expect(await usd(m)).toEqual({ available: 250, pending: 0, reserved: 0 });
    expect(await advanceTo(m, '2031-12-10T18:00:00.000Z')).toEqual([
      'transfer.return@2031-12-10T18:00:00.000Z',
    ]);
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({
      state: 'returned',
      return_code: 'R10',
    });
    expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 0 });
  });

  it('cancel before submission releases the hold; the window then has nothing to submit', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const id = String((await transfer(m, { rail: 'ach', direction: 'credit' })).body.id);
    const canceled = await post(m, `/v1/transfers/${id}/cancel`);
    expect(canceled.body).toMatchObject({ state: 'canceled' });
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    await advanceTo(m, '2031-12-03T14:00:00.000Z');
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({
      state: 'canceled',
      submitted_at: null,
    });
    const again = await post(m, `/v1/transfers/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'invalid_state' } });
    expect(JSON.stringify(again.body)).toContain('canceled');
  });
});

describe('steps taken through the API before the rail', () => {
  it('an early submit, then a return before settlement: the window and the settlement have nothing left to do', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const id = String((await transfer(m, { rail: 'same_day_ach', direction: 'credit' })).body.id);
    expect((await post(m, `/v1/simulate/transfers/${id}/submit`)).body).toMatchObject({
      state: 'submitted',
      submitted_at: TUESDAY_0900,
    });
    expect(await usd(m)).toEqual({ available: 750, pending: 0, reserved: 0 });
    const returned = await post(m, `/v1/simulate/transfers/${id}/return`, { code: 'R04' });
    expect(returned.body).toMatchObject({ state: 'returned', return_code: 'R04', settled_at: null });
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    // The window (10:30 ET) and the settlement (13:00 ET) pass: their work finds nothing to do.
    expect(await advanceTo(m, '2031-12-03T18:00:00.000Z')).toEqual([
      'transfer.submit@2031-12-02T15:30:00.000Z',
      'transfer.settle@2031-12-02T18:00:00.000Z',
    ]);
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({ state: 'returned', settled_at: null });
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    expect(await eventTypes(m, id)).toEqual(['transfer.created', 'transfer.submitted', 'transfer.returned']);
  });

  it('a debit returned before it settles gives back its pending funds', async () => {
    const m = await merchantAt(TUESDAY_0900, '0');
    const id = String(
      (await transfer(m, { rail: 'ach', direction: 'debit', account: '000000000009' })).body.id,
    );
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({ expected_settlement_at: null });
    await post(m, `/v1/simulate/transfers/${id}/submit`);
    expect(await usd(m)).toEqual({ available: 0, pending: 250, reserved: 0 });
    await post(m, `/v1/simulate/transfers/${id}/return`);
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({
      state: 'returned',
      return_code: 'R01',
    });
    expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 0 });
  });
});

describe('concurrent credits against one balance', () => {
  it('20 credits of 100.00 on 1,000.00: exactly 10 are accepted, the balance never goes below zero', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        transfer(m, { rail: i % 2 ? 'rtp' : 'same_day_ach', direction: 'credit', amount: '100.00' }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 422)).toHaveLength(10);
    expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 1000 });
    expect((await get(m, '/v1/transfers?limit=100')).body.data).toHaveLength(10);
  });
});

describe('RTP', () => {
  const CHRISTMAS_0300 = '2031-12-25T08:00:00.000Z';

  it('at 03:00 ET on Christmas Day a credit completes within seconds', async () => {
    const m = await merchantAt(CHRISTMAS_0300);
    const created = await transfer(m, { rail: 'rtp', direction: 'credit', amount: '100.00' });
    expect(created.body).toMatchObject({ state: 'pending', sec_code: null });
    expect(await usd(m)).toEqual({ available: 900, pending: 0, reserved: 100 });
    const ran = await advanceTo(m, '2031-12-25T08:00:05.000Z');
    expect(ran).toHaveLength(1);
    const done = (await get(m, `/v1/transfers/${created.body.id}`)).body;
    expect(done).toMatchObject({ state: 'completed' });
    expect(
      new Date(String(done.settled_at)).getTime() - new Date(CHRISTMAS_0300).getTime(),
    ).toBeLessThanOrEqual(5000);
    expect(await usd(m)).toEqual({ available: 900, pending: 0, reserved: 0 });
  });

  it('routing 790000051 is rejected AC03 and the hold released; ACH refuses it at creation', async () => {
    const m = await merchantAt(CHRISTMAS_0300);
    const created = await transfer(m, { rail: 'rtp', direction: 'credit', routing: '790000051' });
    expect(created.status).toBe(200);
    await advanceTo(m, '2031-12-25T08:00:05.000Z');
    expect((await get(m, `/v1/transfers/${created.body.id}`)).body).toMatchObject({
      state: 'rejected',
      failure_reason: expect.stringMatching(/^AC03/),
    });
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    const ach = await transfer(m, { rail: 'ach', direction: 'debit', routing: '790000051' });
    expect(ach.status).toBe(400);
    expect(ach.body).toMatchObject({
      error: { code: 'routing_number_unreachable', param: 'counterparty.routing_number' },
    });
  });
});

describe('validation changes nothing', () => {
  it.each([
    [{ rail: 'rtp', direction: 'credit', amount: '10000000.01' }, 'amount_exceeds_rail_limit', 'amount'],
    [
      { rail: 'same_day_ach', direction: 'credit', amount: '1000000.01' },
      'amount_exceeds_rail_limit',
      'amount',
    ],
    [{ rail: 'ach', direction: 'debit', amount: '100000000.00' }, 'amount_exceeds_rail_limit', 'amount'],
    [{ rail: 'rtp', direction: 'debit' }, 'rail_direction_unsupported', 'direction'],
    [
      { rail: 'ach', direction: 'credit', routing: '021000022' },
      'invalid_routing_number',
      'counterparty.routing_number',
    ],
    [
      { rail: 'ach', direction: 'credit', account: '123' },
      'invalid_account_number',
      'counterparty.account_number',
    ],
    [{ rail: 'swift', direction: 'credit' }, 'parameter_invalid', 'rail'],
    [{ rail: 'ach', direction: 'credit', amount: '0.001' }, 'amount_invalid', 'amount'],
    [{ rail: 'rtp', direction: 'credit', sec_code: 'PPD' }, 'parameter_invalid', 'sec_code'],
  ] as const)('%j → 400 %s', async (fields, code, param) => {
    const m = await merchantAt(TUESDAY_0900, '1000000.00');
    const res = await transfer(m, fields);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code, param } });
    expect((await get(m, '/v1/transfers')).body.data).toEqual([]);
    expect((await get(m, '/v1/events?type=transfer.created')).body.data).toEqual([]);
    expect(await usd(m)).toEqual({ available: 1000000, pending: 0, reserved: 0 });
  });

  it('a credit over the available balance is 422 and creates nothing; the largest ACH is accepted', async () => {
    const m = await merchantAt(TUESDAY_0900, '100.00');
    const res = await transfer(m, { rail: 'ach', direction: 'credit', amount: '100.01' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: { code: 'insufficient_balance' } });
    expect((await get(m, '/v1/transfers')).body.data).toEqual([]);
    expect(await usd(m)).toEqual({ available: 100, pending: 0, reserved: 0 });
    expect((await transfer(m, { rail: 'ach', direction: 'debit', amount: '99999999.99' })).status).toBe(200);
  });
});

describe('every (state × step) pair', () => {
  const steps = ['submit', 'settle', 'return', 'cancel'] as const;
  const path = (id: string, step: string) =>
    step === 'cancel' ? `/v1/transfers/${id}/cancel` : `/v1/simulate/transfers/${id}/${step}`;
  const cases = stateStepCases(
    () => t,
    {
      steps,
      allowed: {
        pending: ['submit', 'cancel'],
        submitted: ['settle', 'return'],
        settled: ['return'],
        returned: [],
        canceled: [],
      },
      // From the account that stays submitted, so no due work moves the debit.
      reach: {
        pending: [],
        submitted: ['submit'],
        settled: ['submit', 'settle'],
        returned: ['submit', 'return'],
        canceled: ['cancel'],
      },
    },
    {
      create: async () => {
        const m = await merchantAt(TUESDAY_0900, '0');
        const res = await transfer(m, { rail: 'ach', direction: 'debit', account: '000000000009' });
        return { m, id: String(res.body.id) };
      },
      path,
      stateOf: async (m, id) => String((await get(m, `/v1/transfers/${id}`)).body.state),
    },
  );
  for (const c of cases) it(c.name, c.run);

  it('an RTP transfer has no ACH steps; a return code must be a Nacha code', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const rtp = String((await transfer(m, { rail: 'rtp', direction: 'credit' })).body.id);
    for (const step of steps) expect((await post(m, path(rtp, step))).status).toBe(409);
    const ach = String(
      (await transfer(m, { rail: 'ach', direction: 'debit', account: '000000000009' })).body.id,
    );
    await post(m, path(ach, 'submit'));
    const bad = await post(m, `/v1/simulate/transfers/${ach}/return`, { code: 'R48' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'parameter_invalid', param: 'code' } });
    const good = await post(m, `/v1/simulate/transfers/${ach}/return`, { code: 'R29' });
    expect(good.body).toMatchObject({ state: 'returned', return_code: 'R29' });
  });
});

describe('over GraphQL', () => {
  const FIELDS = `id kind state rail direction amount { amount currency } secCode expectedSubmissionAt
    expectedSettlementAt submittedAt settledAt returnCode returnReason counterparty { name accountNumberLast4 }
    timeline { state eventType }`;
  const gql = async (m: TestMerchant, query: string, variables: Json = {}) => {
    const res = await t.gql<Json>(query, variables, { key: m.secretKey });
    expect(res.errors).toBeUndefined();
    return res.data;
  };

  it('creates, steps and returns a transfer; typed errors; it is a Transaction', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const created = (
      await gql(
        m,
        `mutation($amount: Decimal!) {
        createTransfer(rail: same_day_ach, direction: debit, amount: $amount, currency: USD,
          counterparty: { name: "Payer", routingNumber: "${ROUTING}", accountNumber: "000000000009" }) {
          __typename
          ... on MutationCreateTransferSuccess { data { ${FIELDS} } }
          ... on SandbankError { code param }
        }
      }`,
        { amount: '42.00' },
      )
    ).createTransfer as { data: Json };
    expect(created.data).toMatchObject({
      kind: 'transfer',
      state: 'pending',
      rail: 'same_day_ach',
      amount: { amount: '42.00', currency: 'USD' },
      secCode: 'CCD',
      expectedSubmissionAt: '2031-12-02T15:30:00.000Z',
      expectedSettlementAt: null, // this account stays submitted until a step moves it
      counterparty: { name: 'Payer', accountNumberLast4: '0009' },
      timeline: [{ state: 'created', eventType: 'transfer.created' }],
    });
    const id = String(created.data.id);
    const step = (mutation: string, extra = '') =>
      gqlStep(() => t, m, id, mutation, 'state returnCode', extra);
    expect(await step('simulateTransferSubmit')).toMatchObject({ data: { state: 'submitted' } });
    expect(await step('cancelTransfer')).toMatchObject({
      __typename: 'SandbankError',
      code: 'invalid_state',
    });
    expect(await step('simulateTransferReturn', ', code: R29')).toMatchObject({
      data: { state: 'returned', returnCode: 'R29' },
    });
    const listed = await gql(
      m,
      `{ transactions(first: 5, kinds: [transfer]) { edges { node { __typename id state } } } }`,
    );
    expect(listed).toEqual({
      transactions: { edges: [{ node: { __typename: 'Transfer', id, state: 'returned' } }] },
    });
    const over = (
      await gql(
        m,
        `mutation { createTransfer(rail: rtp, direction: credit, amount: "10000000.01", currency: USD,
        counterparty: { name: "X", routingNumber: "${ROUTING}", accountNumber: "000123456789" }) {
        __typename ... on SandbankError { code param }
      } }`,
      )
    ).createTransfer;
    expect(over).toEqual({ __typename: 'SandbankError', code: 'amount_exceeds_rail_limit', param: 'amount' });
  });
});
