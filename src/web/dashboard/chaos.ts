import type { Hono } from 'hono';
import { html } from 'hono/html';
import { isSandbankError } from '../../kernel/errors.ts';
import type { ChaosSetting } from '../../modules/chaos/chaos.service.ts';
import { setChaosSetting } from '../../modules/chaos/chaos.service.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import { csrfField, setFlash } from './ui.ts';

/**
 * The keys page's "Chaos" form: the merchant's chaos setting (docs/guide/chaos.md), the same as
 * POST /v1/simulate/chaos: API request faults and webhook delivery faults; an empty field clears
 * its half.
 */
export function chaosCard(c: DashContext, setting: ChaosSetting) {
  return html`<section class="card" id="chaos">
  <h2>Chaos</h2>
  <p>Faults injected into every keyed REST request and GraphQL query or mutation of this merchant that has no
  <code>Sandbank-Chaos</code> header, before the operation runs, to test your retries and timeouts. For example
  <code>latency=200ms; error=0.3; status=503; seed=42</code>, <code>rate_limit=0.1; retry_after=2</code> or
  <code>timeout=0.05; timeout_after=5s</code>. Leave it empty for none.</p>
  <p>Webhook faults change how this merchant's webhook deliveries are sent, to test your receiver: an event sent twice
  (<code>duplicate=0.1</code>, same <code>webhook-id</code>), held before sending (<code>delay=0.2; delay_for=5s</code>)
  or held back until a later event was sent (<code>reorder=0.2</code>); add <code>seed=42</code> to replay.
  Every fault is marked in the deliveries' attempts. Nothing is ever dropped.</p>
  <form method="post" action="/dashboard/chaos">${csrfField(c)}
    <label>Faults <input type="text" name="faults" maxlength="500" value="${setting.faults ?? ''}" data-testid="chaos-faults"></label>
    <label>Webhook faults <input type="text" name="webhook_faults" maxlength="500" value="${setting.webhookFaults ?? ''}" data-testid="chaos-webhook-faults"></label>
    <button type="submit" class="secondary" data-testid="chaos-save">Save chaos</button>
  </form>
  <p class="muted" data-testid="chaos-state">${setting.faults ? html`Now injecting: <code>${setting.faults}</code>.` : 'No chaos: requests run normally.'}</p>
  <p class="muted" data-testid="chaos-webhook-state">${setting.webhookFaults ? html`Webhook deliveries: <code>${setting.webhookFaults}</code>.` : 'No webhook chaos: deliveries are sent normally.'}</p>
</section>`;
}

export function registerChaosAction(app: Hono<DashEnv>): void {
  app.post('/chaos', async (c) => {
    const form = await formOf(c);
    const faults = form.faults ?? '';
    try {
      // A form without the webhook field (an older page) leaves the webhook faults as they are.
      const setting = await setChaosSetting(await dashboardContext(c), {
        faults,
        webhookFaults: form.webhook_faults,
      });
      const parts = [
        setting.faults ? `Chaos set: ${setting.faults}.` : 'Chaos cleared.',
        ...(setting.webhookFaults ? [`Webhook chaos: ${setting.webhookFaults}.`] : []),
      ];
      setFlash(c, { notice: parts.join(' ') });
    } catch (error) {
      if (!isSandbankError(error)) throw error;
      setFlash(c, { error: `Chaos not changed: ${error.message}` });
    }
    return c.redirect('/dashboard/keys#chaos', 303);
  });
}
