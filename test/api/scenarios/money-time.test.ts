import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../../src/db/events.table.ts';
import { fedHolidayClosures, nyInstant } from '../../../src/kernel/calendar.ts';
import { FixedClock, systemClock } from '../../../src/kernel/clock.ts';
import { runDueWork } from '../../../src/modules/clock/clock.service.ts';
import { createCollection } from '../../../src/modules/collections/collections.service.ts';
import {
  createTestApp,
  PUBLIC_URL,
  TEST_SERVICES,
  type TestApp,
  type TestMerchant,
} from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, unknown>;

async function usd(m: TestMerchant) {
  const res = await t.rest<{ data: Json[] }>('GET', '/v1/balances', { key: m.secretKey });
  expect(res.status).toBe(200);
  return res.body.data.find((b) => b.currency === 'USD');
}

async function clockNow(m: TestMerchant): Promise<Date> {
  return new Date(String((await t.get(m, '/v1/clock')).body.now));
}

/** The Wednesday before the first Thanksgiving that is at least ten days ahead of real time, 12:00 ET. */
function thanksgivingEveNoon(): Date {
  for (let year = systemClock.now().getUTCFullYear(); ; year++) {
    const thanksgiving = fedHolidayClosures(year).find(
      (d) => d.slice(5, 7) === '11' && Number(d.slice(8)) >= 22,
    );
    if (!thanksgiving) continue;
    const eve = new Date(`${thanksgiving}T12:00:00Z`);
    eve.setUTCDate(eve.getUTCDate() - 1);
    const noon = nyInstant(eve.toISOString().slice(0, 10), '12:00');
    if (noon.getTime() > systemClock.now().getTime() + 10 * 86_400_000) return noon;
  }
}

