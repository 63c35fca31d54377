import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import fedHolidays from '../../reference/fed_holidays.json' with { type: 'json' };
import {
  type AchWindow,
  addBankingDays,
  addCalendarDays,
  BANK_TIME_ZONE,
  fedHolidayClosures,
  isBankingDay,
  isWeekend,
  type LocalDate,
  nextBankingDay,
  nextSameDayAchWindow,
  nyDateOf,
  nyInstant,
  sameDayAchWindows,
  standardAchSettlement,
} from '../../src/kernel/calendar.ts';

const iso = (d: Date): string => d.toISOString();
const z = (s: string): Date => new Date(s);

/** Arbitrary LocalDate in 2000-01-01 … 2100-12-31. */
const START = Date.UTC(2000, 0, 1, 12);
const END = Date.UTC(2100, 11, 31, 12);
const localDateArb: fc.Arbitrary<LocalDate> = fc
  .integer({ min: 0, max: Math.round((END - START) / 86_400_000) })
  .map((n) => new Date(START + n * 86_400_000).toISOString().slice(0, 10));
const yearArb = fc.integer({ min: 2000, max: 2100 });
const timeArb = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);

function countBankingDaysBetween(fromExclusive: LocalDate, toInclusive: LocalDate): number {
  let n = 0;
  for (let d = addCalendarDays(fromExclusive, 1); d <= toInclusive; d = addCalendarDays(d, 1)) {
    if (isBankingDay(d)) n++;
  }
  return n;
}

describe('basics', () => {
  it('exposes the bank time zone', () => {
    expect(BANK_TIME_ZONE).toBe('America/New_York');
  });

  it('knows weekends', () => {
    expect(isWeekend('2026-11-21')).toBe(true); // Saturday
    expect(isWeekend('2026-11-22')).toBe(true); // Sunday
    expect(isWeekend('2026-11-23')).toBe(false); // Monday
    expect(isWeekend('2026-11-20')).toBe(false); // Friday
  });

  it('adds calendar days across months, years and leap days', () => {
    expect(addCalendarDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addCalendarDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addCalendarDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addCalendarDays('2026-03-08', 1)).toBe('2026-03-09'); // across DST switch
    expect(addCalendarDays('2026-05-05', 0)).toBe('2026-05-05');
  });

  it('rejects malformed input with a plain Error', () => {
    for (const bad of [
      '2026-1-01',
      '2026-02-30',
      '2026-13-01',
      '20260101',
      '',
      '2026-00-10',
      ' 2026-01-01',
    ]) {
      expect(() => isBankingDay(bad)).toThrow(Error);
    }
    for (const bad of ['24:00', '9:30', '10:60', '10:30:00', '']) {
      expect(() => nyInstant('2026-01-02', bad)).toThrow(Error);
    }
    expect(() => addBankingDays('2026-01-02', -1)).toThrow(Error);
    expect(() => addBankingDays('2026-01-02', 1.5)).toThrow(Error);
    expect(() => addCalendarDays('2026-01-02', 0.5)).toThrow(Error);
    expect(() => fedHolidayClosures(2026.5)).toThrow(Error);
    expect(() => nyDateOf(new Date(Number.NaN))).toThrow(Error);
    expect(() => nextSameDayAchWindow(new Date(Number.NaN))).toThrow(Error);
  });
});

