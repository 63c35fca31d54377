import type { Hono } from 'hono';
import { resetKinds, resetMerchant } from '../../modules/sandbox/sandbox.reset.ts';
import { type DashEnv, dashboardContext, formOf } from './session.ts';
import { setFlash } from './ui.ts';

/** What the form's confirmation box sends: without it nothing is deleted. */
export const RESET_CONFIRMATION = 'reset';

/**
 * The keys page's "Reset sandbox data" form (POST, with the CSRF token every dashboard form has, and
 * a box to tick): the same reset as POST /v1/simulate/reset, then back to the keys page, which says
 * how many objects went.
 */
export function registerResetAction(app: Hono<DashEnv>): void {
  app.post('/reset', async (c) => {
    const form = await formOf(c);
    if (form.confirm !== RESET_CONFIRMATION) {
      setFlash(c, { error: 'Nothing was deleted: tick the box to confirm the reset.' });
      return c.redirect('/dashboard/keys', 303);
    }
    const result = await resetMerchant(await dashboardContext(c));
    // Objects, not the rows behind them: the ledger's and the attempt log's lines are left out.
    const objects = resetKinds()
      .filter(({ kind }) => !kind.startsWith('ledger_') && kind !== 'webhook_attempts')
      .map(({ kind }) => result.deleted[kind] ?? 0)
      .reduce((sum, n) => sum + n, 0);
    setFlash(c, {
      notice: `Sandbox reset: ${objects} objects deleted and the balances emptied; the clock is back to real time. Keys and webhook endpoints are kept.`,
    });
    return c.redirect('/dashboard/keys', 303);
  });
}
