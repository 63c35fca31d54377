/**
 * Payouts of the merchant's available balance over the rail engine, driven by
 * each merchant's simulated clock. The instants are written out by hand: December 2031 is EST
 * (UTC−5); 2031-12-02 is a Tuesday; 2031-12-25 a Thursday (Christmas, a Fed holiday). The first
 * window closes 10:30 ET and settles 13:00 ET; standard ACH settles the next banking day at 08:30
 * ET; a magic account's return arrives at 13:00 ET the banking day after settlement.
 *
 * With TEST_DATABASE_URL the suite runs on a pool of 24 Postgres connections, so the concurrent
 * payouts really overlap; on PGlite they serialize, and the same outcome must hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupCommitStats } from '../../../src/db/commit.ts';
import { verifyLedger } from '../../../src/modules/ledger/ledger.queries.ts';
import { clockedMerchants, gqlStep, type Json, stateStepCases } from '../../support/clocked-merchant.ts';
import { createTestApp, openTestDatabase, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ database: await openTestDatabase({ connections: 24 }) });
});
afterAll(async () => {
  await t.close();
});

const { post, get, usd, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const ROUTING = '021000021';
const TUESDAY_0900 = '2031-12-02T14:00:00.000Z';

function payout(m: TestMerchant, fields: Json & { account?: string; routing?: string } = {}) {
  const { account = '000123456789', routing = ROUTING, ...rest } = fields;
  return post(m, '/v1/payouts', {
    amount: '300.00',
    currency: 'USD',
    destination: {
      name: 'Our operating account',
      routing_number: routing,
      account_number: account,
      account_type: 'checking',
    },
    ...rest,
  });
}

describe('a payout on the rails', () => {
  it('ACH: held at creation, in transit at the 10:30 ET cut-off, paid the next banking day at 08:30 ET', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const created = await payout(m, { method: 'ach', reference: 'weekly-1' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'payout',
      method: 'ach',
      state: 'pending',
      amount: 300,
      currency: 'USD',
      destination: {
        name: 'Our operating account',
        routing_number: ROUTING,
        account_number: '••••6789',
        account_type: 'checking',
      },
      expected_submission_at: '2031-12-02T15:30:00.000Z',
      arrival_at: '2031-12-03T13:30:00.000Z',
      in_transit_at: null,
      paid_at: null,
      failure_code: null,
      reference: 'weekly-1',
    });
    const id = String(created.body.id);
    expect(id).toMatch(/^po_/);
    expect(JSON.stringify(created.body)).not.toContain('000123456789');
    expect(await usd(m)).toEqual({ available: 700, pending: 0, reserved: 300 });

    expect(await advanceTo(m, '2031-12-02T15:29:59.999Z')).toEqual([]);
    expect(await advanceTo(m, '2031-12-02T15:30:00.000Z')).toEqual([
      'transfer.submit@2031-12-02T15:30:00.000Z',
    ]);
    expect((await get(m, `/v1/payouts/${id}`)).body).toMatchObject({
      state: 'in_transit',
      in_transit_at: '2031-12-02T15:30:00.000Z',
    });
    expect(await usd(m)).toEqual({ available: 700, pending: 0, reserved: 0 });

    expect(await advanceTo(m, '2031-12-03T13:30:00.000Z')).toEqual([
      'transfer.settle@2031-12-03T13:30:00.000Z',
    ]);
    expect((await get(m, `/v1/payouts/${id}`)).body).toMatchObject({
      state: 'paid',
      paid_at: '2031-12-03T13:30:00.000Z',
    });
    expect(await eventTypes(m, id)).toEqual(['payout.created', 'payout.in_transit', 'payout.paid']);
    // The balance transactions name the payout as their source: its hold, then the hold posted to the rail.
    const postings = (await get(m, '/v1/balance_transactions?limit=10')).body.data as Json[];
    expect(postings.filter((p) => (p.source as Json)?.id === id).map((p) => p.type)).toEqual([
      'hold_posted',
      'payout',
    ]);
    expect(await usd(m)).toEqual({ available: 700, pending: 0, reserved: 0 });
    // Nothing more happens to an ordinary account.
    expect(await advanceTo(m, '2031-12-20T00:00:00.000Z')).toEqual([]);
  });

  it('Same-Day ACH: in transit at 10:30 ET, paid at 13:00 ET the same day', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const created = await payout(m, { method: 'same_day_ach' });
    expect(created.body).toMatchObject({
      expected_submission_at: '2031-12-02T15:30:00.000Z',
      arrival_at: '2031-12-02T18:00:00.000Z',
    });
    await advanceTo(m, '2031-12-02T18:00:00.000Z');
    expect((await get(m, `/v1/payouts/${created.body.id}`)).body).toMatchObject({
      state: 'paid',
      in_transit_at: '2031-12-02T15:30:00.000Z',
      paid_at: '2031-12-02T18:00:00.000Z',
    });
  });

  it('an Idempotency-Key replays the payout instead of paying twice; another body with it is 422', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const send = (amount: string) =>
      t.rest<Json>('POST', '/v1/payouts', {
        key: m.secretKey,
        headers: { 'idempotency-key': 'payout-once' },
        body: {
          amount,
          currency: 'USD',
          method: 'ach',
          destination: {
            name: 'Ops',
            routing_number: ROUTING,
            account_number: '000123456789',
            account_type: 'checking',
          },
        },
      });
    const first = await send('300.00');
    const again = await send('300.00');
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const other = await send('301.00');
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error: { code: 'idempotency_key_reused' } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await get(m, '/v1/payouts')).body.data).toHaveLength(1);
    expect(await usd(m)).toEqual({ available: 700, pending: 0, reserved: 300 });
  });

  it('RTP at 03:00 ET on Christmas Day is paid two seconds later; routing 790000051 fails with AC03', async () => {
    const m = await merchantAt('2031-12-25T08:00:00.000Z');
    const paid = await payout(m, { method: 'rtp', amount: '10000000.00' });
    expect(paid.status).toBe(422); // over the balance, not over the limit
    expect(paid.body).toMatchObject({ error: { code: 'insufficient_balance' } });
    const created = await payout(m, { method: 'rtp' });
    // Instant: never in transit, arriving two seconds later.
    expect(created.body).toMatchObject({
      state: 'pending',
      in_transit_at: null,
      arrival_at: '2031-12-25T08:00:02.000Z',
    });
    const rejected = await payout(m, { method: 'rtp', routing: '790000051', amount: '100.00' });
    expect(rejected.status).toBe(200);
    expect(await usd(m)).toEqual({ available: 600, pending: 0, reserved: 400 });
    await advanceTo(m, '2031-12-25T08:00:02.000Z');
    expect((await get(m, `/v1/payouts/${created.body.id}`)).body).toMatchObject({
      state: 'paid',
      paid_at: '2031-12-25T08:00:02.000Z',
    });
    expect((await get(m, `/v1/payouts/${created.body.id}`)).body).toMatchObject({ in_transit_at: null });
    expect((await get(m, `/v1/payouts/${rejected.body.id}`)).body).toMatchObject({
      state: 'failed',
      failure_code: 'AC03',
      in_transit_at: null,
      arrival_at: null,
      paid_at: null,
    });
    expect(await eventTypes(m, String(created.body.id))).toEqual(['payout.created', 'payout.paid']);
    expect(await eventTypes(m, String(rejected.body.id))).toEqual(['payout.created', 'payout.failed']);
    // The failed payout's hold is released; the paid one left for the bank.
    expect(await usd(m)).toEqual({ available: 700, pending: 0, reserved: 0 });
    const over = await payout(m, { method: 'rtp', amount: '10000000.01' });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error: { code: 'amount_exceeds_rail_limit', param: 'amount' } });
  });

  it('a payout to 000111111113 is paid, then returned R02 at 13:00 ET the next banking day; the balance comes back', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const id = String((await payout(m, { method: 'ach', account: '000111111113' })).body.id);
    await advanceTo(m, '2031-12-03T13:30:00.000Z');
    expect((await get(m, `/v1/payouts/${id}`)).body.state).toBe('paid');
    expect(await usd(m)).toEqual({ available: 700, pending: 0, reserved: 0 });
    expect(await advanceTo(m, '2031-12-04T18:00:00.000Z')).toEqual([
      'transfer.return@2031-12-04T18:00:00.000Z',
    ]);
    expect((await get(m, `/v1/payouts/${id}`)).body).toMatchObject({
      state: 'returned',
      returned_at: '2031-12-04T18:00:00.000Z',
      failure_code: 'R02',
      failure_reason: 'Account Closed',
    });
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    expect(await eventTypes(m, id)).toEqual([
      'payout.created',
      'payout.in_transit',
      'payout.paid',
      'payout.returned',
    ]);
  });

  it('a payout to the debit-only R01 account is a credit, so it stays paid', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const id = String((await payout(m, { method: 'ach', account: '000222222227' })).body.id);
    await advanceTo(m, '2031-12-31T00:00:00.000Z');
    expect((await get(m, `/v1/payouts/${id}`)).body.state).toBe('paid');
  });

  it('a return while in transit fails the payout (R03 by default) and restores the balance', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const id = String((await payout(m, { method: 'ach' })).body.id);
    expect((await post(m, `/v1/simulate/payouts/${id}/submit`)).body.state).toBe('in_transit');
    const failed = await post(m, `/v1/simulate/payouts/${id}/return`);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ state: 'failed', failure_code: 'R03', paid_at: null });
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    // The window's submission and the settlement scheduled by the step find nothing to do.
    expect(await advanceTo(m, '2031-12-03T13:30:00.000Z')).toEqual([
      'transfer.submit@2031-12-02T15:30:00.000Z',
      'transfer.settle@2031-12-03T13:30:00.000Z',
    ]);
    expect((await get(m, `/v1/payouts/${id}`)).body.state).toBe('failed');
    expect(await eventTypes(m, id)).toEqual(['payout.created', 'payout.in_transit', 'payout.failed']);
  });

  it('cancel while pending releases the hold; not after', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const id = String((await payout(m)).body.id);
    const canceled = await post(m, `/v1/payouts/${id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.state).toBe('canceled');
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    expect(await advanceTo(m, '2031-12-02T15:30:00.000Z')).toEqual([
      'transfer.submit@2031-12-02T15:30:00.000Z',
    ]);
    expect((await get(m, `/v1/payouts/${id}`)).body.state).toBe('canceled');
    const later = String((await payout(m)).body.id);
    await advanceTo(m, '2031-12-02T19:45:00.000Z'); // the 14:45 ET window
    const refused = await post(m, `/v1/payouts/${later}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'invalid_state' } });
    expect(JSON.stringify(refused.body)).toContain('is in_transit');
  });
});

describe('bad input changes nothing', () => {
  it.each([
    [{ amount: '1000.01' }, 422, 'insufficient_balance', undefined],
    [{ currency: 'EUR' }, 400, 'currency_unsupported', 'currency'],
    [{ method: 'swift' }, 400, 'parameter_invalid', 'method'],
    [{ routing: '021000022' }, 400, 'invalid_routing_number', 'destination.routing_number'],
    [{ account: '12' }, 400, 'invalid_account_number', 'destination.account_number'],
    [{ routing: '790000051' }, 400, 'routing_number_unreachable', 'destination.routing_number'],
    [{ method: 'same_day_ach', amount: '1000000.01' }, 400, 'amount_exceeds_rail_limit', 'amount'],
    [{ amount: '-5' }, 400, 'amount_invalid', 'amount'],
    [{ direction: 'debit' }, 400, 'parameter_unknown', 'direction'],
  ] as const)('%j → %i %s', async (fields, status, code, param) => {
    const m = await merchantAt(TUESDAY_0900);
    const res = await payout(m, fields);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: { code, ...(param ? { param } : {}) } });
    expect((await get(m, '/v1/payouts')).body.data).toEqual([]);
    expect((await get(m, '/v1/events?type=payout.created')).body.data).toEqual([]);
    expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
  });

  it('payouts and transfers are separate lists; each id answers only on its own path and merchant', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const po = String((await payout(m, { amount: '10.00' })).body.id);
    const tr = String(
      (
        await post(m, '/v1/transfers', {
          rail: 'ach',
          direction: 'credit',
          amount: '20.00',
          currency: 'USD',
          counterparty: { name: 'Vendor', routing_number: ROUTING, account_number: '000123456789' },
        })
      ).body.id,
    );
    expect(((await get(m, '/v1/payouts')).body.data as Json[]).map((p) => p.id)).toEqual([po]);
    expect(((await get(m, '/v1/transfers')).body.data as Json[]).map((p) => p.id)).toEqual([tr]);
    expect((await get(m, `/v1/transfers/${po}`)).status).toBe(404);
    expect((await get(m, `/v1/payouts/${tr}`)).status).toBe(404);
    expect((await post(m, `/v1/simulate/payouts/${tr}/submit`)).status).toBe(404);
    expect((await get(m, '/v1/payouts?state=pending&method=ach')).body.data).toHaveLength(1);
    expect((await get(m, '/v1/payouts?state=paid')).body.data).toHaveLength(0);
    const other = await t.merchant();
    expect((await t.rest('GET', `/v1/payouts/${po}`, { key: other.secretKey })).status).toBe(404);
    expect((await t.rest('POST', `/v1/payouts/${po}/cancel`, { key: other.secretKey })).status).toBe(404);
  });
});

describe('every (state × step) pair of a payout', () => {
  /** What the balance is in each state: held, paid out, or back in available. */
  const balances: Record<string, Json> = {
    pending: { available: 700, reserved: 300 },
    in_transit: { available: 700, reserved: 0 },
    paid: { available: 700, reserved: 0 },
    failed: { available: 1000, reserved: 0 },
    returned: { available: 1000, reserved: 0 },
    canceled: { available: 1000, reserved: 0 },
  };
  const stateOf = async (m: TestMerchant, id: string) =>
    String((await get(m, `/v1/payouts/${id}`)).body.state);
  const cases = stateStepCases(
    () => t,
    {
      steps: ['submit', 'settle', 'return', 'cancel'],
      allowed: {
        pending: ['submit', 'cancel'],
        in_transit: ['settle', 'return'],
        paid: ['return'],
        failed: [],
        returned: [],
        canceled: [],
      },
      // To the account that stays in transit, so no due work moves the payout.
      reach: {
        pending: [],
        in_transit: ['submit'],
        paid: ['submit', 'settle'],
        failed: ['submit', 'return'],
        returned: ['submit', 'settle', 'return'],
        canceled: ['cancel'],
      },
    },
    {
      create: async () => {
        const m = await merchantAt(TUESDAY_0900);
        return { m, id: String((await payout(m, { account: '000000000009' })).body.id) };
      },
      path: (id, step) =>
        step === 'cancel' ? `/v1/payouts/${id}/cancel` : `/v1/simulate/payouts/${id}/${step}`,
      stateOf,
      check: async (m, id) => expect(await usd(m)).toMatchObject(balances[await stateOf(m, id)] ?? {}),
    },
  );
  for (const c of cases) it(c.name, c.run);
});

