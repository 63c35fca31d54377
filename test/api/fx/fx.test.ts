/**
 * Foreign exchange over the API: rates that move with the merchant's clock, quotes that
 * lock and expire, conversions through the ledger, settlements to foreign accounts paid the next
 * US banking day. The pure arithmetic has its own property and table tests (fx.math.test.ts).
 * With TEST_DATABASE_URL the suite runs on 8 Postgres connections, so concurrent conversions of
 * one quote really race.
 *
 * Instants by hand: 2031-12-03 is a Wednesday (EST, UTC−5); 15:00Z is 10:00 ET. A settlement
 * created then is paid Thursday 2031-12-04 at 12:00 ET = 17:00Z. Friday 2031-12-05 → Monday
 * 2031-12-08 12:00 ET.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../../src/modules/ledger/ledger.queries.ts';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, openTestDatabase, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ database: await openTestDatabase({ connections: 8 }) });
});
afterAll(async () => {
  await t.close();
});

const { post, get, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const WEDNESDAY_1000 = '2031-12-03T15:00:00.000Z';
const THURSDAY_NOON = '2031-12-04T17:00:00.000Z';
const JP_ACCOUNT = {
  name: 'ヤマダ タロウ',
  bank_code: '0001',
  branch_code: '123',
  account_number: '1234567',
};
const DE_IBAN = { name: 'Lieferant GmbH', iban: 'DE89 3704 0044 0532 0130 00' };

/** A balance row (JSON numbers, exact for these amounts), or null when the currency was never touched. */
async function balance(m: TestMerchant, currency: string) {
  const res = await get(m, '/v1/balances');
  const row = (res.body.data as Json[]).find((b) => b.currency === currency);
  return row ? { available: Number(row.available), reserved: Number(row.reserved) } : null;
}

async function quote(m: TestMerchant, body: Json) {
  const res = await post(m, '/v1/fx/quotes', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Json & { id: string; rate: string; expires_at: string };
}

/** Exact decimal strings as scaled integers, for comparisons without floats. */
const scaled = (decimal: string, places = 10) => {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole + fraction.padEnd(places, '0'));
};

async function expectLedgerBalanced(m: TestMerchant) {
  const check = await verifyLedger(t.database.db, m.id);
  expect(check.mismatches).toEqual([]);
  for (const sum of Object.values(check.sums)) expect(sum).toBe(0n);
}

describe('rates', () => {
  it('are fixed for an instant and its hour, move with the next hour, and carry the 0.5% spread', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    const first = (await get(m, '/v1/fx/rates')).body;
    expect(first).toMatchObject({
      source_currency: 'USD',
      at: WEDNESDAY_1000,
      as_of: WEDNESDAY_1000,
      next_change_at: '2031-12-03T16:00:00.000Z',
      spread: '0.005',
    });
    const rates = first.rates as Json[];
    expect(rates.map((r) => r.target_currency)).toEqual(['EUR', 'GBP', 'JPY']);
    for (const r of rates) {
      const mid = scaled(String(r.mid_rate));
      const sell = scaled(String(r.rate));
      // sell = mid × 0.995 rounded down to 10 places: never above it, never a unit below it.
      expect(mid * 995n - sell * 1000n).toBeGreaterThanOrEqual(0n);
      expect(mid * 995n - sell * 1000n).toBeLessThan(1000n);
    }
    // Another merchant at the same instant sees the same rates; later in the hour too.
    const twin = await merchantAt(WEDNESDAY_1000, '0');
    expect((await get(twin, '/v1/fx/rates')).body.rates).toEqual(rates);
    await advanceTo(m, '2031-12-03T15:59:59.000Z');
    expect((await get(m, '/v1/fx/rates')).body.rates).toEqual(rates);
    await advanceTo(m, '2031-12-03T16:00:00.000Z');
    const next = (await get(m, '/v1/fx/rates')).body.rates as Json[];
    for (const [i, r] of next.entries()) expect(r.mid_rate).not.toBe(rates[i]?.mid_rate);
    // GraphQL says the same.
    const res = await t.gql<{ fxRates: Json }>(
      '{ fxRates { asOf spread rates { targetCurrency midRate rate } } }',
      {},
      { key: m.secretKey },
    );
    expect(res.data.fxRates).toEqual({
      asOf: '2031-12-03T16:00:00.000Z',
      spread: '0.005',
      rates: next.map((r) => ({ targetCurrency: r.target_currency, midRate: r.mid_rate, rate: r.rate })),
    });
  });
});

