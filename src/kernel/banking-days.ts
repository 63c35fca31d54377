/**
 * Banking days (src/kernel/calendar.ts's first half): 'YYYY-MM-DD' dates and their arithmetic
 * through UTC-noon Date values (no DST hazards), and the Federal Reserve's closures
 * (reference/fed_holidays.json). The helpers calendar.ts builds on (parsing a date or a time,
 * checking an instant) are exported for it; everything public is re-exported by calendar.ts.
 */

/** A calendar date in America/New_York, 'YYYY-MM-DD'. */
export type LocalDate = string;

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

export function formatParts(year: number, month: number, day: number): LocalDate {
  if (!Number.isInteger(year) || year < 1 || year > 9999) {
    throw new Error(`calendar: year ${year} is outside 0001-9999`);
  }
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

export function parseLocalDate(date: LocalDate): DateParts {
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

export function parseTime(time: string): { hours: number; minutes: number } {
  const m = typeof time === 'string' ? TIME_RE.exec(time) : null;
  if (!m) throw new Error(`calendar: malformed time ${JSON.stringify(time)} (expected HH:MM, 00:00-23:59)`);
  return { hours: Number(m[1]), minutes: Number(m[2]) };
}

export function assertInstant(instant: Date): void {
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
