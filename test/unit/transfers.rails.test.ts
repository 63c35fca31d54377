/**
 * The rail engine: expected instants are written out by hand from the rules
 * and the FedACH schedule (windows close 10:30, 14:45, 16:45 ET and settle 13:00, 17:00, 18:00 ET;
 * standard ACH settles the next banking day at 08:30 ET), never computed by the code under test.
 * New York is UTC−5 (EST) before 2026-03-08 and from 2026-11-01, UTC−4 (EDT) in between.
 */
import { describe, expect, it } from 'vitest';
import {
  achReturnReason,
  achTimeline,
  type Direction,
  MAGIC_ACCOUNTS,
  RAIL_LIMIT_MINOR,
  type Rail,
  type ReturnReason,
  railOutcome,
  returnArrivesAt,
  rtpCompletesAt,
} from '../../src/modules/transfers/transfers.rails.ts';
import { returnDeadlineOf, returnRule } from '../../src/modules/transfers/transfers.returns.ts';

/** The code's deadline from the rules table (codes without one have none to test). */
function returnDeadline(settledAt: Date, reason: ReturnReason): Date {
  const rule = returnRule(reason.code);
  const deadline = rule ? returnDeadlineOf(rule, settledAt) : null;
  if (!deadline) throw new Error(`${reason.code} has no deadline`);
  return deadline;
}

const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

function timeline(rail: 'ach' | 'same_day_ach', createdAt: string) {
  const t = achTimeline(rail, at(createdAt));
  return {
    window: t.window,
    windowDate: t.windowDate,
    submitsAt: iso(t.submitsAt),
    settlesAt: iso(t.settlesAt),
  };
}

