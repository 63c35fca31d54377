/**
 * US banking calendar: Federal Reserve closures, banking days, New York wall time, and the FedACH
 * Same-Day / next-day settlement schedule. Domain-free and clock-free: every function takes the
 * date or instant it works on (never Date.now()).
 *
 * The holiday rule is reference/fed_holidays.json (its 2026 list is checked in the tests).
 * Date math is done on 'YYYY-MM-DD' strings through UTC-noon Date values (no DST hazards);
 * @date-fns/tz is used only to convert between New York wall time and instants.
 */
import { TZDate } from '@date-fns/tz';
import rails from '../../reference/rails_and_lifecycle.json' with { type: 'json' };

/** A calendar date in America/New_York, 'YYYY-MM-DD'. */
export type LocalDate = string;

export const BANK_TIME_ZONE = 'America/New_York';

const DAY_MS = 86_400_000;
const LOCAL_DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_RE = /^([01]\d|2[0-3]):([0-5]\d)$/;

const SUNDAY = 0;
const MONDAY = 1;
const THURSDAY = 4;
const SATURDAY = 6;

// ---------------------------------------------------------------------------------------------
// LocalDate parsing and UTC-noon arithmetic
// ---------------------------------------------------------------------------------------------

interface DateParts {
  year: number;
  month: number; // 1-12
  day: number;
}

