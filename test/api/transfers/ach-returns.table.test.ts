/**
 * Every Nacha return code of reference/ach_return_codes.json through the real REST simulate step,
 * on a debit and on a credit (of an SEC code the code applies to), with the simulated clock, and
 * the consumer and corporate codes on the other entry classes: refused codes answer 400
 * return_code_not_allowed naming why (and change nothing); allowed codes are accepted at the last
 * instant of their time frame and refused one second later with 409 return_deadline_passed naming
 * the deadline, unless `untimely: true` lets the return arrive marked untimely.
 *
 * The expectations are written out by hand from docs/guide/bank-transfers.md's "Return rules", not read
 * from the code: every entry settles Tuesday 2031-12-02 09:00 EST (14:00Z). Nacha has a return reach
 * the originating bank by the opening of business (08:30 ET) of the 2nd banking day after the
 * settlement date — Thursday 12-04 — and an extended (unauthorized) return by the opening of
 * business of the banking day after the 60th calendar day — Saturday 2032-01-31, so Monday 02-02.
 * The operator and edit codes' 1 banking day ends with Wednesday 12-03; R06 and R31 have no deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import returnCodes from '../../../reference/ach_return_codes.json' with { type: 'json' };
import {
  checkReturn,
  returnDeadlineOf,
  returnRule,
} from '../../../src/modules/transfers/transfers.returns.ts';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { expectLedgerBalanced } from '../../support/ledger.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const { post, get, usd, merchantAt, advanceTo } = clockedMerchants(() => t);

const SETTLED = '2031-12-02T14:00:00.000Z'; // Tuesday 09:00 EST

type Expectation =
  | { allowed: false; because: RegExp }
  | { allowed: true; direction: 'debit' | 'credit' | 'both'; lastInstant: string | null };

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `R${String(from + i).padStart(2, '0')}`);

const REFUSED: Record<string, RegExp> = {
  ...Object.fromEntries(
    ['R21', 'R22', 'R30', 'R33', 'R35', 'R36', 'R37', 'R38', 'R39'].map((c) => [c, /entry class/]),
  ),
  ...Object.fromEntries(range(40, 47).map((c) => [c, /\(ENR\)/])),
  ...Object.fromEntries(range(50, 53).map((c) => [c, /\(RCK\)/])),
  ...Object.fromEntries(['R61', 'R62', 'R67', 'R68', 'R69', 'R70'].map((c) => [c, /dishonor/])),
  ...Object.fromEntries(range(71, 77).map((c) => [c, /contest/])),
  ...Object.fromEntries(range(80, 85).map((c) => [c, /\(IAT\)/])),
};
const DEBIT_ONLY = ['R01', 'R05', 'R07', 'R08', 'R09', 'R10', 'R11', 'R29'];
const CREDIT_ONLY = ['R23'];
const SIXTY_DAYS = ['R05', 'R07', 'R10', 'R11'];
const NEXT_FILE = ['R13', 'R18', 'R19', 'R25', 'R26', 'R27', 'R28'];
const NO_DEADLINE = ['R06', 'R31'];
/** Consumer-account codes (PPD, WEB) and corporate ones (CCD); every other code returns all three. */
const CONSUMER_ONLY = ['R07', 'R10', 'R11'];
const CORPORATE_ONLY = ['R05', 'R29'];
/** The SEC code each code's entry is made with below: one the code applies to. */
const secFor = (code: string) => (CONSUMER_ONLY.includes(code) ? 'PPD' : 'CCD');

function expected(code: string): Expectation {
  const because = REFUSED[code];
  if (because) return { allowed: false, because };
  const direction = DEBIT_ONLY.includes(code) ? 'debit' : CREDIT_ONLY.includes(code) ? 'credit' : 'both';
  const lastInstant = NO_DEADLINE.includes(code)
    ? null
    : SIXTY_DAYS.includes(code)
      ? '2032-02-02T13:29:59.000Z' // 60th day Saturday 01-31 → Monday 2032-02-02 08:29:59 EST
      : NEXT_FILE.includes(code)
        ? '2031-12-04T04:59:59.000Z' // Wednesday 12-03 23:59:59 EST
        : '2031-12-04T13:29:59.000Z'; // Thursday 12-04 08:29:59 EST (opening of business 08:30)
  return { allowed: true, direction, lastInstant };
}

const plusOneSecond = (iso: string) => new Date(Date.parse(iso) + 1000).toISOString();

/** A settled ACH entry of the direction (a credit is funded), settled at the merchant's clock. */
async function settledEntry(
  m: TestMerchant,
  direction: 'debit' | 'credit',
  secCode = 'CCD',
): Promise<string> {
  const created = await post(m, '/v1/transfers', {
    rail: 'ach',
    sec_code: secCode,
    direction,
    amount: '10.00',
    currency: 'USD',
    counterparty: { name: 'Counterparty', routing_number: '021000021', account_number: '000123456789' },
  });
  expect(created.status).toBe(200);
  const id = String(created.body.id);
  expect((await post(m, `/v1/simulate/transfers/${id}/submit`)).status).toBe(200);
  const settled = await post(m, `/v1/simulate/transfers/${id}/settle`);
  expect(settled.body).toMatchObject({ state: 'settled', settled_at: SETTLED });
  return id;
}