describe('the ACH timeline', () => {
  it('Same-Day ACH created at 10:29 ET goes in window 1 and settles 13:00 ET the same day', () => {
    // Tuesday 2026-12-01, 10:29 EST.
    expect(timeline('same_day_ach', '2026-12-01T15:29:00Z')).toEqual({
      window: 1,
      windowDate: '2026-12-01',
      submitsAt: '2026-12-01T15:30:00.000Z',
      settlesAt: '2026-12-01T18:00:00.000Z',
    });
  });

  it('at 10:31 ET it goes in window 2 (cut-off 14:45, settles 17:00 ET)', () => {
    expect(timeline('same_day_ach', '2026-12-01T15:31:00Z')).toEqual({
      window: 2,
      windowDate: '2026-12-01',
      submitsAt: '2026-12-01T19:45:00.000Z',
      settlesAt: '2026-12-01T22:00:00.000Z',
    });
  });

  it("at 16:46 ET on a Friday it goes in Monday's first window", () => {
    // Friday 2026-12-04, 16:46 EST → Monday 2026-12-07.
    expect(timeline('same_day_ach', '2026-12-04T21:46:00Z')).toEqual({
      window: 1,
      windowDate: '2026-12-07',
      submitsAt: '2026-12-07T15:30:00.000Z',
      settlesAt: '2026-12-07T18:00:00.000Z',
    });
  });

  it("…or Tuesday's when Monday is a Fed holiday (Columbus Day, 2026-10-12)", () => {
    // Friday 2026-10-09, 16:46 EDT → Tuesday 2026-10-13, 10:30 and 13:00 EDT.
    expect(timeline('same_day_ach', '2026-10-09T20:46:00Z')).toEqual({
      window: 1,
      windowDate: '2026-10-13',
      submitsAt: '2026-10-13T14:30:00.000Z',
      settlesAt: '2026-10-13T17:00:00.000Z',
    });
  });

  it('standard ACH created the Wednesday before Thanksgiving 2026 settles the Friday after', () => {
    // Wednesday 2026-11-25, 12:00 EST: window 2 that day; Thursday is Thanksgiving → Friday 08:30 EST.
    expect(timeline('ach', '2026-11-25T17:00:00Z')).toEqual({
      window: 2,
      windowDate: '2026-11-25',
      submitsAt: '2026-11-25T19:45:00.000Z',
      settlesAt: '2026-11-27T13:30:00.000Z',
    });
  });

  it('across the March 2026 switch to daylight time', () => {
    // Friday 2026-03-06, 17:00 EST → Monday 2026-03-09 (EDT since Sunday): 10:30 EDT = 14:30Z.
    expect(timeline('same_day_ach', '2026-03-06T22:00:00Z')).toEqual({
      window: 1,
      windowDate: '2026-03-09',
      submitsAt: '2026-03-09T14:30:00.000Z',
      settlesAt: '2026-03-09T17:00:00.000Z',
    });
    // Standard ACH created then goes in Monday's overnight next-day deposit (02:15 EDT) and
    // settles Monday 08:30 EDT (until the evening cut-off it settled Tuesday).
    expect(timeline('ach', '2026-03-06T22:00:00Z')).toEqual({
      window: 0,
      windowDate: '2026-03-09',
      submitsAt: '2026-03-09T06:15:00.000Z',
      settlesAt: '2026-03-09T12:30:00.000Z',
    });
  });

  it('standard ACH after the last window: the overnight next-day deposit (02:15 ET), settled 08:30 ET', () => {
    // Tuesday 2026-12-01 16:46 EST → Wednesday 02:15 EST (07:15Z), settled 08:30 EST (13:30Z).
    expect(timeline('ach', '2026-12-01T21:46:00Z')).toEqual({
      window: 0,
      windowDate: '2026-12-02',
      submitsAt: '2026-12-02T07:15:00.000Z',
      settlesAt: '2026-12-02T13:30:00.000Z',
    });
    // 16:45 exactly still makes window 3 (settles the next banking day too).
    expect(timeline('ach', '2026-12-01T21:45:00Z')).toEqual({
      window: 3,
      windowDate: '2026-12-01',
      submitsAt: '2026-12-01T21:45:00.000Z',
      settlesAt: '2026-12-02T13:30:00.000Z',
    });
    // Wednesday 00:30 EST: that night's deposit; 02:15 exactly too; 02:16 misses it (window 1, Thursday).
    expect(timeline('ach', '2026-12-02T05:30:00Z').settlesAt).toBe('2026-12-02T13:30:00.000Z');
    expect(timeline('ach', '2026-12-02T07:15:00Z').settlesAt).toBe('2026-12-02T13:30:00.000Z');
    expect(timeline('ach', '2026-12-02T07:16:00Z')).toEqual({
      window: 1,
      windowDate: '2026-12-02',
      submitsAt: '2026-12-02T15:30:00.000Z',
      settlesAt: '2026-12-03T13:30:00.000Z',
    });
    // Wednesday before Thanksgiving 2026, 18:00 EST → Friday 11-27 02:15 / 08:30 EST.
    expect(timeline('ach', '2026-11-25T23:00:00Z')).toMatchObject({
      submitsAt: '2026-11-27T07:15:00.000Z',
      settlesAt: '2026-11-27T13:30:00.000Z',
    });
    // Christmas Eve 2026 (Thursday) 17:00 EST → Monday 12-28 (Friday 12-25 closed, weekend).
    expect(timeline('ach', '2026-12-24T22:00:00Z').settlesAt).toBe('2026-12-28T13:30:00.000Z');
    // Saturday 02:00 EST: not a banking day, Monday's deposit.
    expect(timeline('ach', '2026-11-21T07:00:00Z').settlesAt).toBe('2026-11-23T13:30:00.000Z');
    // Same-Day ACH after 16:45 is unchanged: the next banking day's first window.
    expect(timeline('same_day_ach', '2026-12-01T21:46:00Z')).toMatchObject({
      window: 1,
      submitsAt: '2026-12-02T15:30:00.000Z',
      settlesAt: '2026-12-02T18:00:00.000Z',
    });
  });

  it('across the November 2026 switch back to standard time', () => {
    // Friday 2026-10-30, 17:00 EDT → Monday 2026-11-02 (EST since Sunday): 10:30 EST = 15:30Z.
    expect(timeline('same_day_ach', '2026-10-30T21:00:00Z')).toEqual({
      window: 1,
      windowDate: '2026-11-02',
      submitsAt: '2026-11-02T15:30:00.000Z',
      settlesAt: '2026-11-02T18:00:00.000Z',
    });
  });
});

describe('RTP', () => {
  it('completes within seconds at 03:00 ET on Christmas Day 2026', () => {
    const completes = rtpCompletesAt(at('2026-12-25T08:00:00Z'));
    expect(completes.getTime() - at('2026-12-25T08:00:00Z').getTime()).toBeGreaterThan(0);
    expect(completes.getTime() - at('2026-12-25T08:00:00Z').getTime()).toBeLessThanOrEqual(5_000);
  });
});

