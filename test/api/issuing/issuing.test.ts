/**
 * Virtual cards and their authorizations, over REST and GraphQL, on each
 * merchant's simulated clock. Windows are calendar windows in UTC: 2031-12-01 is a Monday.
 * With TEST_DATABASE_URL the suite runs on 24 Postgres connections, so the concurrent
 * authorizations really overlap; on PGlite they serialize, and the same outcome must hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../../src/modules/ledger/ledger.queries.ts';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, openTestDatabase, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ database: await openTestDatabase({ connections: 24 }) });
});
afterAll(async () => {
  await t.close();
});

const { post, get, usd, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const WEDNESDAY = '2031-12-03T15:00:00.000Z';
const COFFEE = { name: 'Blue Bottle', mcc: '5814' };
const CASINO = { name: 'Lucky Star', mcc: '7995' };

async function issue(m: TestMerchant, fields: Json = {}) {
  const res = await post(m, '/v1/virtual_cards', {
    brand: 'visa',
    cardholder_name: 'Ada Lovelace',
    ...fields,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Json & { id: string; number: string; cvc: string };
}

async function authorize(m: TestMerchant, card: string, amount: string, merchant = COFFEE) {
  const res = await post(m, `/v1/simulate/virtual_cards/${card}/authorizations`, { amount, merchant });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Json & { id: string; state: string };
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

describe('issuing a virtual card', () => {
  it('gives a unique Luhn-valid number of the brand, a CVC and three years; the number only where asked', async () => {
    const m = await merchantAt(WEDNESDAY);
    const visa = await issue(m, { metadata: { team: 'ops' } });
    const mastercard = await issue(m, { brand: 'mastercard' });
    expect(visa).toMatchObject({
      object: 'virtual_card',
      brand: 'visa',
      state: 'active',
      exp_month: 12,
      exp_year: 2034,
      cardholder_name: 'Ada Lovelace',
      spending_controls: { limits: [], allowed_mccs: null, blocked_mccs: [] },
      metadata: { team: 'ops' },
    });
    expect(visa.number).toMatch(/^4\d{15}$/);
    expect(mastercard.number).toMatch(/^5[1-5]\d{14}$/);
    for (const card of [visa, mastercard]) {
      expect(luhnValid(card.number)).toBe(true);
      expect(card.cvc).toMatch(/^\d{3}$/);
      expect(card.last4).toBe(card.number.slice(-4));
    }
    expect(visa.number).not.toBe(mastercard.number);
    expect(['4242424242424242', '5555555555554444']).not.toContain(visa.number);

    const got = (await get(m, `/v1/virtual_cards/${visa.id}`)).body;
    const listed = (await get(m, '/v1/virtual_cards')).body;
    const events = (await get(m, '/v1/events?limit=100')).body;
    for (const body of [got, listed, events]) {
      expect(JSON.stringify(body)).not.toContain(visa.number);
      expect(JSON.stringify(body)).not.toContain(`"cvc"`);
    }
    expect(got).toMatchObject({ id: visa.id, last4: visa.last4 });
    expect((await get(m, `/v1/virtual_cards/${visa.id}/details`)).body).toMatchObject({
      number: visa.number,
      cvc: visa.cvc,
      exp_month: 12,
      exp_year: 2034,
    });
    expect(await eventTypes(m, visa.id)).toEqual(['virtual_card.created']);
    const other = await t.merchant();
    expect(
      (await t.rest('GET', `/v1/virtual_cards/${visa.id}/details`, { key: other.secretKey })).status,
    ).toBe(404);
  });

  it.each([
    [{ brand: 'amex' }, 'parameter_invalid', 'brand'],
    [
      { spending_controls: { blocked_mccs: ['799'] } },
      'parameter_invalid',
      'spending_controls.blocked_mccs.0',
    ],
    [
      { spending_controls: { allowed_mccs: ['0000'] } },
      'parameter_invalid',
      'spending_controls.allowed_mccs.0',
    ],
    [{ spending_controls: { limits: [{ amount: 10, interval: 'hourly' }] } }, 'parameter_invalid', undefined],
    [{ spending_controls: { limits: [{ amount: 0, interval: 'daily' }] } }, 'amount_invalid', undefined],
    [{ pan: '4242' }, 'parameter_unknown', 'pan'],
  ] as const)('%j → 400 %s, nothing issued', async (fields, code, param) => {
    const m = await merchantAt(WEDNESDAY);
    const res = await post(m, '/v1/virtual_cards', { brand: 'visa', cardholder_name: 'A', ...fields });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code, ...(param ? { param } : {}) } });
    expect((await get(m, '/v1/virtual_cards')).body.data).toEqual([]);
  });

  it('freezes, unfreezes and cancels (final); each change is an event', async () => {
    const m = await merchantAt(WEDNESDAY);
    const card = await issue(m);
    const update = (body: Json) => post(m, `/v1/virtual_cards/${card.id}`, body);
    expect((await update({ state: 'frozen' })).body.state).toBe('frozen');
    expect((await update({ state: 'active' })).body.state).toBe('active');
    const limited = await update({ spending_controls: { limits: [{ amount: 25, interval: 'daily' }] } });
    expect(limited.body.spending_controls).toEqual({
      limits: [{ amount: 25, interval: 'daily' }],
      allowed_mccs: null,
      blocked_mccs: [],
    });
    expect((await update({ state: 'canceled' })).body.state).toBe('canceled');
    for (const body of [{ state: 'active' }, { state: 'frozen' }, { metadata: { a: 'b' } }]) {
      const refused = await update(body);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: { code: 'invalid_state' } });
    }
    expect(await eventTypes(m, card.id)).toEqual([
      'virtual_card.created',
      'virtual_card.frozen',
      'virtual_card.active',
      'virtual_card.updated',
      'virtual_card.canceled',
    ]);
  });
});

describe('decline reasons and their precedence', () => {
  // Each row sets up a card where its reason and every reason after it apply; the first must win.
  const cases = [
    ['card_canceled', '14', { state: 'canceled' }],
    ['card_frozen', '62', { state: 'frozen' }],
    ['card_expired', '54', { expired: true }],
    ['mcc_blocked', '57', {}],
    ['mcc_not_allowed', '57', { unblock: true }],
    ['spending_limit_exceeded', '61', { unblock: true, allowCasino: true }],
    ['insufficient_funds', '51', { unblock: true, allowCasino: true, noLimit: true }],
  ] as const;

  for (const [reason, iso, setup] of cases) {
    it(`${reason} (${iso}) wins over everything after it`, async () => {
      const m = await merchantAt(WEDNESDAY, '40.00');
      const card = await issue(m, {
        spending_controls: {
          limits: 'noLimit' in setup ? [] : [{ amount: 50, interval: 'daily' }],
          allowed_mccs: 'allowCasino' in setup ? ['7995'] : ['5814'],
          blocked_mccs: 'unblock' in setup ? [] : ['7995'],
        },
      });
      if ('state' in setup) {
        if (setup.state === 'canceled') await post(m, `/v1/virtual_cards/${card.id}`, { state: 'frozen' });
        expect((await post(m, `/v1/virtual_cards/${card.id}`, { state: setup.state })).status).toBe(200);
      }
      if ('expired' in setup) await advanceTo(m, '2035-01-01T00:00:00.000Z'); // after 12/2034
      // 60.00 at a casino: over the daily 50.00, over the 40.00 balance.
      const auth = await authorize(m, card.id, '60.00', CASINO);
      expect(auth).toMatchObject({
        state: 'declined',
        approved: false,
        decline_reason: reason,
        decline_interval: reason === 'spending_limit_exceeded' ? 'daily' : null,
        network_response_code: iso,
      });
      expect(await usd(m)).toMatchObject({ available: 40, reserved: 0 });
      expect(await eventTypes(m, auth.id)).toEqual(['issuing_authorization.declined']);
    });
  }

  it('the narrowest limit is named when several trip', async () => {
    const m = await merchantAt(WEDNESDAY);
    const card = await issue(m, {
      spending_controls: {
        limits: [
          { amount: 100, interval: 'monthly' },
          { amount: 20, interval: 'per_authorization' },
          { amount: 50, interval: 'daily' },
        ],
      },
    });
    expect(await authorize(m, card.id, '120.00')).toMatchObject({ decline_interval: 'per_authorization' });
    expect(await authorize(m, card.id, '20.00')).toMatchObject({ state: 'approved' });
    expect(await authorize(m, card.id, '20.00')).toMatchObject({ state: 'approved' });
    expect(await authorize(m, card.id, '20.00')).toMatchObject({ decline_interval: 'daily' });
  });
});

describe('limits reset with their UTC calendar windows on the clock', () => {
  const windows = [
    ['daily at 00:00 UTC', 'daily', '2031-12-03T23:59:59.000Z', '2031-12-04T00:00:00.000Z'],
    ['weekly on Monday 00:00 UTC', 'weekly', '2031-12-07T23:59:59.000Z', '2031-12-08T00:00:00.000Z'],
    ['monthly on the 1st', 'monthly', '2031-12-31T23:59:59.000Z', '2032-01-01T00:00:00.000Z'],
    ['yearly on 1 January', 'yearly', '2031-12-31T23:59:59.000Z', '2032-01-01T00:00:00.000Z'],
  ] as const;
  for (const [name, interval, lastSecond, reset] of windows) {
    it(name, async () => {
      const m = await merchantAt(lastSecond);
      const card = await issue(m, { spending_controls: { limits: [{ amount: 50, interval }] } });
      expect((await authorize(m, card.id, '30.00')).state).toBe('approved');
      expect(await authorize(m, card.id, '30.00')).toMatchObject({
        state: 'declined',
        decline_reason: 'spending_limit_exceeded',
        decline_interval: interval,
      });
      await advanceTo(m, reset);
      expect((await authorize(m, card.id, '30.00')).state).toBe('approved');
    });
  }

  it('a weekly window that began last month still counts its spend next to a monthly limit', async () => {
    // 2031-10-01 is a Wednesday: the week began on Monday 2031-09-29.
    const m = await merchantAt('2031-09-29T12:00:00.000Z');
    const card = await issue(m, {
      spending_controls: {
        limits: [
          { amount: 500, interval: 'monthly' },
          { amount: 50, interval: 'weekly' },
        ],
      },
    });
    expect((await authorize(m, card.id, '40.00')).state).toBe('approved');
    await advanceTo(m, '2031-10-01T12:00:00.000Z');
    expect(await authorize(m, card.id, '20.00')).toMatchObject({
      state: 'declined',
      decline_interval: 'weekly',
    });
  });

  it('a reversal frees the limit; an expiry 7 days later frees it; a refund does not', async () => {
    const m = await merchantAt(WEDNESDAY);
    const card = await issue(m, { spending_controls: { limits: [{ amount: 50, interval: 'all_time' }] } });
    const first = await authorize(m, card.id, '50.00');
    expect((await authorize(m, card.id, '10.00')).state).toBe('declined');
    const reversed = await post(m, `/v1/simulate/issuing_authorizations/${first.id}/reverse`, { amount: 20 });
    expect(reversed.body).toMatchObject({ state: 'approved', amount_reversed: 20 });
    expect(await usd(m)).toMatchObject({ available: 970, reserved: 30 });
    const second = await authorize(m, card.id, '20.00');
    expect(second.state).toBe('approved');
    expect((await authorize(m, card.id, '0.01')).state).toBe('declined');
    // 7 days of clock time: both expire, their holds are released, the limit is free again.
    await advanceTo(m, '2031-12-10T15:00:00.000Z');
    expect((await get(m, `/v1/issuing_authorizations/${first.id}`)).body.state).toBe('expired');
    expect(await usd(m)).toMatchObject({ available: 1000, reserved: 0 });
    const third = await authorize(m, card.id, '50.00');
    expect(third.state).toBe('approved');
    expect((await post(m, `/v1/simulate/issuing_authorizations/${third.id}/capture`)).body.state).toBe(
      'captured',
    );
    expect((await post(m, `/v1/simulate/issuing_authorizations/${third.id}/refund`)).body).toMatchObject({
      amount_refunded: 50,
    });
    expect(await usd(m)).toMatchObject({ available: 1000, reserved: 0 });
    expect((await authorize(m, card.id, '0.01')).state).toBe('declined');
    expect(await eventTypes(m, first.id)).toEqual([
      'issuing_authorization.approved',
      'issuing_authorization.reversed',
      'issuing_authorization.expired',
    ]);
  });
});

describe('funding through the ledger', () => {
  it('holds on approval, captures a different amount, refunds in part; the ledger balances', async () => {
    const m = await merchantAt(WEDNESDAY, '100.00');
    const card = await issue(m);
    const auth = await authorize(m, card.id, '40.00');
    expect(await usd(m)).toEqual({ available: 60, pending: 0, reserved: 40 });
    const captured = await post(m, `/v1/simulate/issuing_authorizations/${auth.id}/capture`, {
      amount: 46.5,
    });
    expect(captured.body).toMatchObject({ state: 'captured', amount_captured: 46.5 });
    expect(await usd(m)).toEqual({ available: 53.5, pending: 0, reserved: 0 });
    const refund = await post(m, `/v1/simulate/issuing_authorizations/${auth.id}/refund`, { amount: 6.5 });
    expect(refund.body).toMatchObject({ state: 'captured', amount_refunded: 6.5 });
    expect(await usd(m)).toEqual({ available: 60, pending: 0, reserved: 0 });
    const over = await post(m, `/v1/simulate/issuing_authorizations/${auth.id}/refund`, { amount: 40.01 });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error: { code: 'amount_invalid', param: 'amount' } });
    expect((await authorize(m, card.id, '60.01')).decline_reason).toBe('insufficient_funds');
    const check = await verifyLedger(t.database.db, m.id);
    expect(check.mismatches).toEqual([]);
    for (const sum of Object.values(check.sums)) expect(sum).toBe(0n);
  });

  it('a capture beyond the largest authorization is 400, not a server error', async () => {
    const m = await merchantAt(WEDNESDAY, '100.00');
    const auth = await authorize(m, (await issue(m)).id, '10.00');
    const huge = await post(m, `/v1/simulate/issuing_authorizations/${auth.id}/capture`, {
      amount: '99999999999999999999.99',
    });
    expect(huge.status).toBe(400);
    expect(huge.body).toMatchObject({ error: { code: 'amount_invalid', param: 'amount' } });
    expect((await get(m, `/v1/issuing_authorizations/${auth.id}`)).body.state).toBe('approved');
    expect(await usd(m)).toEqual({ available: 90, pending: 0, reserved: 10 });
  });

  it('a partial reverse keeps the rest held even when an over-capture took available below zero', async () => {
    const m = await merchantAt(WEDNESDAY, '100.00');
    const card = await issue(m);
    const first = await authorize(m, card.id, '50.00');
    const second = await authorize(m, card.id, '50.00');
    // Clearing 80.00 on a 50.00 authorization: the issuer pays it, available goes to −30.
    await post(m, `/v1/simulate/issuing_authorizations/${second.id}/capture`, { amount: 80 });
    expect(await usd(m)).toEqual({ available: -30, pending: 0, reserved: 50 });
    const reversed = await post(m, `/v1/simulate/issuing_authorizations/${first.id}/reverse`, { amount: 10 });
    expect(reversed.status, JSON.stringify(reversed.body)).toBe(200);
    expect(reversed.body).toMatchObject({ state: 'approved', amount_reversed: 10 });
    expect(await usd(m)).toEqual({ available: -20, pending: 0, reserved: 40 });
  });

  it('every (state × step) pair: allowed steps succeed, others 409', async () => {
    const m = await merchantAt(WEDNESDAY);
    const card = await issue(m, { spending_controls: { blocked_mccs: ['7995'] } });
    const reach = async (state: string) => {
      if (state === 'declined') return (await authorize(m, card.id, '1.00', CASINO)).id;
      const id = (await authorize(m, card.id, '1.00')).id;
      if (state === 'captured') await post(m, `/v1/simulate/issuing_authorizations/${id}/capture`);
      if (state === 'reversed') await post(m, `/v1/simulate/issuing_authorizations/${id}/reverse`);
      return id;
    };
    const allowed: Record<string, string[]> = {
      approved: ['capture', 'reverse'],
      captured: ['refund'],
      reversed: [],
      declined: [],
    };
    for (const [state, ok] of Object.entries(allowed)) {
      for (const step of ['capture', 'reverse', 'refund']) {
        const id = await reach(state);
        expect((await get(m, `/v1/issuing_authorizations/${id}`)).body.state).toBe(state);
        const res = await post(m, `/v1/simulate/issuing_authorizations/${id}/${step}`);
        expect(res.status, `${state} × ${step}`).toBe(ok.includes(step) ? 200 : 409);
        if (!ok.includes(step)) expect(JSON.stringify(res.body)).toContain(`is ${state}`);
      }
    }
  });
});

describe('concurrent authorizations', () => {
  it('20 at once against a daily limit that fits exactly 5 approve exactly 5; the hold is their sum', async () => {
    const m = await merchantAt(WEDNESDAY);
    const card = await issue(m, { spending_controls: { limits: [{ amount: 50, interval: 'daily' }] } });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        post(m, `/v1/simulate/virtual_cards/${card.id}/authorizations`, {
          amount: '10.00',
          merchant: COFFEE,
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const approved = results.filter((r) => r.body.state === 'approved');
    expect(approved).toHaveLength(5);
    for (const declined of results.filter((r) => r.body.state === 'declined')) {
      expect(declined.body).toMatchObject({
        decline_reason: 'spending_limit_exceeded',
        decline_interval: 'daily',
      });
    }
    expect(await usd(m)).toEqual({ available: 950, pending: 0, reserved: 50 });
    const listed = await get(m, `/v1/virtual_cards/${card.id}/authorizations?limit=100`);
    expect(listed.body.data).toHaveLength(20);
  });
});

describe('over GraphQL', () => {
  it('issues, reads details, authorizes, captures; an authorization is a Transaction', async () => {
    const m = await merchantAt(WEDNESDAY);
    const gql = async (query: string) => {
      const res = await t.gql<Json>(query, {}, { key: m.secretKey });
      expect(res.errors).toBeUndefined();
      return res.data;
    };
    const created = (
      (await gql(`mutation { createVirtualCard(brand: mastercard, cardholderName: "Grace",
        spendingControls: { limits: [{ amount: "25.00", interval: daily }], blockedMccs: ["7995"] }) {
        __typename ... on MutationCreateVirtualCardSuccess { data { id number cvc card { brand last4 state
          spendingControls { limits { amount { amount } interval } blockedMccs } } } } } }`)) as Record<
        string,
        { data: Json & { id: string; number: string; card: Json } }
      >
    ).createVirtualCard;
    expect(created?.data.card).toEqual({
      brand: 'mastercard',
      last4: created?.data.number.slice(-4),
      state: 'active',
      spendingControls: {
        limits: [{ amount: { amount: '25.00' }, interval: 'daily' }],
        blockedMccs: ['7995'],
      },
    });
    const id = created?.data.id;
    const auth = (await gql(`mutation { simulateIssuingAuthorization(virtualCardId: "${id}", amount: "20.00",
      merchantName: "Cafe", merchantMcc: "5814") { __typename
      ... on MutationSimulateIssuingAuthorizationSuccess { data { id state merchantCategory networkResponseCode } } } }`)) as Record<
      string,
      { data: Json }
    >;
    expect(auth.simulateIssuingAuthorization?.data).toMatchObject({
      state: 'approved',
      merchantCategory: 'Fast Food Restaurants',
      networkResponseCode: '00',
    });
    const authId = String(auth.simulateIssuingAuthorization?.data.id);
    const declined =
      (await gql(`mutation { simulateIssuingAuthorization(virtualCardId: "${id}", amount: "10.00",
      merchantName: "Cafe", merchantMcc: "5814") { ... on MutationSimulateIssuingAuthorizationSuccess {
      data { state declineReason declineInterval } } } }`)) as Record<string, { data: Json }>;
    expect(declined.simulateIssuingAuthorization?.data).toEqual({
      state: 'declined',
      declineReason: 'spending_limit_exceeded',
      declineInterval: 'daily',
    });
    const captured = (await gql(`mutation { captureIssuingAuthorization(id: "${authId}", amount: "18.00") {
      ... on MutationCaptureIssuingAuthorizationSuccess { data { state amountCaptured { amount } } } } }`)) as Record<
      string,
      { data: Json }
    >;
    expect(captured.captureIssuingAuthorization?.data).toEqual({
      state: 'captured',
      amountCaptured: { amount: '18.00' },
    });
    const badMcc = (await gql(`mutation { simulateIssuingAuthorization(virtualCardId: "${id}", amount: "1",
      merchantName: "X", merchantMcc: "12") { __typename ... on SandbankError { code param } } }`)) as Json;
    expect(badMcc.simulateIssuingAuthorization).toEqual({
      __typename: 'SandbankError',
      code: 'parameter_invalid',
      param: 'merchant.mcc',
    });
    const listed = await gql(`{ transactions(first: 5, kinds: [issuing_authorization]) {
      edges { node { __typename kind state } } }
      virtualCard(id: "${id}") { authorizations(first: 5) { edges { node { state } } } }
      details: virtualCardDetails(id: "${id}") { number } }`);
    expect(listed).toEqual({
      transactions: {
        edges: [
          { node: { __typename: 'IssuingAuthorization', kind: 'issuing_authorization', state: 'declined' } },
          { node: { __typename: 'IssuingAuthorization', kind: 'issuing_authorization', state: 'captured' } },
        ],
      },
      virtualCard: {
        authorizations: { edges: [{ node: { state: 'declined' } }, { node: { state: 'captured' } }] },
      },
      details: { number: created?.data.number },
    });
  });
});