describe('the simulated clock', () => {
  it('starts at real time, freezes, advances exactly, unfreezes and resets', async () => {
    const m = await t.merchant();
    const start = await t.get(m, '/v1/clock');
    expect(start.body).toMatchObject({ status: 'success', object: 'clock', frozen: false, offset_ms: 0 });
    expect(Math.abs(Date.parse(String(start.body.now)) - Date.now())).toBeLessThan(5000);

    const frozen = await t.post(m, '/v1/clock/freeze');
    expect(frozen.body.frozen).toBe(true);
    const at = String(frozen.body.now);
    expect((await t.get(m, '/v1/clock')).body.now).toBe(at);

    const advanced = await t.post(m, '/v1/clock/advance', { seconds: 3600 });
    expect(advanced.status).toBe(200);
    expect(advanced.body.now).toBe(new Date(Date.parse(at) + 3_600_000).toISOString());
    const to = new Date(Date.parse(at) + 86_400_000).toISOString();
    expect((await t.post(m, '/v1/clock/advance', { to })).body.now).toBe(to);

    const running = await t.post(m, '/v1/clock/unfreeze');
    expect(running.body.frozen).toBe(false);
    expect(Number(running.body.offset_ms)).toBeGreaterThan(86_000_000);
    const reset = await t.post(m, '/v1/clock/reset');
    expect(reset.body).toMatchObject({ frozen: false, offset_ms: 0 });
  });

  it('only moves forward and validates its input', async () => {
    const m = await t.merchant();
    const back = await t.post(m, '/v1/clock/advance', { to: new Date(Date.now() - 60_000).toISOString() });
    expect(back.status).toBe(400);
    expect(back.body).toMatchObject({ error: { code: 'clock_backwards', param: 'to' } });
    for (const body of [
      {},
      { seconds: 10, to: new Date().toISOString() },
      { seconds: -5 },
      { seconds: 1.5 },
      { to: 'tomorrow' },
    ]) {
      const res = await t.post(m, '/v1/clock/advance', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((res.body.error as Json).code).toBe('parameter_invalid');
    }
    expect((await t.get(m, '/v1/clock')).body.offset_ms).toBe(0);
  });

  it('expires an unpaid collection when the clock passes expires_at, once', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    await t.post(m, '/v1/collect', { amount: 10, currency: 'USD', reference: 'soon', expires_in: 1800 });
    const early = await t.post(m, '/v1/clock/advance', { seconds: 1799 });
    expect(early.body.ran).toEqual([]);
    expect((await t.get(m, '/v1/collections/soon')).body.state).toBe('pending');
    const passed = await t.post(m, '/v1/clock/advance', { seconds: 1 });
    expect(passed.body.ran).toEqual([expect.objectContaining({ kind: 'collection.expire', state: 'done' })]);
    const collection = await t.get(m, '/v1/collections/soon');
    expect(collection.body.state).toBe('expired');
    const expiredEvents = await t.database.db
      .select()
      .from(events)
      .where(and(eq(events.merchantId, m.id), eq(events.type, 'collection.expired')));
    expect(expiredEvents).toHaveLength(1);
    expect(expiredEvents[0]?.createdAt.toISOString()).toBe(collection.body.expires_at);
    expect((await t.post(m, '/v1/clock/advance', { seconds: 86_400 })).body.ran).toEqual([]);
  });

  it('runs due work in due-time order, exactly once, including work scheduled inside the window', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    for (const [reference, seconds] of [
      ['c', 5400],
      ['a', 1800],
      ['b', 3600],
    ] as const) {
      await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference, expires_in: seconds });
    }
    // A card payment schedules its funds release inside the same long advance.
    await t.post(m, '/v1/collect', { amount: 7, currency: 'USD', reference: 'paid' });
    await t.post(m, '/v1/simulate/collections/paid/pay', {
      method: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    const ran = (await t.post(m, '/v1/clock/advance', { seconds: 10 * 86_400 })).body.ran as Json[];
    const dueTimes = ran.map((job) => String(job.due_at));
    expect(dueTimes).toEqual([...dueTimes].sort());
    // Four expiry jobs: the paid collection's runs too and leaves it succeeded.
    expect(ran.filter((job) => job.kind === 'collection.expire')).toHaveLength(4);
    for (const reference of ['a', 'b', 'c'])
      expect((await t.get(m, `/v1/collections/${reference}`)).body.state).toBe('expired');
    expect((await t.get(m, '/v1/collections/paid')).body.state).toBe('succeeded');
    expect(ran.filter((job) => job.kind === 'ledger.funds_available')).toHaveLength(1);
    expect(ran.every((job) => job.state === 'done')).toBe(true);
    expect((await t.post(m, '/v1/clock/advance', { seconds: 10 * 86_400 })).body.ran).toEqual([]);
    expect(await usd(m)).toMatchObject({ available: 7, pending: 0 });
  });

  it('two concurrent advances of one clock add up and never run work twice', async () => {
    const m = await t.merchant();
    const start = Date.parse(String((await t.post(m, '/v1/clock/freeze')).body.now));
    for (let i = 1; i <= 6; i++) {
      await t.post(m, '/v1/collect', {
        amount: 1,
        currency: 'USD',
        reference: `x${i}`,
        expires_in: 1800 * i,
      });
    }
    const [one, two] = await Promise.all([
      t.post(m, '/v1/clock/advance', { seconds: 3 * 3600 }),
      t.post(m, '/v1/clock/advance', { seconds: 3 * 3600 }),
    ]);
    expect([one.status, two.status]).toEqual([200, 200]);
    const ids = [...(one.body.ran as Json[]), ...(two.body.ran as Json[])].map((job) => job.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(6);
    expect((await clockNow(m)).getTime()).toBe(start + 6 * 3_600_000);
  });

  it("advancing one merchant's clock never moves another's objects", async () => {
    const a = await t.merchant('A');
    const b = await t.merchant('B');
    await t.post(b, '/v1/collect', { amount: 1, currency: 'USD', reference: 'mine', expires_in: 1800 });
    const ran = await t.post(a, '/v1/clock/advance', { seconds: 7 * 86_400 });
    expect(ran.body.ran).toEqual([]);
    expect((await t.get(b, '/v1/collections/mine')).body.state).toBe('pending');
    expect((await t.get(b, '/v1/clock')).body.offset_ms).toBe(0);
  });

  it('the background runner does work that fell due in real time', async () => {
    const m = await t.merchant();
    const past = new FixedClock(new Date(Date.now() - 3600_000));
    await createCollection(
      {
        db: t.database.db,
        clock: past,
        merchant: { id: m.id, name: m.name },
        publicUrl: PUBLIC_URL,
        ...TEST_SERVICES,
      },
      { amount: 3, currency: 'USD', reference: 'stale', expires_in: 1800 },
    );
    const before = await t.database.db
      .select()
      .from(events)
      .where(and(eq(events.merchantId, m.id), eq(events.type, 'collection.expired')));
    expect(before).toHaveLength(0);
    expect(
      await runDueWork({ db: t.database.db, publicUrl: PUBLIC_URL, ...TEST_SERVICES }),
    ).toBeGreaterThanOrEqual(1);
    const after = await t.database.db
      .select()
      .from(events)
      .where(and(eq(events.merchantId, m.id), eq(events.type, 'collection.expired')));
    expect(after).toHaveLength(1);
  });
});

