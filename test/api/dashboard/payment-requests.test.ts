/**
 * Requests for payment in the dashboard, in-process: the list page's two forms send one and
 * simulate one received; a received request's page accepts and pays it or rejects it with a reason,
 * a sent one's withdraws it; each as REST reads back. A refusal comes back as the form's error.
 */
import { describe, expect, it } from 'vitest';
import { dashboardTestApp, signedIn } from '../../support/dashboard.ts';
import { testIdTexts } from '../../support/dashboard-clocked.ts';

const app = dashboardTestApp();

const party = (role: 'payer' | 'requester', account = '000123456789') => ({
  [`${role}[name]`]: `Dash ${role}`,
  [`${role}[routing_number]`]: '021000021',
  [`${role}[account_number]`]: account,
});

describe('requests for payment in the dashboard', () => {
  it('sends, withdraws, receives, rejects, and accepts and pays', async () => {
    const m = await app().merchant('Dashboard requests for payment');
    expect((await app().post(m, '/v1/clock/freeze')).status).toBe(200);
    const browser = await signedIn(app, m);
    const list = await browser.get('/dashboard/payment_requests');
    expect(list.status).toBe(200);
    expect(list.html).toContain('data-testid="payer-form"');
    expect(list.html).toContain('data-testid="requester-form"');

    const sent = await browser.post('/dashboard/payment_requests', {
      rail: 'fednow',
      amount: '12.50',
      currency: 'USD',
      ...party('payer'),
    });
    expect(sent.status).toBe(303);
    const sentId = /\/payment_requests\/(rfp_\w+)$/.exec(sent.location ?? '')?.[1] as string;
    const sentPage = await browser.get(sent.location ?? '');
    expect(sentPage.html).toMatch(/data-testid="rfp-state">[\s\S]*?pending/);
    expect(sentPage.html).toContain('data-testid="rfp-cancel"');
    await browser.post(`/dashboard/payment_requests/${sentId}/cancel`, {});
    expect((await app().get(m, `/v1/payment_requests/${sentId}`)).body).toMatchObject({
      state: 'canceled',
      rail: 'fednow',
      amount: 12.5,
    });

    // Received, then refused with a reason.
    const asked = await browser.post('/dashboard/payment_requests/simulate', {
      rail: 'rtp',
      amount: '5',
      currency: 'USD',
      ...party('requester'),
    });
    const askedId = /\/payment_requests\/(rfp_\w+)$/.exec(asked.location ?? '')?.[1] as string;
    const askedPage = await browser.get(asked.location ?? '');
    expect(askedPage.html).toContain('data-testid="rfp-accept"');
    expect(askedPage.html).toContain('data-testid="rfp-reject"');
    await browser.post(`/dashboard/payment_requests/${askedId}/reject`, { reason: 'BE05' });
    expect((await app().get(m, `/v1/payment_requests/${askedId}`)).body).toMatchObject({
      state: 'rejected',
      rejection_code: 'BE05',
    });

    // Received, accepted without funds (the form's error, nothing paid), then funded and accepted.
    const owed = await browser.post('/dashboard/payment_requests/simulate', {
      rail: 'rtp',
      amount: '8',
      currency: 'USD',
      ...party('requester'),
    });
    const owedId = /\/payment_requests\/(rfp_\w+)$/.exec(owed.location ?? '')?.[1] as string;
    const short = await browser.post(`/dashboard/payment_requests/${owedId}/accept`, {});
    const refusedPage = await browser.get(short.location ?? '');
    expect(testIdTexts(refusedPage.html, 'flash-error')[0]).toMatch(/balance/i);
    expect((await app().get(m, `/v1/payment_requests/${owedId}`)).body.state).toBe('pending');
    expect(
      (await app().post(m, '/v1/simulate/balance/top_up', { amount: '20.00', currency: 'USD' })).status,
    ).toBe(200);
    await browser.post(`/dashboard/payment_requests/${owedId}/accept`, {});
    const paid = (await app().get(m, `/v1/payment_requests/${owedId}`)).body;
    expect(paid).toMatchObject({ state: 'paid' });
    const paidPage = await browser.get(`/dashboard/payment_requests/${owedId}`);
    expect(paidPage.html).toContain(`/dashboard/transactions/${paid.transfer}`);
    expect(
      testIdTexts((await browser.get('/dashboard/payment_requests')).html, 'payment-request-row'),
    ).toHaveLength(3);
  });
});