function utcNoon(year: number, month: number, day: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // setUTCFullYear keeps years 0-99 literal, unlike Date.UTC
  d.setUTCHours(12, 0, 0, 0);
  return d;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function formatParts(year: number, month: number, day: number): LocalDate {
  if (!Number.isInteger(year) || year < 1 || year > 9999) {
    throw new Error(`calendar: year ${year} is outside 0001-9999`);
  }
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

function parseLocalDate(date: LocalDate): DateParts {
  const m = typeof date === 'string' ? LOCAL_DATE_RE.exec(date) : null;
  if (!m) throw new Error(`calendar: malformed LocalDate ${JSON.stringify(date)} (expected YYYY-MM-DD)`);
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const check = utcNoon(year, month, day);
  if (
    year < 1 ||
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day
  ) {
    throw new Error(`calendar: ${JSON.stringify(date)} is not a real calendar date`);
  }
  return { year, month, day };
}

function toUtcNoon(date: LocalDate): Date {
  const { year, month, day } = parseLocalDate(date);
  return utcNoon(year, month, day);
}

function fromUtcNoon(d: Date): LocalDate {
  return formatParts(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

/** 0 = Sunday … 6 = Saturday. */
function dayOfWeek(date: LocalDate): number {
  return toUtcNoon(date).getUTCDay();
}

function parseTime(time: string): { hours: number; minutes: number } {
  const m = typeof time === 'string' ? TIME_RE.exec(time) : null;
  if (!m) throw new Error(`calendar: malformed time ${JSON.stringify(time)} (expected HH:MM, 00:00-23:59)`);
  return { hours: Number(m[1]), minutes: Number(m[2]) };
}

function assertInstant(instant: Date): void {
  if (!(instant instanceof Date) || Number.isNaN(instant.getTime())) {
    throw new Error('calendar: invalid Date instant');
  }
}

export function addCalendarDays(date: LocalDate, days: number): LocalDate {
  if (!Number.isInteger(days)) throw new Error(`calendar: days must be an integer, got ${days}`);
  return fromUtcNoon(new Date(toUtcNoon(date).getTime() + days * DAY_MS));
}

export function isWeekend(date: LocalDate): boolean {
  const dow = dayOfWeek(date);
  return dow === SATURDAY || dow === SUNDAY;
}

// ---------------------------------------------------------------------------------------------
// Federal Reserve holidays (rule: reference/fed_holidays.json)
// ---------------------------------------------------------------------------------------------

/** The n-th (1-based) given weekday of a month. */
function nthWeekdayOfMonth(year: number, month: number, weekday: number, n: number): LocalDate {
  const firstDow = utcNoon(year, month, 1).getUTCDay();
  const day = 1 + ((weekday - firstDow + 7) % 7) + (n - 1) * 7;
  return formatParts(year, month, day);
}

/** The last given weekday of a month. */
function lastWeekdayOfMonth(year: number, month: number, weekday: number): LocalDate {
  const last = utcNoon(year, month + 1, 0); // day 0 of next month = last day of this month
  const day = last.getUTCDate() - ((last.getUTCDay() - weekday + 7) % 7);
  return formatParts(year, month, day);
}

/**
 * A fixed-date holiday's closure under the Fed rule: Saturday → no closure (open the Friday before;
 * only the Board of Governors closes), Sunday → the following Monday, weekday → that day.
 */
function fixedHolidayClosure(year: number, month: number, day: number): LocalDate | null {
  const date = formatParts(year, month, day);
  const dow = dayOfWeek(date);
  if (dow === SATURDAY) return null;
  if (dow === SUNDAY) return addCalendarDays(date, 1);
  return date;
}

/** Juneteenth became a federal holiday in 2021 (Juneteenth National Independence Day Act). */
const JUNETEENTH_FIRST_YEAR = 2021;

function computeClosures(year: number): LocalDate[] {
  const candidates: Array<LocalDate | null> = [
    fixedHolidayClosure(year, 1, 1), // New Year's Day
    nthWeekdayOfMonth(year, 1, MONDAY, 3), // Birthday of Martin Luther King, Jr.
    nthWeekdayOfMonth(year, 2, MONDAY, 3), // Washington's Birthday
    lastWeekdayOfMonth(year, 5, MONDAY), // Memorial Day
    year >= JUNETEENTH_FIRST_YEAR ? fixedHolidayClosure(year, 6, 19) : null, // Juneteenth
    fixedHolidayClosure(year, 7, 4), // Independence Day
    nthWeekdayOfMonth(year, 9, MONDAY, 1), // Labor Day
    nthWeekdayOfMonth(year, 10, MONDAY, 2), // Columbus Day
    fixedHolidayClosure(year, 11, 11), // Veterans Day
    nthWeekdayOfMonth(year, 11, THURSDAY, 4), // Thanksgiving Day
    fixedHolidayClosure(year, 12, 25), // Christmas Day
  ];
  // Sunday→Monday shifts never cross a year boundary (Jan 1 → Jan 2, Dec 25 → Dec 26), and a
  // Saturday Jan 1 of year+1 creates no Dec 31 closure, so each year is self-contained.
  return candidates.filter((d): d is LocalDate => d !== null).sort();
}

interface YearClosures {
  list: readonly LocalDate[];
  set: ReadonlySet<LocalDate>;
}

const closureCache = new Map<number, YearClosures>();

function closuresOf(year: number): YearClosures {
  let entry = closureCache.get(year);
  if (!entry) {
    const list = Object.freeze(computeClosures(year));
    entry = { list, set: new Set(list) };
    closureCache.set(year, entry);
  }
  return entry;
}

/** The Federal Reserve banking-day closures of a year, sorted, computed from the holiday rule. */
export function fedHolidayClosures(year: number): LocalDate[] {
  if (!Number.isInteger(year) || year < 1 || year > 9999) {
    throw new Error(`calendar: year must be an integer in 1-9999, got ${year}`);
  }
  return [...closuresOf(year).list];
}

/** Not a weekend and not a Federal Reserve closure. */
export function isBankingDay(date: LocalDate): boolean {
  const { year } = parseLocalDate(date);
  return !isWeekend(date) && !closuresOf(year).set.has(date);
}

/** The first banking day strictly after `date`. */
export function nextBankingDay(date: LocalDate): LocalDate {
  let d = addCalendarDays(date, 1);
  while (!isBankingDay(d)) d = addCalendarDays(d, 1);
  return d;
}

/**
 * days = 0: `date` itself if it is a banking day, else the next banking day.
 * days = n > 0: the n-th banking day strictly after `date`.
 */
export function addBankingDays(date: LocalDate, days: number): LocalDate {
  if (!Number.isInteger(days) || days < 0) {
    throw new Error(`calendar: banking days must be a non-negative integer, got ${days}`);
  }
  if (days === 0) return isBankingDay(date) ? date : nextBankingDay(date);
  let d = date;
  for (let i = 0; i < days; i++) d = nextBankingDay(d);
  return d;
}

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