describe('Federal Reserve closures', () => {
  it('2026 equals the reference list exactly', () => {
    expect(fedHolidayClosures(2026)).toEqual(fedHolidays.banking_day_closures_2026);
  });

  it('returns a copy (memoized list cannot be mutated by callers)', () => {
    const a = fedHolidayClosures(2026);
    a.push('2026-12-31');
    expect(fedHolidayClosures(2026)).toEqual(fedHolidays.banking_day_closures_2026);
  });

  it('Sunday holiday closes the following Monday', () => {
    // 2022-06-19 was a Sunday
    expect(fedHolidayClosures(2022)).toContain('2022-06-20');
    expect(isBankingDay('2022-06-20')).toBe(false);
    // 2027-07-04 is a Sunday
    expect(fedHolidayClosures(2027)).toContain('2027-07-05');
    expect(isBankingDay('2027-07-05')).toBe(false);
  });

  it('Saturday holiday does not close the Friday before', () => {
    // 2021-12-25 was a Saturday
    expect(fedHolidayClosures(2021)).not.toContain('2021-12-24');
    expect(fedHolidayClosures(2021)).not.toContain('2021-12-25');
    expect(isBankingDay('2021-12-24')).toBe(true);
    // 2023-11-11 was a Saturday: no Veterans Day closure at all
    expect(fedHolidayClosures(2023).filter((d) => d.startsWith('2023-11-1'))).toEqual([]);
    expect(isBankingDay('2023-11-10')).toBe(true);
    expect(isBankingDay('2023-11-13')).toBe(true);
  });

  it('year boundary: Saturday Jan 1 of Y+1 does not close Dec 31 of Y', () => {
    // 2022-01-01 was a Saturday
    expect(isBankingDay('2021-12-31')).toBe(true);
    expect(fedHolidayClosures(2021)).not.toContain('2021-12-31');
    expect(fedHolidayClosures(2022).some((d) => d.endsWith('-01-01') || d.endsWith('-12-31'))).toBe(false);
  });

  it('floating holidays', () => {
    expect(fedHolidayClosures(2026)).toContain('2026-11-26'); // Thanksgiving, 4th Thursday
    expect(fedHolidayClosures(2027)).toContain('2027-05-31'); // Memorial Day, last Monday
    expect(fedHolidayClosures(2027)).toContain('2027-01-18'); // MLK, 3rd Monday
    expect(fedHolidayClosures(2027)).toContain('2027-02-15'); // Washington's Birthday
    expect(fedHolidayClosures(2027)).toContain('2027-09-06'); // Labor Day
    expect(fedHolidayClosures(2027)).toContain('2027-10-11'); // Columbus Day
  });

  it('known full years (2021 had 9 closures, 2025 had 11)', () => {
    expect(fedHolidayClosures(2021)).toEqual([
      '2021-01-01',
      '2021-01-18',
      '2021-02-15',
      '2021-05-31',
      '2021-07-05',
      '2021-09-06',
      '2021-10-11',
      '2021-11-11',
      '2021-11-25',
    ]);
    expect(fedHolidayClosures(2025)).toEqual([
      '2025-01-01',
      '2025-01-20',
      '2025-02-17',
      '2025-05-26',
      '2025-06-19',
      '2025-07-04',
      '2025-09-01',
      '2025-10-13',
      '2025-11-11',
      '2025-11-27',
      '2025-12-25',
    ]);
  });

  it('Juneteenth applies from 2021 only', () => {
    expect(fedHolidayClosures(2020).some((d) => d.startsWith('2020-06'))).toBe(false);
    expect(fedHolidayClosures(2024)).toContain('2024-06-19');
  });
});

describe('New York time', () => {
  it('nyInstant is DST-correct in March', () => {
    expect(iso(nyInstant('2026-03-06', '10:30'))).toBe('2026-03-06T15:30:00.000Z'); // EST
    expect(iso(nyInstant('2026-03-09', '10:30'))).toBe('2026-03-09T14:30:00.000Z'); // EDT
  });

  it('nyInstant is DST-correct in November', () => {
    expect(iso(nyInstant('2026-10-30', '10:30'))).toBe('2026-10-30T14:30:00.000Z'); // EDT
    expect(iso(nyInstant('2026-11-02', '10:30'))).toBe('2026-11-02T15:30:00.000Z'); // EST
  });

  it('nyInstant at midnight and end of day', () => {
    expect(iso(nyInstant('2026-07-04', '00:00'))).toBe('2026-07-04T04:00:00.000Z');
    expect(iso(nyInstant('2026-12-31', '23:59'))).toBe('2027-01-01T04:59:00.000Z');
  });

  it('nyDateOf near midnight UTC', () => {
    expect(nyDateOf(z('2026-07-04T03:00:00Z'))).toBe('2026-07-03');
    expect(nyDateOf(z('2026-07-04T04:00:00Z'))).toBe('2026-07-04');
    expect(nyDateOf(z('2026-01-01T04:59:59.999Z'))).toBe('2025-12-31');
    expect(nyDateOf(z('2026-01-01T05:00:00Z'))).toBe('2026-01-01');
  });

  it('nyDateOf stays right after it has remembered a day, at the edges of the calendar', () => {
    // Before 1883-11-18 New York kept local mean time, UTC−4:56:02: midnight was 04:56:02Z.
    expect(nyDateOf(z('1850-06-14T16:00:00Z'))).toBe('1850-06-14');
    expect(nyDateOf(z('1850-06-15T04:56:01Z'))).toBe('1850-06-14');
    expect(nyDateOf(z('1850-06-15T04:56:03Z'))).toBe('1850-06-15');
    // The last day of the calendar has no next day to bound it, and still answers.
    expect(nyDateOf(z('9999-12-31T12:00:00Z'))).toBe('9999-12-31');
    expect(nyDateOf(z('9999-12-31T13:00:00Z'))).toBe('9999-12-31');
    // A remembered day answers inside it and not past its end (EDT: midnight is 04:00Z).
    expect(nyDateOf(z('2026-07-04T12:00:00Z'))).toBe('2026-07-04');
    expect(nyDateOf(z('2026-07-05T03:59:59.999Z'))).toBe('2026-07-04');
    expect(nyDateOf(z('2026-07-05T04:00:00Z'))).toBe('2026-07-05');
  });
});

