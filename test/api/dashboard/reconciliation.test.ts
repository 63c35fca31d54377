/**
 * Reconciliation in the dashboard, in-process: the form expects a payment, "Payer pays" has it paid
 * and matched, "Cancel" cancels another; each as REST reads back. A refusal comes back as the
 * form's error and writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { dashboardTestApp, signedIn } from '../../support/dashboard.ts';

const app = dashboardTestApp();

describe('reconciliation in the dashboard', () => {
  it('expects, has the payer pay, cancels, and refuses an impossible window', async () => {
    const m = await app().merchant('Dashboard reconciliation');
    await app().post(m, '/v1/clock/freeze');
    await app().post(m, '/v1/clock/advance', { to: '2031-03-04T15:00:00Z' });
    const browser = await signedIn(app, m);
    const expect1 = await browser.post('/dashboard/expected_payments', {
      direction: 'credit',
      amount: '30.00',
      currency: 'USD',
      reference: 'DASH-30',
      days: '3',
    });
    expect(expect1.status).toBe(303);
    const list = await browser.get('/dashboard/expected_payments');
    const id = /data-testid="expected-payment-row" data-id="(exp_\w+)"/.exec(list.html)?.[1] as string;
    expect(id).toMatch(/^exp_/);
    expect(list.html).toContain('data-testid="expected-pay"');
    await browser.post(`/dashboard/expected_payments/${id}/pay`, {});
    expect((await app().get(m, `/v1/expected_payments/${id}`)).body).toMatchObject({
      state: 'matched',
      amount_matched: 30,
      reference: 'DASH-30',
    });
    await browser.post('/dashboard/expected_payments', {
      direction: 'debit',
      amount: '5',
      currency: 'USD',
      days: '2',
    });
    const second = ((await app().get(m, '/v1/expected_payments')).body.data as { id: string }[])[0]
      ?.id as string;
    await browser.post(`/dashboard/expected_payments/${second}/cancel`, {});
    expect((await app().get(m, `/v1/expected_payments/${second}`)).body).toMatchObject({ state: 'canceled' });

    const refused = await browser.post('/dashboard/expected_payments', {
      direction: 'credit',
      amount: '5',
      currency: 'USD',
      days: '0',
    });
    const page = await browser.get(refused.location ?? '/dashboard/expected_payments');
    expect(page.html).toContain('data-testid="flash-error"');
    expect(((await app().get(m, '/v1/expected_payments')).body.data as unknown[]).length).toBe(2);
  });
});
