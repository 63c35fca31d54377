import type { Hono } from 'hono';
import { SandbankError } from '../../kernel/errors.ts';
import { parseInput } from '../../kernel/validation.ts';
import { advanceClock, freezeClock, resetClock, unfreezeClock } from '../../modules/clock/clock.change.ts';
import { advanceClockFieldCodes, advanceClockSchema } from '../../modules/clock/clock.schema.ts';
import type { ClockView } from '../../modules/clock/clock.service.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { type DashEnv, dashboardContext, dashboardPath, formOf } from './session.ts';
import { setFlash } from './ui.ts';

/** An advance by the body POST /v1/clock/advance takes, parsed as it parses it. */
function advance(
  svc: ServiceContext,
  body: { seconds: number } | { to: string } | { next: 'settlement' },
): Promise<ClockView> {
  return advanceClock(svc, parseInput(advanceClockSchema, body, advanceClockFieldCodes));
}

/**
 * The clock panel's buttons (every page has it): advance by an hour or a day, to the next settlement
 * (when every ACH entry in flight, standard or Same-Day, credit or debit, has settled), or to a
 * chosen UTC time; freeze, unfreeze, reset. Each runs the
 * merchant's due work on the way (the same advanceClock as POST /v1/clock/advance) and the next
 * page lists what ran.
 */
async function move(svc: ServiceContext, op: string, to: string | undefined): Promise<ClockView> {
  switch (op) {
    case 'hour':
      return advance(svc, { seconds: 3600 });
    case 'day':
      return advance(svc, { seconds: 86_400 });
    case 'next_settlement':
      return advance(svc, { next: 'settlement' });
    case 'to': {
      // datetime-local sends "2031-12-03T15:00" or with seconds: read as UTC, as the panel shows.
      if (!to || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(to))
        throw new SandbankError('parameter_invalid', {
          param: 'to',
          message: 'Choose a date and time (UTC).',
        });
      return advance(svc, { to: `${to.length === 16 ? `${to}:00` : to}Z` });
    }
    case 'freeze':
      return freezeClock(svc);
    case 'unfreeze':
      return unfreezeClock(svc);
    case 'reset':
      return resetClock(svc);
    default:
      throw new SandbankError('parameter_invalid', { param: 'op', message: 'Unknown clock operation.' });
  }
}

export function registerClockActions(app: Hono<DashEnv>): void {
  app.post('/clock', async (c) => {
    const form = await formOf(c);
    const back = dashboardPath(form.back);
    const svc = await dashboardContext(c);
    try {
      const view = await move(svc, form.op ?? '', form.to);
      const advanced = ['hour', 'day', 'next_settlement', 'to'].includes(form.op ?? '');
      setFlash(
        c,
        advanced
          ? { ran: view.ran }
          : { notice: `The clock is ${view.frozen ? 'frozen' : 'running'} at ${view.now.toISOString()}.` },
      );
    } catch (error) {
      if (!(error instanceof SandbankError)) throw error;
      setFlash(c, { error: error.message });
    }
    return c.redirect(back, 303);
  });
}