const expectLedgerSumsToZero = (m: TestMerchant) => expectLedgerBalanced(t.database.db, m.id);

const returnOf = (m: TestMerchant, id: string, body: Json) =>
  post(m, `/v1/simulate/transfers/${id}/return`, body);

describe('every return code of the reference, on the simulate return step', () => {
  it('the reference has the codes this table classifies', () => {
    expect(returnCodes.codes.length).toBe(70); // R01-R47, R50-R53, R61-R62, R67-R77, R80-R85
  });

  for (const { code, title } of returnCodes.codes) {
    const e = expected(code);
    for (const direction of ['debit', 'credit'] as const) {
      const fits = e.allowed && (e.direction === 'both' || e.direction === direction);
      const name = !e.allowed
        ? `${code} on a ${direction}: refused (${e.because.source})`
        : !fits
          ? `${code} on a ${direction}: refused, ${e.direction}s only`
          : e.lastInstant
            ? `${code} on a ${direction}: accepted at ${e.lastInstant}, refused a second later`
            : `${code} on a ${direction}: accepted a year later (no deadline)`;
      it(name, async () => {
        const m = await merchantAt(SETTLED);
        const first = await settledEntry(m, direction, secFor(code));
        if (!e.allowed || !fits) {
          const before = await usd(m);
          const res = await returnOf(m, first, { code });
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({ error: { code: 'return_code_not_allowed', param: 'code' } });
          const message = String((res.body.error as Json).message);
          expect(message).toContain(code);
          expect(message).toMatch(e.allowed ? new RegExp(`returns ${e.direction}s only`) : e.because);
          expect((await get(m, `/v1/transfers/${first}`)).body).toMatchObject({ state: 'settled' });
          expect(await usd(m)).toEqual(before);
          return;
        }
        if (e.lastInstant === null) {
          await advanceTo(m, '2032-12-02T14:00:00.000Z');
          const res = await returnOf(m, first, { code });
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({ state: 'returned', return_code: code, return_untimely: false });
          await expectLedgerSumsToZero(m);
          return;
        }
        const second = await settledEntry(m, direction, secFor(code));
        await advanceTo(m, e.lastInstant);
        const inTime = await returnOf(m, first, { code });
        expect(inTime.status).toBe(200);
        expect(inTime.body).toMatchObject({
          state: 'returned',
          return_code: code,
          return_reason: title,
          return_untimely: false,
          returned_at: e.lastInstant,
        });
        const deadline = plusOneSecond(e.lastInstant);
        await advanceTo(m, deadline);
        const before = await usd(m);
        const late = await returnOf(m, second, { code });
        expect(late.status).toBe(409);
        expect(late.body).toMatchObject({ error: { code: 'return_deadline_passed', deadline } });
        expect(String((late.body.error as Json).message)).toContain(deadline);
        expect((await get(m, `/v1/transfers/${second}`)).body).toMatchObject({ state: 'settled' });
        expect(await usd(m)).toEqual(before);
        const untimely = await returnOf(m, second, { code, untimely: true });
        expect(untimely.status).toBe(200);
        expect(untimely.body).toMatchObject({ state: 'returned', return_code: code, return_untimely: true });
        await expectLedgerSumsToZero(m);
      });
    }
  }

  it('consumer codes return PPD and WEB debits only, corporate ones CCD only: 400 naming the SEC code', async () => {
    const m = await merchantAt(SETTLED);
    const entries = {
      PPD: await settledEntry(m, 'debit', 'PPD'),
      WEB: await settledEntry(m, 'debit', 'WEB'),
      CCD: await settledEntry(m, 'debit', 'CCD'),
    };
    const before = await usd(m);
    const wrong: Array<[string, keyof typeof entries]> = [
      ...CONSUMER_ONLY.map((code): [string, keyof typeof entries] => [code, 'CCD']),
      ...CORPORATE_ONLY.flatMap(
        (code): Array<[string, keyof typeof entries]> => [
          [code, 'PPD'],
          [code, 'WEB'],
        ],
      ),
    ];
    for (const [code, sec] of wrong) {
      const res = await returnOf(m, entries[sec], { code });
      expect(res.status, `${code} on ${sec}`).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'return_code_not_allowed', param: 'code' } });
      const message = String((res.body.error as Json).message);
      expect(message).toContain(code);
      expect(message).toContain(`this entry is ${sec}`);
    }
    expect(await usd(m)).toEqual(before);
    for (const id of Object.values(entries))
      expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({ state: 'settled' });
    // The same codes on entries they apply to.
    expect((await returnOf(m, entries.WEB, { code: 'R10' })).body).toMatchObject({ return_code: 'R10' });
    expect((await returnOf(m, entries.CCD, { code: 'R05' })).body).toMatchObject({ return_code: 'R05' });
    await expectLedgerSumsToZero(m);
  });

  it('a code that is not in the reference is 400 parameter_invalid; R48 and R99 alike', async () => {
    const m = await merchantAt(SETTLED);
    const id = await settledEntry(m, 'debit');
    for (const code of ['R48', 'R99', 'X01']) {
      const res = await returnOf(m, id, { code });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'parameter_invalid', param: 'code' } });
    }
  });

  it('a return before settlement is always timely, whatever the code’s frame', async () => {
    const m = await merchantAt(SETTLED);
    const created = await post(m, '/v1/transfers', {
      rail: 'ach',
      direction: 'debit',
      amount: '10.00',
      currency: 'USD',
      counterparty: { name: 'Counterparty', routing_number: '021000021', account_number: '000000000009' },
    });
    const id = String(created.body.id);
    await advanceTo(m, '2032-03-01T15:00:00.000Z'); // submitted at the cut-off, never settled
    const res = await returnOf(m, id, { code: 'R13' });
    expect(res.body).toMatchObject({ state: 'returned', return_code: 'R13', return_untimely: false });
  });

  it('payouts follow the same rules: a debit-only code is refused, a late one needs untimely', async () => {
    const m = await merchantAt(SETTLED);
    const created = await post(m, '/v1/payouts', {
      amount: '10.00',
      currency: 'USD',
      destination: { name: 'Own account', routing_number: '021000021', account_number: '000123456789' },
    });
    const id = String(created.body.id);
    await post(m, `/v1/simulate/payouts/${id}/submit`);
    await post(m, `/v1/simulate/payouts/${id}/settle`);
    const r01 = await post(m, `/v1/simulate/payouts/${id}/return`, { code: 'R01' });
    expect(r01.status).toBe(400);
    expect(r01.body).toMatchObject({ error: { code: 'return_code_not_allowed' } });
    await advanceTo(m, '2031-12-04T13:30:00.000Z');
    const late = await post(m, `/v1/simulate/payouts/${id}/return`, { code: 'R02' });
    expect(late.body).toMatchObject({
      error: { code: 'return_deadline_passed', deadline: '2031-12-04T13:30:00.000Z' },
    });
    const untimely = await post(m, `/v1/simulate/payouts/${id}/return`, { code: 'R02', untimely: true });
    expect(untimely.body).toMatchObject({ state: 'returned', failure_code: 'R02', return_untimely: true });
  });
});