describe('Same-Day ACH windows', () => {
  const at = (date: LocalDate, time: string, seconds = 0): Date =>
    new Date(nyInstant(date, time).getTime() + seconds * 1000);
  const expectWindow = (
    w: AchWindow,
    date: LocalDate,
    window: number,
    cutoff: string,
    settlement: string,
  ) => {
    expect(w.date).toBe(date);
    expect(w.window).toBe(window);
    expect(iso(w.cutoff)).toBe(iso(nyInstant(date, cutoff)));
    expect(iso(w.settlement)).toBe(iso(nyInstant(date, settlement)));
  };

  it('a banking day has the 3 reference windows', () => {
    const ws = sameDayAchWindows('2026-11-23');
    expect(ws.map((w) => w.window)).toEqual([1, 2, 3]);
    expectWindow(ws[0]!, '2026-11-23', 1, '10:30', '13:00');
    expectWindow(ws[1]!, '2026-11-23', 2, '14:45', '17:00');
    expectWindow(ws[2]!, '2026-11-23', 3, '16:45', '18:00');
    expect(iso(ws[0]!.cutoff)).toBe('2026-11-23T15:30:00.000Z');
  });

  it('non-banking days have no windows', () => {
    expect(sameDayAchWindows('2026-11-21')).toEqual([]); // Saturday
    expect(sameDayAchWindows('2026-11-26')).toEqual([]); // Thanksgiving
  });

  it('Friday after the last cut-off → Monday window 1', () => {
    expectWindow(nextSameDayAchWindow(at('2026-11-20', '17:00')), '2026-11-23', 1, '10:30', '13:00');
  });

  it('Wednesday evening before Thanksgiving → Friday window 1', () => {
    expectWindow(nextSameDayAchWindow(at('2026-11-25', '18:00')), '2026-11-27', 1, '10:30', '13:00');
  });

  it('cut-off is inclusive to the millisecond', () => {
    expect(nextSameDayAchWindow(at('2026-11-23', '10:30')).window).toBe(1);
    expect(nextSameDayAchWindow(new Date(at('2026-11-23', '10:30').getTime() + 1)).window).toBe(2);
    expect(nextSameDayAchWindow(at('2026-11-23', '10:30', 1)).window).toBe(2);
    expect(nextSameDayAchWindow(at('2026-11-23', '14:45')).window).toBe(2);
    expect(nextSameDayAchWindow(at('2026-11-23', '16:45')).window).toBe(3);
    expect(nextSameDayAchWindow(at('2026-11-23', '00:00')).window).toBe(1);
    expect(nextSameDayAchWindow(at('2026-11-23', '16:45', 1)).date).toBe('2026-11-24');
  });

  it('a Saturday instant → Monday window 1', () => {
    expectWindow(nextSameDayAchWindow(at('2026-11-21', '09:00')), '2026-11-23', 1, '10:30', '13:00');
  });

  it('Christmas Eve after the last cut-off → the following Monday', () => {
    expectWindow(nextSameDayAchWindow(at('2026-12-24', '16:45', 1)), '2026-12-28', 1, '10:30', '13:00');
  });

  it('uses the New York date, not the UTC date', () => {
    // 2026-11-24T02:00Z is Monday 2026-11-23 21:00 ET: past the last cut-off → Tuesday window 1
    expect(nextSameDayAchWindow(z('2026-11-24T02:00:00Z')).date).toBe('2026-11-24');
    expect(nextSameDayAchWindow(z('2026-11-24T02:00:00Z')).window).toBe(1);
  });

  it('standard ACH settles the next banking day at 08:30 ET', () => {
    const friday = sameDayAchWindows('2026-11-20')[2]!;
    expect(iso(standardAchSettlement(friday))).toBe(iso(nyInstant('2026-11-23', '08:30')));
    expect(iso(standardAchSettlement(friday))).toBe('2026-11-23T13:30:00.000Z');
    // Columbus Day 2026-10-12 → Tuesday
    const beforeColumbus = sameDayAchWindows('2026-10-09')[0]!;
    expect(iso(standardAchSettlement(beforeColumbus))).toBe(iso(nyInstant('2026-10-13', '08:30')));
    expect(iso(standardAchSettlement(beforeColumbus))).toBe('2026-10-13T12:30:00.000Z');
  });
});