describe('concurrent payouts against one balance', () => {
  it('20 payouts of 100.00 against 1,000.00: exactly 10 are accepted and nothing is overdrawn', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => payout(m, { amount: '100.00', reference: `race-${i}` })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 422)).toHaveLength(10);
    for (const refused of results.filter((r) => r.status === 422)) {
      expect(refused.body).toMatchObject({ error: { code: 'insufficient_balance' } });
    }
    expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 1000 });
    expect((await get(m, '/v1/payouts?limit=100')).body.data).toHaveLength(10);
    await advanceTo(m, '2031-12-03T13:30:00.000Z');
    const listed = (await get(m, '/v1/payouts?limit=100')).body.data as Json[];
    expect(listed.map((p) => p.state)).toEqual(Array(10).fill('paid'));
    expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 0 });
    const check = await verifyLedger(t.database.db, m.id);
    expect(check.mismatches).toEqual([]);
    for (const sum of Object.values(check.sums)) expect(sum).toBe(0n);
  });

  it('payouts that arrive together and are all covered are written by one statement, holds and all', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const before = { ...groupCommitStats(t.database.db) };
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => payout(m, { amount: '10.00', reference: `batch-${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    const after = groupCommitStats(t.database.db);
    expect(after.statements).toBeGreaterThan(before.statements);
    expect(after.transactions).toBe(before.transactions);
    expect(after.retriedAlone).toBe(before.retriedAlone);
    expect(await usd(m)).toEqual({ available: 700, pending: 0, reserved: 300 });
    // Each payout's hold comes first, then the payout: the order the step-by-step path writes.
    const events = (await get(m, '/v1/events?limit=100')).body.data as Json[];
    for (const r of results) {
      const created = events.filter(
        (e) => e.type === 'payout.created' && ((e.data as Json).object as Json).id === r.body.id,
      );
      const held = events.filter(
        (e) =>
          e.type === 'balance_transaction.created' &&
          ((e.data as Json).object as { source: Json }).source.id === r.body.id,
      );
      expect(created).toHaveLength(1);
      expect(held).toHaveLength(1);
      expect(String(held[0]?.id) < String(created[0]?.id)).toBe(true);
    }
    const check = await verifyLedger(t.database.db, m.id);
    expect(check.mismatches).toEqual([]);
  });
});

describe('over GraphQL', () => {
  const gql = async (m: TestMerchant, query: string, variables: Json = {}) => {
    const res = await t.gql<Json>(query, variables, { key: m.secretKey });
    expect(res.errors).toBeUndefined();
    return res.data;
  };
  const FIELDS = `id kind state method amount { amount currency } destination { name accountNumberLast4 }
    expectedSubmissionAt arrivalAt inTransitAt paidAt failureCode timeline { state eventType }`;

  it('creates and steps a payout; typed errors; it is a Transaction', async () => {
    const m = await merchantAt(TUESDAY_0900, '50.00');
    const create = (amount: string) =>
      gql(
        m,
        `mutation($amount: Decimal!) {
          createPayout(amount: $amount, currency: USD, method: same_day_ach,
            destination: { name: "Ops", routingNumber: "${ROUTING}", accountNumber: "000000000009" }) {
            __typename
            ... on MutationCreatePayoutSuccess { data { ${FIELDS} } }
            ... on SandbankError { code param }
          }
        }`,
        { amount },
      );
    expect((await create('50.01')).createPayout).toEqual({
      __typename: 'SandbankError',
      code: 'insufficient_balance',
      param: null,
    });
    const created = (await create('50.00')).createPayout as { data: Json };
    expect(created.data).toMatchObject({
      kind: 'payout',
      state: 'pending',
      method: 'same_day_ach',
      amount: { amount: '50.00', currency: 'USD' },
      destination: { name: 'Ops', accountNumberLast4: '0009' },
      expectedSubmissionAt: '2031-12-02T15:30:00.000Z',
      arrivalAt: null, // this account stays in transit until a step moves it
      timeline: [{ state: 'created', eventType: 'payout.created' }],
    });
    const id = String(created.data.id);
    const step = (mutation: string, extra = '') =>
      gqlStep(() => t, m, id, mutation, 'state failureCode', extra);
    expect(await step('simulatePayoutSubmit')).toMatchObject({ data: { state: 'in_transit' } });
    expect(await step('cancelPayout')).toMatchObject({ __typename: 'SandbankError', code: 'invalid_state' });
    expect(await step('simulatePayoutSettle')).toMatchObject({ data: { state: 'paid' } });
    expect(await step('simulatePayoutReturn', ', code: R02')).toMatchObject({
      data: { state: 'returned', failureCode: 'R02' },
    });
    const listed = await gql(
      m,
      `{ payouts(first: 5) { edges { node { id state } } }
         transactions(first: 5, kinds: [payout]) { edges { node { __typename id kind state } } } }`,
    );
    expect(listed).toEqual({
      payouts: { edges: [{ node: { id, state: 'returned' } }] },
      transactions: { edges: [{ node: { __typename: 'Payout', id, kind: 'payout', state: 'returned' } }] },
    });
    const one = await gql(m, `{ payout(id: "${id}") { timeline { state } } transfer(id: "${id}") { id } }`);
    expect(one).toEqual({
      payout: {
        timeline: [{ state: 'created' }, { state: 'in_transit' }, { state: 'paid' }, { state: 'returned' }],
      },
      transfer: null,
    });
  });
});