describe('rates at any instant', () => {
  it('?at= gives the rates of that hour, the same as the clock gives when it gets there', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    const later = (await get(m, '/v1/fx/rates?at=2031-12-04T09:30:00.000Z')).body;
    expect(later).toMatchObject({ at: '2031-12-04T09:30:00.000Z', as_of: '2031-12-04T09:00:00.000Z' });
    const earlier = (await get(m, '/v1/fx/rates?at=2031-12-02T09:30:00%2B01:00')).body;
    expect(earlier).toMatchObject({ as_of: '2031-12-02T08:00:00.000Z' });
    const bad = await get(m, '/v1/fx/rates?at=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { param: 'at' } });
    await advanceTo(m, '2031-12-04T09:00:00.000Z');
    expect((await get(m, '/v1/fx/rates')).body.rates).toEqual(later.rates);
    const res = await t.gql<{ fxRates: Json }>(
      '{ fxRates(at: "2031-12-04T09:59:59Z") { asOf rates { midRate } } }',
      {},
      { key: m.secretKey },
    );
    expect(res.data.fxRates).toEqual({
      asOf: '2031-12-04T09:00:00.000Z',
      rates: (later.rates as Json[]).map((r) => ({ midRate: r.mid_rate })),
    });
  });

  it('?at= takes instants of years 0000-9999 whose next hour is one too; further out it is 400 on at', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    const last = await get(m, '/v1/fx/rates?at=9999-12-31T22:59:59.999Z');
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ next_change_at: '9999-12-31T23:00:00.000Z' });
    const first = await get(m, '/v1/fx/rates?at=0000-01-01T00:00:00Z');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ at: '0000-01-01T00:00:00.000Z', as_of: '0000-01-01T00:00:00.000Z' });
    // Each of these is a valid ISO 8601 instant whose hour or next hour falls outside years 0000-9999.
    for (const at of ['9999-12-31T23:00:00Z', '9999-12-31T23:59:59-01:00', '0000-01-01T00:00:00%2B01:00']) {
      const res = await get(m, `/v1/fx/rates?at=${at}`);
      expect(res.status, at).toBe(400);
      expect(res.body, at).toMatchObject({ error: { code: 'parameter_invalid', param: 'at' } });
    }
    const gql = await t.gql('{ fxRates(at: "9999-12-31T23:30:00Z") { asOf } }', {}, { key: m.secretKey });
    expect(gql.errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid' });
  });
});

describe('the ledger under conversions (fast-check)', () => {
  const target = fc.constantFrom('EUR', 'GBP', 'JPY');
  const step = fc.oneof(
    fc.record({
      target,
      source_amount: fc.integer({ min: 100, max: 50_000 }).map((c) => (c / 100).toFixed(2)),
    }),
    fc.record({ target, target_amount: fc.integer({ min: 1, max: 5_000_000 }) }),
  );

  it('after every conversion each currency sums to zero and the balances moved by exactly the quoted amounts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), async (steps) => {
        const m = await merchantAt(WEDNESDAY_1000, '1000000.00');
        for (const { target: currency, ...amount } of steps) {
          const body =
            'target_amount' in amount
              ? {
                  target_amount:
                    currency === 'JPY' ? amount.target_amount : (amount.target_amount / 100).toFixed(2),
                }
              : amount;
          const q = await quote(m, { target_currency: currency, ...body });
          const before = { usd: await balance(m, 'USD'), target: await balance(m, currency) };
          const res = await post(m, '/v1/fx/conversions', { quote_id: q.id });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          await expectLedgerBalanced(m);
          const cents = (value: unknown) => Math.round(Number(value) * 100);
          const usd = await balance(m, 'USD');
          expect(cents(before.usd?.available) - cents(usd?.available)).toBe(cents(q.source_amount));
          const after = await balance(m, currency);
          const unit = currency === 'JPY' ? 1 : 100;
          expect(Math.round(((after?.available ?? 0) - (before.target?.available ?? 0)) * unit)).toBe(
            Math.round(Number(q.target_amount) * unit),
          );
        }
      }),
      { numRuns: 12 },
    );
  });
});

