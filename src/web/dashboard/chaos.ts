import type { Hono } from 'hono';
import { html } from 'hono/html';
import { isSandbankError } from '../../kernel/errors.ts';
import type { ChaosSetting } from '../../modules/chaos/chaos.service.ts';
import { setChaosSetting } from '../../modules/chaos/chaos.service.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import { csrfField, setFlash } from './ui.ts';

/**
 * The keys page's "Chaos" form: the merchant's chaos setting (docs/chaos.md), the same as
 * POST /v1/simulate/chaos; an empty field clears it.
 */
export function chaosCard(c: DashContext, setting: ChaosSetting) {
  return html`<section class="card" id="chaos">
  <h2>Chaos</h2>
  <p>Faults injected into every keyed REST request of this merchant that has no <code>Sandbank-Chaos</code> header,
  before the operation runs, to test your retries and timeouts. For example
  <code>latency=200ms; error=0.3; status=503; seed=42</code>, <code>rate_limit=0.1; retry_after=2</code> or
  <code>timeout=0.05; timeout_after=5s</code>. Leave it empty for none.</p>
  <form method="post" action="/dashboard/chaos">${csrfField(c)}
    <label>Faults <input type="text" name="faults" maxlength="500" value="${setting.faults ?? ''}" data-testid="chaos-faults"></label>
    <button type="submit" class="secondary" data-testid="chaos-save">Save chaos</button>
  </form>
  <p class="muted" data-testid="chaos-state">${setting.faults ? html`Now injecting: <code>${setting.faults}</code>.` : 'No chaos: requests run normally.'}</p>
</section>`;
}

export function registerChaosAction(app: Hono<DashEnv>): void {
  app.post('/chaos', async (c) => {
    const form = await formOf(c);
    const faults = form.faults ?? '';
    try {
      const setting = await setChaosSetting(await dashboardContext(c), faults);
      setFlash(c, { notice: setting.faults ? `Chaos set: ${setting.faults}.` : 'Chaos cleared.' });
    } catch (error) {
      if (!isSandbankError(error)) throw error;
      setFlash(c, { error: `Chaos not changed: ${error.message}` });
    }
    return c.redirect('/dashboard/keys#chaos', 303);
  });
}
