/**
 * A counterparty's account verification in the dashboard, in-process: its page sends micro-deposits,
 * confirms the amounts once they arrive (a wrong pair shows the attempts left), or sends a prenote;
 * each as REST reads back.
 */
import { describe, expect, it } from 'vitest';
import { dashboardTestApp, signedIn } from '../../support/dashboard.ts';
import { testIdTexts } from '../../support/dashboard-clocked.ts';

const app = dashboardTestApp();

describe('account verification in the dashboard', () => {
  it('sends micro-deposits, refuses a wrong pair with the attempts left, confirms the right one; sends a prenote', async () => {
    const m = await app().merchant('Dashboard verification');
    expect((await app().post(m, '/v1/clock/freeze')).status).toBe(200);
    expect((await app().post(m, '/v1/clock/advance', { to: '2031-12-01T14:00:00Z' })).status).toBe(200);
    const browser = await signedIn(app, m);
    const saved = (
      await app().post(m, '/v1/counterparties', {
        name: 'Dash',
        routing_number: '021000021',
        account_number: '000123456789',
      })
    ).body;
    const page = `/dashboard/counterparties/${saved.id}`;
    expect((await browser.get(page)).html).toContain('data-testid="send-microdeposits"');
    await browser.post(`${page}/microdeposits`, {});
    const pending = await browser.get(page);
    expect(testIdTexts(pending.html, 'verification-status')).toEqual(['verification_pending']);
    expect(pending.html).toContain('data-testid="confirm-microdeposits-form"');
    expect((await app().post(m, '/v1/clock/advance', { to: '2031-12-01T18:00:00Z' })).status).toBe(200);
    const wrong = await browser.post(`${page}/microdeposits/confirm`, {
      'amounts[0]': '0.10',
      'amounts[1]': '0.20',
    });
    expect(testIdTexts((await browser.get(wrong.location ?? '')).html, 'flash-error')[0]).toContain(
      '2 attempts remain',
    );
    await browser.post(`${page}/microdeposits/confirm`, { 'amounts[0]': '0.32', 'amounts[1]': '0.45' });
    expect((await app().get(m, `/v1/counterparties/${saved.id}`)).body.verification_status).toBe('verified');

    const other = (
      await app().post(m, '/v1/counterparties', {
        name: 'Pre',
        routing_number: '021000021',
        account_number: '000123456789',
      })
    ).body;
    await browser.post(`/dashboard/counterparties/${other.id}/prenote`, {});
    expect((await app().get(m, `/v1/counterparties/${other.id}`)).body).toMatchObject({
      verification_status: 'verification_pending',
      verification_method: 'prenote',
    });
  });
});