describe('quotes and conversions', () => {
  it('a quote locks the sell rate; its amounts have the currency’s minor units; conversion moves both balances', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '1000.00');
    const rates = (await get(m, '/v1/fx/rates')).body.rates as Json[];
    const jpy = rates.find((r) => r.target_currency === 'JPY');
    const q = await quote(m, { target_currency: 'JPY', source_amount: '100.00' });
    expect(q).toMatchObject({
      object: 'fx_quote',
      state: 'open',
      source_currency: 'USD',
      target_currency: 'JPY',
      sell_rate: jpy?.rate,
      mid_rate: jpy?.mid_rate,
      source_amount: 100,
      fixed_side: 'source',
      lock_duration: 'five_minutes',
      expires_at: '2031-12-03T15:05:00.000Z',
    });
    expect(Number.isInteger(q.target_amount)).toBe(true); // whole yen
    // The locked rate is the effective rate: 100.00 USD at it, half to even, is the target exactly,
    // and it differs from the sell rate by less than the half yen of the rounding.
    const locked = scaled(q.rate);
    expect((10_000n * locked) / 100n).toBeLessThan(
      BigInt(Number(q.target_amount)) * 10n ** 10n + 10n ** 10n / 2n,
    );
    expect(10_000n * locked).toBeGreaterThanOrEqual(BigInt(Number(q.target_amount)) * 10n ** 12n);
    const sell = scaled(String(jpy?.rate));
    const gap = locked > sell ? locked - sell : sell - locked;
    expect(gap * 100n * 2n).toBeLessThanOrEqual(10n ** 10n);
    const converted = await post(m, '/v1/fx/conversions', { quote_id: q.id, reference: 'to-yen' });
    expect(converted.status, JSON.stringify(converted.body)).toBe(200);
    expect(converted.body).toMatchObject({
      object: 'fx_conversion',
      state: 'completed',
      quote: q.id,
      source_amount: 100,
      target_currency: 'JPY',
      target_amount: q.target_amount,
      rate: q.rate,
    });
    expect(await balance(m, 'USD')).toEqual({ available: 900.0, reserved: 0.0 });
    expect(await balance(m, 'JPY')).toEqual({ available: Number(q.target_amount), reserved: 0 });
    expect((await get(m, `/v1/fx/quotes/${q.id}`)).body).toMatchObject({
      state: 'used',
      used_by: converted.body.id,
    });
    expect(await eventTypes(m, q.id)).toEqual(['fx_quote.created', 'fx_quote.used']);
    expect(await eventTypes(m, String(converted.body.id))).toEqual(['fx_conversion.completed']);
    await expectLedgerBalanced(m);

    const again = await post(m, '/v1/fx/conversions', { quote_id: q.id });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'quote_already_used', param: 'quote_id' } });
  });

  it('a target amount is bought exactly; the merchant pays at least target ÷ rate', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '1000.00');
    const q = await quote(m, { target_currency: 'EUR', target_amount: '250.00', lock_duration: 'hour' });
    expect(q).toMatchObject({
      target_amount: 250,
      fixed_side: 'target',
      expires_at: '2031-12-03T16:00:00.000Z',
    });
    const paid = scaled(String(q.source_amount), 2);
    const rate = scaled(q.rate);
    // paid (cents) × rate ≥ 250.00 EUR, and one cent less would not be.
    expect(paid * rate).toBeGreaterThanOrEqual(25_000n * 10n ** 10n);
    expect((paid - 1n) * rate).toBeLessThan(25_000n * 10n ** 10n);
    // The locked rate is the effective rate of those cents: never above the hour's sell rate.
    const rates = (await get(m, '/v1/fx/rates')).body.rates as Json[];
    const sell = scaled(String(rates.find((r) => r.target_currency === 'EUR')?.rate));
    expect(rate).toBeLessThanOrEqual(sell);
    const converted = await post(m, '/v1/fx/conversions', { quote_id: q.id });
    expect(converted.body).toMatchObject({ source_amount: q.source_amount, target_amount: 250 });
    expect(await balance(m, 'EUR')).toEqual({ available: 250, reserved: 0 });
  });

  it('quotes are listed newest first, by state', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '1000.00');
    const a = await quote(m, { target_currency: 'EUR', source_amount: 1 });
    const b = await quote(m, { target_currency: 'JPY', source_amount: 1 });
    await post(m, '/v1/fx/conversions', { quote_id: a.id });
    expect(((await get(m, '/v1/fx/quotes')).body.data as Json[]).map((q) => q.id)).toEqual([b.id, a.id]);
    expect(((await get(m, '/v1/fx/quotes?state=used')).body.data as Json[]).map((q) => q.id)).toEqual([a.id]);
    const listed = await t.gql<{ fxQuotes: { edges: { node: Json }[] } }>(
      '{ fxQuotes(state: open) { edges { node { id state } } } }',
      {},
      { key: m.secretKey },
    );
    expect(listed.data.fxQuotes.edges.map((e) => e.node)).toEqual([{ id: b.id, state: 'open' }]);
  });

  it('usable at expires_at − 1 s, refused at expires_at + 1 s; the expiry is an event', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '1000.00');
    const early = await quote(m, { target_currency: 'GBP', source_amount: 10 });
    const late = await quote(m, { target_currency: 'GBP', source_amount: 10 });
    await advanceTo(m, '2031-12-03T15:04:59.000Z');
    expect((await post(m, '/v1/fx/conversions', { quote_id: early.id })).status).toBe(200);
    const ran = await advanceTo(m, '2031-12-03T15:05:01.000Z');
    expect(ran).toContain(`fx.expire_quote@2031-12-03T15:05:00.000Z`);
    const refused = await post(m, '/v1/fx/conversions', { quote_id: late.id });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: { code: 'quote_expired', param: 'quote_id' } });
    expect((await get(m, `/v1/fx/quotes/${late.id}`)).body.state).toBe('expired');
    expect(await eventTypes(m, late.id)).toEqual(['fx_quote.created', 'fx_quote.expired']);
    expect(await balance(m, 'USD')).toEqual({ available: 990.0, reserved: 0.0 });
  });

  it('a conversion beyond the USD available is 422 and changes nothing (the quote stays open)', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '50.00');
    const q = await quote(m, { target_currency: 'EUR', source_amount: '50.01' });
    const res = await post(m, '/v1/fx/conversions', { quote_id: q.id });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: { code: 'insufficient_balance' } });
    expect((await get(m, `/v1/fx/quotes/${q.id}`)).body.state).toBe('open');
    expect(await balance(m, 'EUR')).toBeNull();
    expect((await get(m, '/v1/fx/conversions')).body.data).toEqual([]);
  });

  it.each([
    [{ target_currency: 'CHF', source_amount: 1 }, 'currency_unsupported', 'target_currency'],
    [{ target_currency: 'JPY' }, 'parameter_missing', 'source_amount'],
    [{ target_currency: 'JPY', source_amount: 1, target_amount: 1 }, 'parameter_invalid', 'source_amount'],
    [{ target_currency: 'JPY', target_amount: '10.5' }, 'amount_invalid', 'target_amount'],
    [{ target_currency: 'EUR', source_amount: '10000000.01' }, 'amount_invalid', 'source_amount'],
    [
      { target_currency: 'EUR', source_amount: 1, lock_duration: 'week' },
      'parameter_invalid',
      'lock_duration',
    ],
  ])('a bad quote request %j is 400 %s', async (body, code, param) => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    const res = await post(m, '/v1/fx/quotes', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code, param } });
  });

  it('a conversion takes a reference, a description and metadata; a bad reference is 400 and the quote stays open', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '100.00');
    const q = await quote(m, { target_currency: 'GBP', source_amount: 10 });
    const bad = await post(m, '/v1/fx/conversions', { quote_id: q.id, reference: '' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'reference_invalid', param: 'reference' } });
    expect((await get(m, `/v1/fx/quotes/${q.id}`)).body.state).toBe('open');
    const ok = await post(m, '/v1/fx/conversions', {
      quote_id: q.id,
      reference: 'treasury-7',
      description: 'Pounds for the London office',
      metadata: { desk: 'ops' },
    });
    expect(ok.body).toMatchObject({
      reference: 'treasury-7',
      description: 'Pounds for the London office',
      metadata: { desk: 'ops' },
    });
  });

  it('two concurrent conversions of one quote: exactly one succeeds', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '1000.00');
    const q = await quote(m, { target_currency: 'EUR', source_amount: '100.00' });
    const tries = await Promise.all(
      [1, 2, 3, 4].map(() => post(m, '/v1/fx/conversions', { quote_id: q.id })),
    );
    expect(tries.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect(await balance(m, 'USD')).toEqual({ available: 900.0, reserved: 0.0 });
    await expectLedgerBalanced(m);
  });
});