describe('the rules table, as other modules call it', () => {
  it('counts banking days across weekends and Fed holidays, in New York time', () => {
    const deadline = (code: string, settledAt: string) => {
      const rule = returnRule(code);
      if (!rule) throw new Error(code);
      return returnDeadlineOf(rule, new Date(settledAt))?.toISOString() ?? null;
    };
    // Wednesday 2031-11-26 (Thanksgiving Thursday): Friday 11-28, Monday 12-01 → 08:30 EST Monday.
    expect(deadline('R02', '2031-11-26T15:00:00Z')).toBe('2031-12-01T13:30:00.000Z');
    // Settled Friday 2031-12-05 22:30 EST (Saturday 03:30Z): its New York date is Friday.
    expect(deadline('R13', '2031-12-06T03:30:00Z')).toBe('2031-12-09T05:00:00.000Z');
    // Christmas 2031 is a Thursday: settled Wednesday 12-24 → Friday 12-26, Monday 12-29 08:30 EST.
    expect(deadline('R01', '2031-12-24T14:00:00Z')).toBe('2031-12-29T13:30:00.000Z');
    // The 60th day a Friday (settled Monday 2031-12-01 → Friday 2032-01-30): Monday 02-02 08:30 EST.
    expect(deadline('R10', '2031-12-01T15:00:00Z')).toBe('2032-02-02T13:30:00.000Z');
    // The 60th day Friday 2032-02-13 (settled Monday 2031-12-15): the next banking day skips the
    // weekend and Presidents Day (Monday 02-16) → Tuesday 02-17 08:30 EST.
    expect(deadline('R07', '2031-12-15T15:00:00Z')).toBe('2032-02-17T13:30:00.000Z');
    expect(deadline('R06', '2031-12-24T14:00:00Z')).toBeNull();
    // A debit the merchant received and returns (another module's use): same checks, same errors.
    const verdict = checkReturn({
      code: 'R10',
      direction: 'debit',
      secCode: 'PPD',
      settledAt: new Date('2031-12-02T14:00:00Z'),
      now: new Date('2032-01-15T14:00:00Z'),
    });
    expect(verdict).toMatchObject({ untimely: false, rule: { code: 'R10', applies: 'debit' } });
    expect(() =>
      checkReturn({
        code: 'R10',
        direction: 'credit',
        secCode: 'PPD',
        settledAt: null,
        now: new Date('2032-01-15T14:00:00Z'),
      }),
    ).toThrow(/debits only/);
  });
});
