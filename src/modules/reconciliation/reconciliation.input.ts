import { addCalendarDays, nyDateOf, nyInstant } from '../../kernel/calendar.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { formatDecimal, parseAmount } from '../../kernel/money.ts';
import type { CreateExpectedPaymentInput } from './reconciliation.schema.ts';

/** An expected payment's amount range and window, checked (400 for what cannot be). */
const MAX_WINDOW_DAYS = 366;
/** The most an expected payment can be: 9,999,999,999.99 USD (Fedwire's limit, the largest rail's). */
const MAX_AMOUNT = 999_999_999_999n;
/** The last day a window may end on (the calendar's). */
const LAST_DAY = '9998-12-31';

export function amountsOf(input: CreateExpectedPaymentInput): { min: bigint; max: bigint } {
  const exact = input.amount !== undefined;
  const range = input.amount_min !== undefined || input.amount_max !== undefined;
  if (exact === range)
    throw new SandbankError('parameter_invalid', {
      param: exact ? 'amount_min' : 'amount',
      message: 'Give either amount, or amount_min and amount_max.',
    });
  if (exact) {
    const amount = parseAmount(input.amount, 'USD', { min: 1n, max: MAX_AMOUNT });
    return { min: amount, max: amount };
  }
  if (input.amount_min === undefined || input.amount_max === undefined)
    throw new SandbankError('parameter_missing', {
      param: input.amount_min === undefined ? 'amount_min' : 'amount_max',
      message: 'A range needs both amount_min and amount_max.',
    });
  const min = parseAmount(input.amount_min, 'USD', { min: 1n, max: MAX_AMOUNT, param: 'amount_min' });
  const max = parseAmount(input.amount_max, 'USD', { min: 1n, max: MAX_AMOUNT, param: 'amount_max' });
  if (min > max)
    throw new SandbankError('parameter_invalid', {
      param: 'amount_max',
      message: `amount_max (${formatDecimal(max, 'USD')}) is below amount_min (${formatDecimal(min, 'USD')}).`,
    });
  return { min, max };
}

/** The window: its days and its instants, from midnight (New York) of date_from to midnight ending date_to. */
export function windowOf(
  input: CreateExpectedPaymentInput,
  now: Date,
): { from: string; to: string; start: Date; end: Date } {
  if ((input.date_to === undefined) === (input.days === undefined))
    throw new SandbankError('parameter_invalid', {
      param: input.date_to === undefined ? 'date_to' : 'days',
      message: "Give the window's end as date_to, or its length as days (one of the two).",
    });
  const from = input.date_from ?? nyDateOf(now);
  const to = input.date_to ?? addCalendarDays(from, (input.days as number) - 1);
  if (to > LAST_DAY)
    throw new SandbankError('parameter_invalid', {
      param: input.date_to === undefined ? 'days' : 'date_to',
      message: `The window must end by ${LAST_DAY}.`,
    });
  const start = nyInstant(from, '00:00');
  const end = nyInstant(addCalendarDays(to, 1), '00:00');
  const days = Math.round((end.getTime() - start.getTime()) / 86_400_000);
  if (end.getTime() <= start.getTime())
    throw new SandbankError('parameter_invalid', {
      param: 'date_to',
      message: `date_to (${to}) is before date_from (${from}).`,
    });
  if (days > MAX_WINDOW_DAYS)
    throw new SandbankError('parameter_invalid', {
      param: 'date_to',
      message: `The window is ${days} days; at most ${MAX_WINDOW_DAYS}.`,
    });
  if (end.getTime() <= now.getTime())
    throw new SandbankError('parameter_invalid', {
      param: 'date_to',
      message: `The window has already ended on the merchant's clock (${now.toISOString()}): nothing could still arrive in it.`,
    });
  return { from, to, start, end };
}