describe('settlements abroad', () => {
  it('USD → JPY to a Japanese account: converted at once, paid the next banking day at 12:00 ET', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '1000.00');
    const q = await quote(m, { target_currency: 'JPY', source_amount: '200.00' });
    const created = await post(m, '/v1/fx/settlements', {
      quote_id: q.id,
      destination: JP_ACCOUNT,
      reference: 'inv-7',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      object: 'fx_settlement',
      state: 'converted',
      funding: 'conversion',
      amount: q.target_amount,
      currency: 'JPY',
      source_amount: 200,
      rate: q.rate,
      destination: {
        type: 'jp_bank_account',
        name: 'ヤマダ タロウ',
        bank_code: '0001',
        branch_code: '123',
        last4: '4567',
      },
      expected_paid_at: THURSDAY_NOON,
      paid_at: null,
    });
    expect(JSON.stringify(created.body)).not.toContain('1234567');
    expect(await balance(m, 'USD')).toEqual({ available: 800.0, reserved: 0.0 });
    expect(await balance(m, 'JPY')).toEqual({ available: 0, reserved: Number(q.target_amount) });
    const ran = await advanceTo(m, THURSDAY_NOON);
    expect(ran).toContain(`fx.pay_settlement@${THURSDAY_NOON}`);
    expect((await get(m, `/v1/fx/settlements/${created.body.id}`)).body).toMatchObject({
      state: 'paid',
      paid_at: THURSDAY_NOON,
    });
    expect(await balance(m, 'JPY')).toEqual({ available: 0, reserved: 0 });
    expect(await eventTypes(m, String(created.body.id))).toEqual([
      'fx_settlement.created',
      'fx_settlement.converted',
      'fx_settlement.paid',
    ]);
    await expectLedgerBalanced(m);
  });

  it('from a EUR balance to an IBAN on a Friday: paid Monday; converted now with a target amount', async () => {
    const m = await merchantAt('2031-12-05T15:00:00.000Z', '1000.00');
    await post(m, '/v1/simulate/balance/top_up', { amount: '300.00', currency: 'EUR' });
    const fromBalance = await post(m, '/v1/fx/settlements', {
      currency: 'EUR',
      amount: '120.50',
      destination: DE_IBAN,
    });
    expect(fromBalance.status, JSON.stringify(fromBalance.body)).toBe(200);
    expect(fromBalance.body).toMatchObject({
      state: 'converted',
      funding: 'balance',
      quote: null,
      source_amount: null,
      amount: 120.5,
      destination: { type: 'iban', country: 'DE', last4: '3000' },
      expected_paid_at: '2031-12-08T17:00:00.000Z',
    });
    const convertedNow = await post(m, '/v1/fx/settlements', {
      target_currency: 'EUR',
      target_amount: '50.00',
      destination: DE_IBAN,
    });
    expect(convertedNow.body).toMatchObject({ state: 'converted', funding: 'conversion', amount: 50 });
    expect((await get(m, `/v1/fx/quotes/${convertedNow.body.quote}`)).body).toMatchObject({ state: 'used' });
    expect(await balance(m, 'EUR')).toEqual({ available: 179.5, reserved: 170.5 });
    await advanceTo(m, '2031-12-08T17:00:00.000Z');
    expect(await balance(m, 'EUR')).toEqual({ available: 179.5, reserved: 0.0 });
    const listed = (await get(m, '/v1/fx/settlements?state=paid')).body.data as Json[];
    expect(listed.map((s) => s.id)).toEqual([convertedNow.body.id, fromBalance.body.id]);
  });

  it('a EUR payout is a settlement out of the EUR balance; POST /v1/payouts stays USD and points there', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    await post(m, '/v1/simulate/balance/top_up', { amount: '80.00', currency: 'EUR' });
    const usdOnly = await post(m, '/v1/payouts', {
      amount: '80.00',
      currency: 'EUR',
      destination: { name: 'Me', routing_number: '110000000', account_number: '000123456789' },
    });
    expect(usdOnly.status).toBe(400);
    expect(usdOnly.body).toMatchObject({ error: { code: 'currency_unsupported', param: 'currency' } });
    expect(JSON.stringify(usdOnly.body)).toContain('/v1/fx/settlements');
    const payout = await post(m, '/v1/fx/settlements', {
      currency: 'EUR',
      amount: '80.00',
      destination: DE_IBAN,
    });
    expect(payout.body).toMatchObject({ state: 'converted', funding: 'balance', amount: 80 });
    expect(await balance(m, 'EUR')).toEqual({ available: 0, reserved: 80 });
  });

  it('the magic failing destination fails on the payment day; the money is back on the target balance', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '1000.00');
    const created = await post(m, '/v1/fx/settlements', {
      target_currency: 'JPY',
      source_amount: '10.00',
      destination: { ...JP_ACCOUNT, account_number: '9999999' },
    });
    expect(created.status).toBe(200);
    const yen = Number(created.body.amount);
    await advanceTo(m, THURSDAY_NOON);
    expect((await get(m, `/v1/fx/settlements/${created.body.id}`)).body).toMatchObject({
      state: 'failed',
      failed_at: THURSDAY_NOON,
      failure_code: 'AC04',
    });
    expect(await balance(m, 'JPY')).toEqual({ available: yen, reserved: 0 });
    expect(await eventTypes(m, String(created.body.id))).toEqual([
      'fx_settlement.created',
      'fx_settlement.converted',
      'fx_settlement.failed',
    ]);
  });

  it.each([
    [
      { currency: 'EUR', amount: 1, destination: { name: 'X', iban: 'DE89370400440532013001' } },
      'destination_invalid',
      'destination.iban',
    ],
    [
      { currency: 'JPY', amount: 1, destination: { ...JP_ACCOUNT, branch_code: '12' } },
      'destination_invalid',
      'destination.branch_code',
    ],
    [{ currency: 'GBP', destination: DE_IBAN }, 'parameter_missing', 'amount'],
    [{ destination: DE_IBAN }, 'parameter_missing', 'quote_id'],
    [{ currency: 'EUR', target_amount: 1, destination: DE_IBAN }, 'parameter_invalid', 'currency'],
    [
      { currency: 'EUR', amount: 1, destination: DE_IBAN, reference: 'inv 7' },
      'reference_invalid',
      'reference',
    ],
    [
      { currency: 'EUR', amount: 1, quote_id: 'fxq_x', destination: DE_IBAN },
      'parameter_invalid',
      'currency',
    ],
  ])('a bad settlement %j is 400 %s', async (body, code, param) => {
    const m = await merchantAt(WEDNESDAY_1000, '100.00');
    const res = await post(m, '/v1/fx/settlements', body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ error: { code, param } });
    expect((await get(m, '/v1/fx/settlements')).body.data).toEqual([]);
  });

  it('a JPY quote cannot pay an IBAN; a settlement beyond the balance is 422; neither writes anything', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '100.00');
    const q = await quote(m, { target_currency: 'JPY', source_amount: '10.00' });
    const wrong = await post(m, '/v1/fx/settlements', { quote_id: q.id, destination: DE_IBAN });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ error: { code: 'destination_invalid' } });
    const short = await post(m, '/v1/fx/settlements', {
      currency: 'GBP',
      amount: 5,
      destination: { name: 'Ltd', iban: 'GB29NWBK60161331926819' },
    });
    expect(short.status).toBe(422);
    expect((await get(m, `/v1/fx/quotes/${q.id}`)).body.state).toBe('open');
    expect((await get(m, '/v1/fx/settlements')).body.data).toEqual([]);
  });
});

