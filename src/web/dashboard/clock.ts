import type { Hono } from 'hono';
import { SandbankError } from '../../kernel/errors.ts';
import { advanceClock, freezeClock, resetClock, unfreezeClock } from '../../modules/clock/clock.change.ts';
import { advanceClockFieldCodes, advanceClockSchema } from '../../modules/clock/clock.schema.ts';
import type { ClockView } from '../../modules/clock/clock.service.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { bodyOfForm } from './form-submit.ts';
import { type DashEnv, dashboardContext, dashboardPath, formOf } from './session.ts';
import { setFlash } from './ui.ts';

/**
 * The clock panel's buttons (every page has it): advance by an hour or a day, to the next settlement
 * (when every ACH entry in flight, standard or Same-Day, credit or debit, has settled), or to a
 * chosen UTC time; freeze, unfreeze, reset. An advance's form is the body of POST /v1/clock/advance
 * (`seconds`, `next=settlement`, or `to` from a datetime-local input, read as UTC), read by
 * bodyOfForm and run by the same advanceClock, which runs the merchant's due work on the way (the
 * next page lists what ran); the other buttons are an `op`.
 */
async function move(svc: ServiceContext, form: Record<string, string>): Promise<ClockView | null> {
  switch (form.op) {
    case undefined:
      return null;
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

async function advance(svc: ServiceContext, form: Record<string, string>): Promise<ClockView> {
  const { back: _back, ...body } = form;
  return advanceClock(svc, bodyOfForm(advanceClockSchema, body, advanceClockFieldCodes));
}

export function registerClockActions(app: Hono<DashEnv>): void {
  app.post('/clock', async (c) => {
    const form = await formOf(c);
    const back = dashboardPath(form.back);
    const svc = await dashboardContext(c);
    try {
      const changed = await move(svc, form);
      if (changed)
        setFlash(c, {
          notice: `The clock is ${changed.frozen ? 'frozen' : 'running'} at ${changed.now.toISOString()}.`,
        });
      else setFlash(c, { ran: (await advance(svc, form)).ran });
    } catch (error) {
      if (!(error instanceof SandbankError)) throw error;
      setFlash(c, { error: error.message });
    }
    return c.redirect(back, 303);
  });
}
