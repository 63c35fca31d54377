import {
  addCalendarDays,
  isBankingDay,
  type LocalDate,
  nextBankingDay,
  nyDateOf,
  nyInstant,
} from '../../kernel/calendar.ts';

/**
 * The periods statements report (docs/guide/statements.md). A banking day's statement covers
 * everything booked from the end of the previous banking day's period up to midnight (New York)
 * ending the day: what is booked on a weekend or a Federal Reserve holiday lands on the next
 * banking day's statement, as a bank posts it. Consecutive periods touch, so each statement's
 * opening balance is the previous one's closing balance.
 */
export interface StatementPeriod {
  date: LocalDate;
  start: Date;
  end: Date;
}

/** The last banking day strictly before `date`. */
export function previousBankingDay(date: LocalDate): LocalDate {
  let day = addCalendarDays(date, -1);
  while (!isBankingDay(day)) day = addCalendarDays(day, -1);
  return day;
}

/** The period of a banking day's statement. */
export function statementPeriod(date: LocalDate): StatementPeriod {
  return {
    date,
    start: nyInstant(addCalendarDays(previousBankingDay(date), 1), '00:00'),
    end: nyInstant(addCalendarDays(date, 1), '00:00'),
  };
}

/** The banking day whose statement an instant is booked on. */
export function statementDayOf(instant: Date): LocalDate {
  const day = nyDateOf(instant);
  return isBankingDay(day) ? day : nextBankingDay(day);
}

/** The banking day whose period ended last at or before `instant` (its statement is ready). */
export function lastClosedDay(instant: Date): LocalDate {
  return previousBankingDay(nyDateOf(instant));
}
