/**
 * US banking calendar: Federal Reserve closures, banking days, New York wall time, and the FedACH
 * Same-Day / next-day settlement schedule. Domain-free and clock-free: every function takes the
 * date or instant it works on (never Date.now()).
 *
 * The holiday rule is reference/fed_holidays.json (its 2026 list is checked in the tests).
 * Date math is done on 'YYYY-MM-DD' strings through UTC-noon Date values (no DST hazards);
 * @date-fns/tz is used only to convert between New York wall time and instants. The dates and
 * the closures are banking-days.ts's (re-exported here); this file adds New York time and FedACH.
 */
import { TZDate } from '@date-fns/tz';
import rails from '../../reference/rails_and_lifecycle.json' with { type: 'json' };
import {
  addCalendarDays,
  assertInstant,
  formatParts,
  isBankingDay,
  type LocalDate,
  nextBankingDay,
  parseLocalDate,
  parseTime,
} from './banking-days.ts';

export {
  addBankingDays,
  addCalendarDays,
  fedHolidayClosures,
  isBankingDay,
  isWeekend,
  type LocalDate,
  nextBankingDay,
} from './banking-days.ts';

export const BANK_TIME_ZONE = 'America/New_York';

// ---------------------------------------------------------------------------------------------
// New York wall time <-> instants
// ---------------------------------------------------------------------------------------------

/** The last New York day nyDateOf answered, as the instants it spans: most calls fall in it again. */
let lastNyDay: { date: LocalDate; from: number; until: number } | null = null;

/** The New York calendar date of an instant. */
export function nyDateOf(instant: Date): LocalDate {
  assertInstant(instant);
  const time = instant.getTime();
  if (lastNyDay && time >= lastNyDay.from && time < lastNyDay.until) return lastNyDay.date;
  const ny = new TZDate(time, BANK_TIME_ZONE);
  const year = ny.getFullYear();
  const date = formatParts(year, ny.getMonth() + 1, ny.getDate());
  // Remembered only for years with standard time (New York kept local mean time, UTC−4:56:02,
  // until 1883-11-18, where nyInstant's midnight is off by seconds) and with a next day to bound it.
  if (year >= 1884 && year <= 9998) {
    const from = nyInstant(date, '00:00').getTime();
    const until = nyInstant(addCalendarDays(date, 1), '00:00').getTime();
    if (time >= from && time < until) lastNyDay = { date, from, until };
  }
  return date;
}

/**
 * The instant of a New York wall time on a date, DST-correct. A wall time inside the spring-forward
 * gap (02:00-02:59 on the March switch day) resolves forward (e.g. 02:30 → 03:30 EDT); an ambiguous
 * fall-back time (01:00-01:59) resolves to the first occurrence (EDT).
 */
export function nyInstant(date: LocalDate, time: string): Date {
  const { year, month, day } = parseLocalDate(date);
  const { hours, minutes } = parseTime(time);
  const wall = TZDate.tz(BANK_TIME_ZONE, 0);
  wall.setFullYear(year, month - 1, day); // setFullYear keeps years 0-99 literal
  wall.setHours(hours, minutes, 0, 0);
  return new Date(wall.getTime());
}

// ---------------------------------------------------------------------------------------------
// FedACH schedule (reference/rails_and_lifecycle.json)
// ---------------------------------------------------------------------------------------------

export interface AchWindow {
  window: number;
  /** Transmission deadline: submissions at or before this instant make the window. */
  cutoff: Date;
  settlement: Date;
  /** The banking day the window belongs to. */
  date: LocalDate;
}

interface WindowSpec {
  window: number;
  cutoff: string;
  settlement: string;
}

const SAME_DAY_WINDOWS: readonly WindowSpec[] = Object.freeze(
  rails.same_day_ach.windows_et
    .map((w) => {
      parseTime(w.transmission_deadline);
      parseTime(w.settlement);
      return { window: w.window, cutoff: w.transmission_deadline, settlement: w.settlement };
    })
    .sort((a, b) => a.window - b.window),
);

const NEXT_DAY_SETTLEMENT_TIME_ET: string = rails.standard_ach.next_day_settlement_time_et;
parseTime(NEXT_DAY_SETTLEMENT_TIME_ET);

/** The Same-Day ACH windows of a banking day, in order; an empty array for non-banking days. */
export function sameDayAchWindows(date: LocalDate): AchWindow[] {
  if (!isBankingDay(date)) return [];
  return SAME_DAY_WINDOWS.map((w) => ({
    window: w.window,
    cutoff: nyInstant(date, w.cutoff),
    settlement: nyInstant(date, w.settlement),
    date,
  }));
}

function firstWindowOf(date: LocalDate): AchWindow {
  const first = sameDayAchWindows(date)[0];
  if (!first) throw new Error(`calendar: no Same-Day ACH windows on ${date}`);
  return first;
}

/**
 * The first Same-Day ACH window whose cut-off is at or after `instant`, on the instant's New York
 * date; after the last cut-off, or on a weekend or closure, the next banking day's first window.
 */
export function nextSameDayAchWindow(instant: Date): AchWindow {
  assertInstant(instant);
  const date = nyDateOf(instant);
  const t = instant.getTime();
  const today = sameDayAchWindows(date).find((w) => w.cutoff.getTime() >= t);
  return today ?? firstWindowOf(nextBankingDay(date));
}

/** Standard (next-day) ACH settlement: the next banking day after the window's date, 08:30 ET. */
export function standardAchSettlement(submittedWindow: AchWindow): Date {
  return nyInstant(nextBankingDay(submittedWindow.date), NEXT_DAY_SETTLEMENT_TIME_ET);
}

const NEXT_DAY_DEPOSIT_DEADLINE_ET: string = rails.standard_ach.next_day_deposit_deadline_et;
parseTime(NEXT_DAY_DEPOSIT_DEADLINE_ET);

/**
 * The overnight next-day deposit of a banking day: files the ACH Operator takes after the last
 * Same-Day window and by 02:15 ET settle at 08:30 ET that banking day. Its `window` is 0.
 */
export function overnightAchWindow(date: LocalDate): AchWindow {
  if (!isBankingDay(date)) throw new Error(`calendar: no overnight ACH deposit on ${date}`);
  return {
    window: 0,
    cutoff: nyInstant(date, NEXT_DAY_DEPOSIT_DEADLINE_ET),
    settlement: nyInstant(date, NEXT_DAY_SETTLEMENT_TIME_ET),
    date,
  };
}

/**
 * Where a standard (next-day) ACH entry created at `instant` goes, and when it settles: the
 * banking day's overnight deposit (up to 02:15 ET, settling 08:30 ET that day), else its next
 * Same-Day window whose cut-off is at or after the instant (settling the next banking day,
 * 08:30 ET); after the last window, on weekends and on closures: the next banking day's overnight
 * deposit, so an evening entry settles the next banking day.
 */
export function nextStandardAchDeposit(instant: Date): AchWindow & { window: number } {
  assertInstant(instant);
  const date = nyDateOf(instant);
  const t = instant.getTime();
  if (isBankingDay(date)) {
    const overnight = overnightAchWindow(date);
    if (t <= overnight.cutoff.getTime()) return overnight;
    const today = sameDayAchWindows(date).find((w) => w.cutoff.getTime() >= t);
    if (today) return { ...today, settlement: standardAchSettlement(today) };
  }
  return overnightAchWindow(nextBankingDay(date));
}