describe('simulated steps of a settlement', () => {
  const create = async (m: TestMerchant) => {
    const res = await post(m, '/v1/fx/settlements', {
      target_currency: 'GBP',
      source_amount: '100.00',
      destination: { name: 'Ltd', iban: 'GB29NWBK60161331926819' },
    });
    expect(res.status).toBe(200);
    return res.body as Json & { id: string; amount: number };
  };

  it('pay now: paid before its payment day; the job then has nothing to do', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '1000.00');
    const s = await create(m);
    const paid = await post(m, `/v1/simulate/fx_settlements/${s.id}/pay`);
    expect(paid.body).toMatchObject({ state: 'paid', paid_at: WEDNESDAY_1000 });
    expect(await balance(m, 'GBP')).toEqual({ available: 0, reserved: 0 });
    await advanceTo(m, THURSDAY_NOON);
    expect(await eventTypes(m, s.id)).toEqual([
      'fx_settlement.created',
      'fx_settlement.converted',
      'fx_settlement.paid',
    ]);
    const again = await post(m, `/v1/simulate/fx_settlements/${s.id}/fail`, { code: 'XX99' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'invalid_state' } });
    await expectLedgerBalanced(m);
  });

  it('fail now with a reason: the amount is back on available; an unknown reason is 400', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '1000.00');
    const s = await create(m);
    const bad = await post(m, `/v1/simulate/fx_settlements/${s.id}/fail`, { code: 'ZZ01' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'parameter_invalid', param: 'code' } });
    const failed = await post(m, `/v1/simulate/fx_settlements/${s.id}/fail`, { code: 'BE01' });
    expect(failed.body).toMatchObject({ state: 'failed', failure_code: 'BE01' });
    expect(String(failed.body.failure_reason)).toMatch(/name does not match/);
    expect(await balance(m, 'GBP')).toEqual({ available: s.amount, reserved: 0 });
    const res = await t.gql<Json>(
      `mutation { simulateFxSettlementPay(id: "${s.id}") { __typename ... on SandbankError { code } } }`,
      {},
      { key: m.secretKey },
    );
    expect(res.data).toEqual({
      simulateFxSettlementPay: { __typename: 'SandbankError', code: 'invalid_state' },
    });
    expect((await post(m, '/v1/simulate/fx_settlements/fxs_nope/pay')).status).toBe(404);
  });
});

