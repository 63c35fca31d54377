/** What both NOC steps check and say: an ACH entry, a time frame's end, an instant in the bank's words. */
import { SandbankError } from '../../kernel/errors.ts';
import { isAchRail } from '../transfers/transfers.rails.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import { railName } from '../transfers/transfers.rows.ts';

export const NOC_EVENT = 'transfer.notification_of_change';
export const NOC_REFUSED_EVENT = 'transfer.notification_of_change_refused';

/**
 * The error's `deadline`: the first instant the step is refused (the last allowed second, 23:59:59
 * ET, plus one second), as return_deadline_passed names its deadline.
 */
export const endOfTimeFrame = (lastAllowed: Date): string =>
  new Date(lastAllowed.getTime() + 1000).toISOString();

/** An instant as the errors name it: ISO 8601 and the bank's local date and time. */
export function whenEt(at: Date): string {
  const local = at.toLocaleString('en-CA', {
    timeZone: 'America/New_York',
    hour12: false,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return `${at.toISOString()} (${local.replace(',', '')} ET)`;
}

export function notAch(row: TransferRow): void {
  if (!isAchRail(row.rail))
    throw new SandbankError('invalid_state', {
      message: `This ${railName(row.rail)} ${row.kind} is ${row.state}; notifications of change are for ACH entries only.`,
    });
}