describe('card money moves from pending to available two banking days later', () => {
  it('across Thanksgiving and a weekend, by the banking calendar', async () => {
    const m = await t.merchant();
    const eve = thanksgivingEveNoon();
    await t.post(m, '/v1/clock/freeze');
    expect((await t.post(m, '/v1/clock/advance', { to: eve.toISOString() })).status).toBe(200);
    await t.post(m, '/v1/collect', { amount: '125.50', currency: 'USD', reference: 'turkey' });
    const paid = await t.post(m, '/v1/simulate/collections/turkey/pay', {
      method: 'card',
      card: { number: '5555555555554444', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    expect(paid.status).toBe(200);
    expect(await usd(m)).toMatchObject({ available: 0, pending: 125.5, reserved: 0 });
    // Thursday is Thanksgiving, so the banking days are Friday and Monday: available Monday 00:00 ET.
    const friday = new Date(eve.getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
    const monday = new Date(eve.getTime() + 5 * 86_400_000).toISOString().slice(0, 10);
    const releaseAt = nyInstant(monday, '00:00');
    const justBefore = new Date(releaseAt.getTime() - 1000).toISOString();
    const releases = (res: { body: Json }) =>
      (res.body.ran as Json[]).filter((job) => job.kind === 'ledger.funds_available');
    expect(
      releases(await t.post(m, '/v1/clock/advance', { to: nyInstant(friday, '23:00').toISOString() })),
    ).toEqual([]);
    expect(releases(await t.post(m, '/v1/clock/advance', { to: justBefore }))).toEqual([]);
    expect(await usd(m)).toMatchObject({ available: 0, pending: 125.5 });
    const released = await t.post(m, '/v1/clock/advance', { seconds: 1 });
    expect(released.body.ran).toEqual([
      expect.objectContaining({ kind: 'ledger.funds_available', due_at: releaseAt.toISOString() }),
    ]);
    expect(await usd(m)).toMatchObject({ available: 125.5, pending: 0, reserved: 0 });

    const txns = await t.rest<{ data: Json[] }>('GET', '/v1/balance_transactions', { key: m.secretKey });
    expect(txns.body.data.map((row) => row.type)).toEqual(['funds_available', 'card_payment']);
    expect(txns.body.data[1]).toMatchObject({
      pending: 125.5,
      available: 0,
      source: { type: 'card_payment' },
    });
    expect(txns.text).toContain('"pending":125.50');
  });
});

describe('balances and top-ups', () => {
  it('tops up, lists balance transactions and keeps USD always present', async () => {
    const m = await t.merchant();
    expect(await usd(m)).toEqual({
      object: 'balance',
      currency: 'USD',
      available: 0,
      pending: 0,
      reserved: 0,
    });
    const top = await t.post(m, '/v1/simulate/balance/top_up', { amount: '100.50', currency: 'USD' });
    expect(top.status).toBe(200);
    expect(top.body).toMatchObject({
      object: 'balance_transaction',
      type: 'top_up',
      available: 100.5,
      state: 'posted',
    });
    await t.post(m, '/v1/simulate/balance/top_up', { amount: 5000, currency: 'JPY' });
    const balances = await t.rest<{ data: Json[] }>('GET', '/v1/balances', { key: m.secretKey });
    expect(balances.body.data.map((b) => b.currency)).toEqual(['USD', 'JPY']);
    expect(balances.text).toContain('"available":100.50');
    expect(balances.text).toContain('"available":5000,');
    const jpyOnly = await t.rest<{ data: Json[] }>('GET', '/v1/balance_transactions?currency=JPY', {
      key: m.secretKey,
    });
    expect(jpyOnly.body.data).toHaveLength(1);
    for (const [body, code] of [
      [{ amount: '1.5', currency: 'JPY' }, 'amount_invalid'],
      [{ amount: 0, currency: 'USD' }, 'amount_invalid'],
      [{ amount: 10_000_000.01, currency: 'USD' }, 'amount_invalid'],
      [{ amount: 1, currency: 'CHF' }, 'currency_unsupported'],
      [{ amount: 1, currency: 'USD', extra: 1 }, 'parameter_unknown'],
    ] as const) {
      const res = await t.post(m, '/v1/simulate/balance/top_up', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((res.body.error as Json).code).toBe(code);
    }
    expect(await usd(m)).toMatchObject({ available: 100.5 });
  });

  it('over GraphQL: balances, balanceTransactions, topUpBalance, clock and advanceClock', async () => {
    const m = await t.merchant();
    const top = await t.gql<{ topUpBalance: Json }>(
      'mutation { topUpBalance(amount: "20.25", currency: USD) { __typename ... on MutationTopUpBalanceSuccess { data { type available { amount } } } } }',
      {},
      { key: m.secretKey },
    );
    expect(top.data.topUpBalance).toEqual({
      __typename: 'MutationTopUpBalanceSuccess',
      data: { type: 'top_up', available: { amount: '20.25' } },
    });
    const bad = await t.gql<{ topUpBalance: Json }>(
      'mutation { topUpBalance(amount: "1.001", currency: USD) { __typename ... on SandbankError { code } } }',
      {},
      { key: m.secretKey },
    );
    expect(bad.data.topUpBalance).toEqual({ __typename: 'SandbankError', code: 'amount_invalid' });
    const read = await t.gql<{
      balances: Json[];
      balanceTransactions: { edges: { node: Json }[] };
      clock: Json;
    }>(
      '{ balances { currency available { amount } } balanceTransactions(first: 5) { edges { node { type sourceType } } } clock { frozen } }',
      {},
      { key: m.secretKey },
    );
    expect(read.data.balances).toEqual([{ currency: 'USD', available: { amount: '20.25' } }]);
    expect(read.data.balanceTransactions.edges).toEqual([{ node: { type: 'top_up', sourceType: 'top_up' } }]);
    expect(read.data.clock).toEqual({ frozen: false });
    const frozen = await t.gql<{ freezeClock: { data: { now: string } } }>(
      'mutation { freezeClock { ... on MutationFreezeClockSuccess { data { now } } } }',
      {},
      { key: m.secretKey },
    );
    const at = Date.parse(frozen.data.freezeClock.data.now);
    const moved = await t.gql<{ advanceClock: { data: { now: string } } }>(
      'mutation { advanceClock(seconds: 60) { ... on MutationAdvanceClockSuccess { data { now } } } }',
      {},
      { key: m.secretKey },
    );
    expect(Date.parse(moved.data.advanceClock.data.now)).toBe(at + 60_000);
    const backwards = await t.gql<{ advanceClock: Json }>(
      'mutation { advanceClock(to: "2001-01-01T00:00:00.000Z") { ... on SandbankError { code } } }',
      {},
      { key: m.secretKey },
    );
    expect(backwards.data.advanceClock).toEqual({ code: 'clock_backwards' });
  });
});

describe('advancing the clock with an Idempotency-Key', () => {
  it('answers (no self-deadlock on the keyed transaction) and replays', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    await t.post(m, '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/unused' });
    await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference: 'keyed-advance' });
    const send = () =>
      t.rest<Json>('POST', '/v1/clock/advance', {
        key: m.secretKey,
        body: { seconds: 60 },
        headers: { 'idempotency-key': 'adv-1' },
      });
    const first = await send();
    expect(first.status).toBe(200);
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.now).toBe(first.body.now);
  });
});