describe('over GraphQL', () => {
  it('quotes, converts and settles; conversions and settlements are Transactions', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '1000.00');
    const gql = async (query: string) => {
      const res = await t.gql<Json>(query, {}, { key: m.secretKey });
      expect(res.errors).toBeUndefined();
      return res.data as Record<string, Json>;
    };
    const created =
      await gql(`mutation { createFxQuote(targetCurrency: GBP, sourceAmount: "80.00", lockDuration: day) {
      __typename ... on MutationCreateFxQuoteSuccess { data { id state rate sourceAmount { amount } targetAmount { amount currency } expiresAt } } } }`);
    const q = created.createFxQuote?.data as Json & { id: string };
    expect(q).toMatchObject({
      state: 'open',
      sourceAmount: { amount: '80.00' },
      expiresAt: '2031-12-04T15:00:00.000Z',
    });
    const conversion = await gql(`mutation { createFxConversion(quoteId: "${q.id}") {
      __typename ... on MutationCreateFxConversionSuccess { data { id kind state amount { amount currency } targetAmount { amount currency } } } } }`);
    expect(conversion.createFxConversion?.data).toMatchObject({
      kind: 'fx_conversion',
      state: 'completed',
      amount: { amount: '80.00', currency: 'USD' },
      targetAmount: q.targetAmount,
    });
    const reused = await gql(`mutation { createFxConversion(quoteId: "${q.id}") {
      __typename ... on SandbankError { code param } } }`);
    expect(reused.createFxConversion).toEqual({
      __typename: 'SandbankError',
      code: 'quote_already_used',
      param: 'quote_id',
    });
    const settled = await gql(`mutation { createFxSettlement(targetCurrency: JPY, targetAmount: "5000",
      destination: { name: "Yamada Taro", bankCode: "0005", branchCode: "001", accountNumber: "7654321" }) {
      __typename ... on MutationCreateFxSettlementSuccess { data { id kind state amount { amount currency } destination { type last4 } } } } }`);
    expect(settled.createFxSettlement?.data).toMatchObject({
      kind: 'fx_settlement',
      state: 'converted',
      amount: { amount: '5000', currency: 'JPY' },
      destination: { type: 'jp_bank_account', last4: '4321' },
    });
    const nameless = await gql(`mutation { createFxSettlement(currency: JPY, amount: "1",
      destination: { bankCode: "0005", branchCode: "001", accountNumber: "7654321" }) {
      __typename ... on SandbankError { code param } } }`);
    expect(nameless.createFxSettlement).toEqual({
      __typename: 'SandbankError',
      code: 'destination_invalid',
      param: 'destination.name',
    });
    const listed = await gql(
      '{ transactions(kinds: [fx_conversion, fx_settlement]) { edges { node { kind } } } }',
    );
    expect(((listed.transactions?.edges ?? []) as Json[]).map((e) => (e.node as Json).kind)).toEqual([
      'fx_settlement',
      'fx_conversion',
    ]);
  });
});