describe('banking-day arithmetic', () => {
  it('examples', () => {
    expect(addBankingDays('2026-11-20', 1)).toBe('2026-11-23'); // Friday → Monday
    expect(addBankingDays('2026-11-25', 2)).toBe('2026-11-30'); // skips Thanksgiving and the weekend
    expect(addBankingDays('2026-11-21', 0)).toBe('2026-11-23'); // Saturday +0 → Monday
    expect(addBankingDays('2026-11-23', 0)).toBe('2026-11-23'); // banking day +0 → itself
    expect(nextBankingDay('2026-12-24')).toBe('2026-12-28');
    expect(nextBankingDay('2026-12-31')).toBe('2027-01-04'); // Jan 1 2027 is a Friday closure
  });
});

describe('properties (2000–2100)', () => {
  it('nextBankingDay is a banking day strictly after d with none in between', () => {
    fc.assert(
      fc.property(localDateArb, (d) => {
        const next = nextBankingDay(d);
        expect(next > d).toBe(true);
        expect(isWeekend(next)).toBe(false);
        expect(fedHolidayClosures(Number(next.slice(0, 4)))).not.toContain(next);
        expect(isBankingDay(next)).toBe(true);
        expect(countBankingDaysBetween(d, addCalendarDays(next, -1))).toBe(0);
      }),
    );
  });

  it('addBankingDays(d, n) is n banking days after d', () => {
    fc.assert(
      fc.property(localDateArb, fc.integer({ min: 0, max: 30 }), (d, n) => {
        const r = addBankingDays(d, n);
        expect(isBankingDay(r)).toBe(true);
        if (n === 0) {
          expect(r).toBe(isBankingDay(d) ? d : nextBankingDay(d));
        } else {
          expect(countBankingDaysBetween(d, r)).toBe(n);
        }
      }),
    );
  });

  it('every closure is a weekday of its year, sorted and unique', () => {
    fc.assert(
      fc.property(yearArb, (year) => {
        const closures = fedHolidayClosures(year);
        expect([...closures].sort()).toEqual(closures);
        expect(new Set(closures).size).toBe(closures.length);
        for (const c of closures) {
          expect(c.startsWith(`${year}-`)).toBe(true);
          expect(isWeekend(c)).toBe(false);
          expect(isBankingDay(c)).toBe(false);
        }
      }),
    );
  });

  it('closure count = holidays in force − fixed-date holidays on a Saturday', () => {
    fc.assert(
      fc.property(yearArb, (year) => {
        const fixed = ['01-01', '07-04', '11-11', '12-25', ...(year >= 2021 ? ['06-19'] : [])];
        const inForce = year >= 2021 ? 11 : 10;
        const onSaturday = fixed.filter((md) => new Date(`${year}-${md}T12:00:00Z`).getUTCDay() === 6).length;
        const count = fedHolidayClosures(year).length;
        expect(count).toBe(inForce - onSaturday);
        // June 19 and December 25 share a weekday, so from 2021 a year has 9, 10 or 11 closures.
        if (year >= 2021) expect([9, 10, 11]).toContain(count);
      }),
    );
  });

  it('nyDateOf(nyInstant(d, t)) === d', () => {
    fc.assert(
      fc.property(localDateArb, timeArb, (d, t) => {
        expect(nyDateOf(nyInstant(d, t))).toBe(d);
      }),
    );
  });

  it('nextSameDayAchWindow: cut-off at or after the instant, and no earlier window qualifies', () => {
    const instantArb = fc
      .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 11, 1) })
      .map((ms) => new Date(ms));
    fc.assert(
      fc.property(instantArb, (instant) => {
        const w = nextSameDayAchWindow(instant);
        expect(w.cutoff.getTime()).toBeGreaterThanOrEqual(instant.getTime());
        expect(isBankingDay(w.date)).toBe(true);
        expect(w.date >= nyDateOf(instant)).toBe(true);
        const earlierSameDay = sameDayAchWindows(w.date).filter((x) => x.window < w.window);
        for (const x of earlierSameDay) expect(x.cutoff.getTime()).toBeLessThan(instant.getTime());
        if (w.date !== nyDateOf(instant)) {
          expect(w.window).toBe(1);
          expect(nextBankingDay(nyDateOf(instant))).toBe(w.date);
        }
      }),
    );
  });
});