describe('per-rail limits', () => {
  it('Same-Day ACH 1,000,000.00; RTP and FedNow 10,000,000.00; ACH 99,999,999.99; Fedwire 9,999,999,999.99 (in cents)', () => {
    expect(RAIL_LIMIT_MINOR).toEqual({
      same_day_ach: 100_000_000n,
      rtp: 1_000_000_000n,
      fednow: 1_000_000_000n,
      ach: 9_999_999_999n,
      // The Fedwire amount tag {2000} holds twelve digits of cents.
      wire: 999_999_999_999n,
    });
    // An RTP of 10,000,000.01 is over the limit.
    expect(1_000_000_001n > RAIL_LIMIT_MINOR.rtp).toBe(true);
  });
});

describe('returns', () => {
  const settled = '2026-12-01T18:00:00Z'; // Tuesday 13:00 EST

  it('looks codes up in the reference; unassigned ones are unknown', () => {
    expect(achReturnReason('R01')).toMatchObject({
      code: 'R01',
      title: 'Insufficient Funds',
      unauthorized: false,
    });
    expect(achReturnReason('R10')).toMatchObject({ unauthorized: true, timeFrame: '60 calendar days' });
    expect(achReturnReason('R48')).toBeNull();
    expect(achReturnReason('r01')).toBeNull();
  });

  it('a 2-banking-day code arrives the next banking day at 13:00 ET', () => {
    const r02 = achReturnReason('R02');
    if (!r02) throw new Error('R02 missing from the reference');
    expect(iso(returnArrivesAt(at(settled), r02))).toBe('2026-12-02T18:00:00.000Z');
    // Settled the Wednesday before Thanksgiving → Friday 13:00 EST.
    expect(iso(returnArrivesAt(at('2026-11-25T18:00:00Z'), r02))).toBe('2026-11-27T18:00:00.000Z');
    // R29 is an unauthorized code with a 2-banking-day frame: prompt too.
    const r29 = achReturnReason('R29');
    if (!r29) throw new Error('R29 missing from the reference');
    expect(iso(returnArrivesAt(at(settled), r29))).toBe('2026-12-02T18:00:00.000Z');
  });

  it('a 60-calendar-day code arrives 5 banking days after settlement', () => {
    const r10 = achReturnReason('R10');
    if (!r10) throw new Error('R10 missing from the reference');
    // Tuesday 12-01 → 12-02, 12-03, 12-04, 12-07, 12-08 (Tuesday) 13:00 EST.
    expect(iso(returnArrivesAt(at(settled), r10))).toBe('2026-12-08T18:00:00.000Z');
  });

  it('deadlines: the opening of business of the second banking day, or of the banking day after the 60th calendar day', () => {
    const r01 = achReturnReason('R01');
    const r10 = achReturnReason('R10');
    if (!r01 || !r10) throw new Error('codes missing from the reference');
    expect(iso(returnDeadline(at(settled), r01))).toBe('2026-12-03T13:30:00.000Z'); // Thu 12-03 08:30 EST
    // The 60th day is Saturday 2027-01-30: the next banking day is Monday 02-01.
    expect(iso(returnDeadline(at(settled), r10))).toBe('2027-02-01T13:30:00.000Z'); // Mon 08:30 EST
  });

  it('every code, settled on any day of 2026-2027, arrives after settlement and within its time frame', () => {
    const reasons = ['R01', 'R02', 'R03', 'R05', 'R07', 'R10', 'R11', 'R13', 'R28', 'R29'].map((code) => {
      const reason = achReturnReason(code);
      if (!reason) throw new Error(`${code} missing from the reference`);
      return reason;
    });
    for (let day = 0; day < 730; day += 3) {
      const settledAt = new Date(Date.UTC(2026, 0, 1, 17, 30) + day * 86_400_000);
      for (const reason of reasons) {
        const arrives = returnArrivesAt(settledAt, reason).getTime();
        expect(arrives).toBeGreaterThan(settledAt.getTime());
        expect(arrives).toBeLessThan(returnDeadline(settledAt, reason).getTime());
      }
    }
  });
});

