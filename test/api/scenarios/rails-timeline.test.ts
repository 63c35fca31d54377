/**
 * The rails' scenarios, driven through the API by each merchant's simulated clock: an entry is
 * created at a chosen instant and the clock is advanced to just before and exactly at each instant
 * the Federal Reserve timeline gives. Every instant is written out by hand from the rules (windows
 * close 10:30, 14:45, 16:45 ET and settle 13:00, 17:00, 18:00 ET; standard ACH settles the next
 * banking day at 08:30 ET, and standard ACH created after the last window (or on a weekend or
 * holiday) goes in the next banking day's overnight next-day deposit (02:15 ET) and settles at
 * 08:30 ET that day; magic returns arrive at 13:00 ET the banking day after settlement, or 5
 * banking days after for the 60-calendar-day codes), never computed by the code under test.
 *
 * The clock only moves forward from the wall clock, so the scenarios use the same calendar shapes
 * in 2031-2032 that the issue names in 2026 (the 2026 instants themselves are checked against the
 * engine in test/unit/transfers.rails.test.ts): EST is UTC−5, EDT UTC−4; daylight time starts
 * 2032-03-14 and ends 2031-11-02; Columbus Day 2031 is Monday 10-13; Thanksgiving 2031 is
 * Thursday 11-27; Christmas 2031 is a Thursday.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const { post, get, usd, merchantAt, advanceTo } = clockedMerchants(() => t);

function entry(m: TestMerchant, fields: Json & { account?: string }) {
  const { account = '000123456789', ...rest } = fields;
  return post(m, '/v1/transfers', {
    amount: '250.00',
    currency: 'USD',
    counterparty: { name: 'Counterparty', routing_number: '021000021', account_number: account },
    ...rest,
  });
}

const justBefore = (iso: string) => new Date(Date.parse(iso) - 1).toISOString();

describe('an ACH credit moves at the instants of the Fed timeline', () => {
  const scenarios = [
    {
      name: 'Same-Day at 10:29 ET goes in window 1 and settles 13:00 ET that day',
      rail: 'same_day_ach',
      created: '2031-12-02T15:29:00.000Z', // Tuesday 10:29 EST
      submits: '2031-12-02T15:30:00.000Z',
      settles: '2031-12-02T18:00:00.000Z',
    },
    {
      name: 'Same-Day at 10:31 ET goes in window 2 (14:45 ET) and settles 17:00 ET',
      rail: 'same_day_ach',
      created: '2031-12-02T15:31:00.000Z',
      submits: '2031-12-02T19:45:00.000Z',
      settles: '2031-12-02T22:00:00.000Z',
    },
    {
      name: "Same-Day at 16:46 ET on a Friday goes in Monday's first window",
      rail: 'same_day_ach',
      created: '2031-12-05T21:46:00.000Z', // Friday 16:46 EST
      submits: '2031-12-08T15:30:00.000Z', // Monday 10:30 EST
      settles: '2031-12-08T18:00:00.000Z',
    },
    {
      name: "…in Tuesday's when Monday is a Fed holiday (Columbus Day)",
      rail: 'same_day_ach',
      created: '2031-10-10T20:46:00.000Z', // Friday 16:46 EDT
      submits: '2031-10-14T14:30:00.000Z', // Tuesday 10:30 EDT
      settles: '2031-10-14T17:00:00.000Z',
    },
    {
      name: 'standard ACH on the Wednesday before Thanksgiving settles the Friday after',
      rail: 'ach',
      created: '2031-11-26T17:00:00.000Z', // Wednesday 12:00 EST → the 14:45 window
      submits: '2031-11-26T19:45:00.000Z',
      settles: '2031-11-28T13:30:00.000Z', // Friday 08:30 EST
    },
    {
      name: 'across the switch to daylight time: Friday 17:00 EST → Monday 10:30 EDT',
      rail: 'same_day_ach',
      created: '2032-03-12T22:00:00.000Z',
      submits: '2032-03-15T14:30:00.000Z',
      settles: '2032-03-15T17:00:00.000Z',
    },
    {
      // Created after the last window: Monday's overnight next-day deposit (02:15 EDT), settled
      // Monday 08:30 EDT.
      name: 'across the switch to daylight time, standard ACH from Friday evening settles Monday 08:30 EDT',
      rail: 'ach',
      created: '2032-03-12T22:00:00.000Z',
      submits: '2032-03-15T06:15:00.000Z',
      settles: '2032-03-15T12:30:00.000Z',
    },
    {
      name: 'across the switch back to standard time: Friday 17:00 EDT → Monday 10:30 EST',
      rail: 'same_day_ach',
      created: '2031-10-31T21:00:00.000Z',
      submits: '2031-11-03T15:30:00.000Z',
      settles: '2031-11-03T18:00:00.000Z',
    },
    {
      name: "standard ACH at 17:00 ET goes in the next banking day's overnight deposit (02:15 ET) and settles 08:30 ET",
      rail: 'ach',
      created: '2031-12-02T22:00:00.000Z', // Tuesday 17:00 EST
      submits: '2031-12-03T07:15:00.000Z', // Wednesday 02:15 EST
      settles: '2031-12-03T13:30:00.000Z', // Wednesday 08:30 EST
    },
    {
      name: 'standard ACH at 02:00 ET on a banking day makes that night’s deposit and settles 08:30 ET',
      rail: 'ach',
      created: '2031-12-02T07:00:00.000Z', // Tuesday 02:00 EST
      submits: '2031-12-02T07:15:00.000Z',
      settles: '2031-12-02T13:30:00.000Z',
    },
    {
      name: 'standard ACH at 02:16 ET misses the overnight deposit: window 1, settles the next banking day',
      rail: 'ach',
      created: '2031-12-02T07:16:00.000Z',
      submits: '2031-12-02T15:30:00.000Z',
      settles: '2031-12-03T13:30:00.000Z',
    },
    {
      name: 'standard ACH on a Saturday settles Monday 08:30 ET',
      rail: 'ach',
      created: '2031-12-06T17:00:00.000Z', // Saturday 12:00 EST
      submits: '2031-12-08T07:15:00.000Z',
      settles: '2031-12-08T13:30:00.000Z',
    },
    {
      name: 'standard ACH the evening before Thanksgiving settles the Friday after, 08:30 ET',
      rail: 'ach',
      created: '2031-11-26T23:00:00.000Z', // Wednesday 18:00 EST
      submits: '2031-11-28T07:15:00.000Z',
      settles: '2031-11-28T13:30:00.000Z',
    },
    {
      name: "Same-Day ACH at 17:00 ET still goes in the next banking day's first window",
      rail: 'same_day_ach',
      created: '2031-12-02T22:00:00.000Z',
      submits: '2031-12-03T15:30:00.000Z',
      settles: '2031-12-03T18:00:00.000Z',
    },
  ] as const;

  for (const s of scenarios) {
    it(s.name, async () => {
      const m = await merchantAt(s.created);
      const created = await entry(m, { rail: s.rail, direction: 'credit' });
      expect(created.body).toMatchObject({
        state: 'pending',
        created_at: s.created,
        expected_submission_at: s.submits,
        expected_settlement_at: s.settles,
      });
      const id = String(created.body.id);
      const state = async () => (await get(m, `/v1/transfers/${id}`)).body;

      await advanceTo(m, justBefore(s.submits));
      expect((await state()).state).toBe('pending');
      await advanceTo(m, s.submits);
      expect(await state()).toMatchObject({ state: 'submitted', submitted_at: s.submits });
      await advanceTo(m, justBefore(s.settles));
      expect((await state()).state).toBe('submitted');
      await advanceTo(m, s.settles);
      expect(await state()).toMatchObject({ state: 'settled', settled_at: s.settles });
      expect(await usd(m)).toEqual({ available: 750, pending: 0, reserved: 0 });
    });
  }
});

describe('each magic account returns on its own, within its time frame, and the balance is restored', () => {
  // Standard ACH made Tuesday 2031-12-02 09:00 EST: submitted 10:30 EST, settled Wednesday 08:30 EST.
  const CREATED = '2031-12-02T14:00:00.000Z';
  const SETTLED = '2031-12-03T13:30:00.000Z';
  const PROMPT = '2031-12-04T18:00:00.000Z'; // Thursday 13:00 EST: the next banking day
  const LATE = '2031-12-10T18:00:00.000Z'; // 5 banking days later (Thu, Fri, Mon, Tue, Wed)
  // The end of each time frame: 2 banking days after settlement (Friday 24:00 EST), 60 calendar days.
  const TWO_BANKING_DAYS = '2031-12-06T05:00:00.000Z';
  const SIXTY_DAYS = '2032-02-02T05:00:00.000Z';

  const cases = [
    ['000111111113', 'debit', 'R02', PROMPT, TWO_BANKING_DAYS],
    ['000111111113', 'credit', 'R02', PROMPT, TWO_BANKING_DAYS],
    ['000111111116', 'debit', 'R03', PROMPT, TWO_BANKING_DAYS],
    ['000111111116', 'credit', 'R03', PROMPT, TWO_BANKING_DAYS],
    ['000222222227', 'debit', 'R01', PROMPT, TWO_BANKING_DAYS],
    ['000333333335', 'debit', 'R29', PROMPT, TWO_BANKING_DAYS], // a CCD entry (the default)
    ['10029', 'debit', 'R29', PROMPT, TWO_BANKING_DAYS],
    ['10005', 'debit', 'R05', LATE, SIXTY_DAYS],
    ['10016', 'credit', 'R16', PROMPT, TWO_BANKING_DAYS],
  ] as const;

  for (const [account, direction, code, arrives, deadline] of cases) {
    it(`${direction} to ${account}: ${code} at ${arrives}`, async () => {
      const m = await merchantAt(CREATED);
      const id = String((await entry(m, { rail: 'ach', direction, account })).body.id);
      await advanceTo(m, SETTLED);
      expect((await get(m, `/v1/transfers/${id}`)).body.state).toBe('settled');
      expect(await usd(m)).toEqual(
        direction === 'debit'
          ? { available: 1250, pending: 0, reserved: 0 }
          : { available: 750, pending: 0, reserved: 0 },
      );
      await advanceTo(m, justBefore(arrives));
      expect((await get(m, `/v1/transfers/${id}`)).body.state).toBe('settled');
      await advanceTo(m, arrives);
      const returned = (await get(m, `/v1/transfers/${id}`)).body;
      expect(returned).toMatchObject({ state: 'returned', return_code: code, returned_at: arrives });
      expect(Date.parse(String(returned.returned_at))).toBeLessThan(Date.parse(deadline));
      expect(await usd(m)).toEqual({ available: 1000, pending: 0, reserved: 0 });
    });
  }

  it.each([
    ['000123456789', 'debit'],
    ['000222222227', 'credit'],
    ['000333333335', 'credit'],
    ['10048', 'debit'], // R48 is not an assigned code: an ordinary account
  ] as const)('%s (%s) settles and stays settled', async (account, direction) => {
    const m = await merchantAt(CREATED);
    const id = String((await entry(m, { rail: 'ach', direction, account })).body.id);
    await advanceTo(m, SIXTY_DAYS);
    expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({ state: 'settled', return_code: null });
  });

  it('000000000009 stays submitted until a step moves it', async () => {
    const m = await merchantAt(CREATED);
    const created = await entry(m, { rail: 'ach', direction: 'debit', account: '000000000009' });
    expect(created.body.expected_settlement_at).toBeNull();
    await advanceTo(m, SIXTY_DAYS);
    expect((await get(m, `/v1/transfers/${created.body.id}`)).body.state).toBe('submitted');
  });
});