describe('magic accounts', () => {
  const routing = '021000021';
  const outcome = (
    rail: Rail,
    direction: Direction,
    accountNumber: string,
    routingNumber = routing,
    secCode: string | null = rail === 'ach' || rail === 'same_day_ach' ? 'PPD' : null,
  ) => {
    const result = railOutcome({ rail, direction, routingNumber, accountNumber, secCode });
    return result.kind === 'returns'
      ? `returns ${result.reason.code}`
      : result.kind === 'rejected'
        ? `rejected ${result.reason}`
        : result.kind;
  };

  it.each([
    ['ach', 'debit', '000123456789', 'succeeds'],
    ['ach', 'credit', '000111111113', 'returns R02'],
    ['same_day_ach', 'debit', '000111111116', 'returns R03'],
    ['ach', 'debit', '000222222227', 'returns R01'],
    ['ach', 'credit', '000222222227', 'succeeds'],
    ['same_day_ach', 'debit', '000333333335', 'returns R10'],
    ['ach', 'credit', '000333333335', 'succeeds'],
    ['ach', 'debit', '000000000009', 'stays_submitted'],
    ['ach', 'debit', '10029', 'succeeds'], // R29 returns corporate (CCD) entries only; these are PPD
    ['ach', 'credit', '10003', 'returns R03'],
    ['ach', 'credit', '10001', 'succeeds'], // R01 returns debits only
    ['ach', 'credit', '10023', 'returns R23'], // credit refused by the receiver
    ['ach', 'debit', '10023', 'succeeds'], // R23 returns credits only
    ['ach', 'debit', '10068', 'succeeds'], // R68 is the ODFI's dishonor code
    ['ach', 'debit', '10073', 'succeeds'], // R73 is the RDFI's contest code
    ['ach', 'debit', '10041', 'succeeds'], // R41 is ENR only
    ['ach', 'debit', '10051', 'succeeds'], // R51 is RCK only
    ['ach', 'credit', '10083', 'succeeds'], // R83 is IAT only
    ['ach', 'debit', '10037', 'succeeds'], // R37: source documents (ARC/BOC/POP), not originated
    ['ach', 'debit', '10048', 'succeeds'], // R48 is not an assigned code
    ['ach', 'debit', '100290', 'succeeds'], // six digits: an ordinary account
    ['rtp', 'credit', '000111111113', 'succeeds'], // RTP has no returns
    ['rtp', 'credit', '000123456789', 'succeeds'],
  ] as const)('%s %s to %s → %s', (rail, direction, account, expected) => {
    expect(outcome(rail, direction, account)).toBe(expected);
  });

  it('an unauthorized debit is returned with the code of its entry class', () => {
    // Consumer entries (PPD, WEB) come back R10, corporate ones (CCD) R29; 100XX codes only where they apply.
    expect(outcome('ach', 'debit', '000333333335', routing, 'WEB')).toBe('returns R10');
    expect(outcome('ach', 'debit', '000333333335', routing, 'CCD')).toBe('returns R29');
    expect(outcome('ach', 'debit', '10029', routing, 'CCD')).toBe('returns R29');
    expect(outcome('ach', 'debit', '10005', routing, 'CCD')).toBe('returns R05');
    expect(outcome('ach', 'debit', '10005', routing, 'PPD')).toBe('succeeds');
    expect(outcome('ach', 'debit', '10010', routing, 'CCD')).toBe('succeeds');
    expect(outcome('ach', 'debit', '10011', routing, 'WEB')).toBe('returns R11');
  });

  it('the exported table lists exactly the magic accounts, in its order', () => {
    expect(MAGIC_ACCOUNTS.map((a) => a.accountNumber)).toEqual([
      '000123456789',
      '000111111113',
      '000111111116',
      '000222222227',
      '000333333335',
      '000000000009',
    ]);
    for (const account of MAGIC_ACCOUNTS) expect(account.outcome).not.toBe('');
  });

  it('routing 790000051: RTP rejected AC03, ACH unreachable at creation', () => {
    expect(outcome('rtp', 'credit', '000123456789', '790000051')).toBe('rejected AC03');
    expect(outcome('ach', 'debit', '000123456789', '790000051')).toBe('unreachable');
    expect(outcome('same_day_ach', 'credit', '000123456789', '790000051')).toBe('unreachable');
  });
});
