/**
 * Disputes in the dashboard, in-process: a captured card payment's page links to "Simulate a
 * dispute"; the form opens one; the dispute's page shows its fields, timeline, postings, the
 * evidence form and the buttons its state allows; submitting, the clock and the simulated decision
 * move it, as REST reads back. Refusals come back as the form's error, nothing changed.
 */
import { describe, expect, it } from 'vitest';
import { dashboardTestApp, signedIn } from '../../support/dashboard.ts';
import { testIdTexts } from '../../support/dashboard-clocked.ts';
import type { TestMerchant } from '../../support/harness.ts';
import { expectLedgerBalanced } from '../../support/ledger.ts';

const app = dashboardTestApp();

const expectLedgerBalancedOf = (m: TestMerchant) => expectLedgerBalanced(app().database.db, m.id);

async function payment(m: TestMerchant, number = '4242424242424242'): Promise<string> {
  const res = await app().post(m, '/v1/card_payments', {
    amount: 70,
    currency: 'USD',
    card: { number, exp_month: 12, exp_year: 2099, cvc: '123' },
  });
  expect(res.status, res.text).toBe(200);
  return String(res.body.id);
}

describe('disputes in the dashboard', () => {
  it('opens a dispute from a card payment, submits evidence, and the review wins it', async () => {
    const m = await app().merchant('Dashboard disputes');
    expect((await app().post(m, '/v1/clock/freeze')).status).toBe(200);
    const browser = await signedIn(app, m);
    const id = await payment(m);

    const paymentPage = await browser.get(`/dashboard/transactions/${id}`);
    expect(paymentPage.html).toContain(`/dashboard/disputes/new?card_payment=${id}`);
    expect(paymentPage.html).toContain('data-testid="action-refund"');
    const form = await browser.get(`/dashboard/disputes/new?card_payment=${id}`);
    expect(form.status).toBe(200);
    expect(form.html).toContain('data-testid="open-dispute-form"');
    // The form offers the payment's network's codes, each with its window (Visa: 120 days for 10.4, 75 for 11.2).
    expect(form.html).toContain('data-testid="dispute-code-select"');
    expect(form.html).toContain(
      '10.4 · Other Fraud – Card-Absent Environment — fraudulent/unrecognized, 120 days',
    );
    expect(form.html).toContain('11.2 · Declined Authorization — general, 75 days');
    expect(form.html).not.toContain('4837 ·');
    // The dashboard's card picker lists the dispute cards.
    const picker = await browser.get('/dashboard/card_payments/new');
    for (const number of [
      '4000000000000259',
      '4000000000002685',
      '4000000000001976',
      '4000000404000079',
      '4000000000005423',
    ])
      expect(picker.html).toContain(number);

    // A refusal: the form's error, nothing opened.
    const tooMuch = await browser.post('/dashboard/disputes', {
      card_payment: id,
      reason: 'fraudulent',
      amount: '70.01',
    });
    expect(tooMuch.location).toBe(`/dashboard/disputes/new?card_payment=${id}`);
    const refused = await browser.get(tooMuch.location ?? '');
    expect(testIdTexts(refused.html, 'flash-error')[0]).toContain('70.00');
    expect((await app().get(m, '/v1/disputes')).body.data).toEqual([]);

    const opened = await browser.post('/dashboard/disputes', {
      card_payment: id,
      reason: 'product_not_received',
      amount: '50',
    });
    expect(opened.status).toBe(303);
    const disputeId = /^\/dashboard\/disputes\/(dp_\w+)$/.exec(opened.location ?? '')?.[1] as string;
    expect(disputeId).toBeDefined();
    await expectLedgerBalancedOf(m);
    const page = await browser.get(opened.location ?? '');
    expect(page.status).toBe(200);
    expect(testIdTexts(page.html, 'dispute-reason')).toEqual(['product_not_received']);
    expect(testIdTexts(page.html, 'dispute-network-code')).toEqual([
      'visa 13.1 · Merchandise/Services Not Received (consumer dispute)',
    ]);
    expect(page.html).toContain('data-testid="evidence-form"');
    expect(page.html).toContain('data-testid="dispute-close"');
    expect(page.html).toContain('data-testid="dispute-resolve-won"');
    expect(page.html.match(/data-testid="posting"/g)).toHaveLength(2);
    expect(page.html).toContain('dispute.needs_response');
    // The card payment's page names its dispute and shows its postings.
    const disputed = await browser.get(`/dashboard/transactions/${id}`);
    expect(disputed.html).toContain(`/dashboard/disputes/${disputeId}`);
    expect(disputed.html).toContain('dispute_fee');
    // No refund button on a disputed payment (a refund would be refused, 409), nor through the API's actions.
    expect(disputed.html).not.toContain('data-testid="action-refund"');
    const refund = await browser.post(`/dashboard/transactions/${id}/actions/refund`, { amount: '5' });
    expect(refund.location).toBe(`/dashboard/transactions/${id}`);
    expect((await app().get(m, `/v1/card_payments/${id}`)).body).toMatchObject({ amount_refunded: 0 });
    // The list.
    const list = await browser.get('/dashboard/disputes');
    expect(list.html.match(/data-testid="dispute-row"/g)).toHaveLength(1);

    const submitted = await browser.post(`/dashboard/disputes/${disputeId}/evidence`, {
      'evidence[product_description]': 'Blue shoes',
      'evidence[shipping_tracking_number]': 'winning_evidence',
      submit: 'true',
    });
    expect(submitted.location).toBe(`/dashboard/disputes/${disputeId}`);
    const review = await browser.get(submitted.location ?? '');
    expect(review.html).not.toContain('data-testid="evidence-form"');
    expect((await app().get(m, `/v1/disputes/${disputeId}`)).body).toMatchObject({
      state: 'under_review',
      evidence: { product_description: 'Blue shoes', shipping_tracking_number: 'winning_evidence' },
    });
    expect((await app().post(m, '/v1/clock/advance', { seconds: 2 * 86_400 })).status).toBe(200);
    const won = await browser.get(`/dashboard/disputes/${disputeId}`);
    expect(won.html).toContain('data-testid="no-actions"');
    expect(won.html.match(/data-testid="timeline-entry"/g)).toHaveLength(3);
    expect((await app().get(m, `/v1/disputes/${disputeId}`)).body).toMatchObject({ state: 'won' });
    await expectLedgerBalancedOf(m);
  });

  it('accepts, and simulates a decision; a final dispute refuses both', async () => {
    const m = await app().merchant('Dashboard disputes 2');
    const browser = await signedIn(app, m);
    const first = await payment(m);
    const second = await payment(m);
    const a = await app().post(m, `/v1/simulate/card_payments/${first}/dispute`, { inquiry: true });
    const b = await app().post(m, `/v1/simulate/card_payments/${second}/dispute`, {});
    const inquiryPage = await browser.get(`/dashboard/disputes/${a.body.id}`);
    expect(inquiryPage.html).toContain('Accept (close the inquiry)');
    expect(inquiryPage.html).toContain('data-testid="no-postings"');
    await browser.post(`/dashboard/disputes/${a.body.id}/close`);
    expect((await app().get(m, `/v1/disputes/${a.body.id}`)).body).toMatchObject({ state: 'warning_closed' });

    await browser.post(`/dashboard/disputes/${b.body.id}/resolve`, { outcome: 'lost' });
    expect((await app().get(m, `/v1/disputes/${b.body.id}`)).body).toMatchObject({
      state: 'lost',
      outcome_reason: 'simulated',
    });
    const again = await browser.post(`/dashboard/disputes/${b.body.id}/resolve`, { outcome: 'won' });
    const refused = await browser.get(again.location ?? '');
    expect(testIdTexts(refused.html, 'flash-error')).toHaveLength(1);
    expect((await app().get(m, `/v1/disputes/${b.body.id}`)).body).toMatchObject({ state: 'lost' });
    expect((await browser.get('/dashboard/disputes/dp_nothing')).status).toBe(404);
    await expectLedgerBalancedOf(m);
  });

  it('shows the early fraud warning on the card payment page', async () => {
    const m = await app().merchant('Dashboard warning');
    expect((await app().post(m, '/v1/clock/freeze')).status).toBe(200);
    const browser = await signedIn(app, m);
    const id = await payment(m, '4000000000005423');
    expect((await browser.get(`/dashboard/transactions/${id}`)).html).not.toContain(
      'data-testid="early-fraud-warning"',
    );
    expect((await app().post(m, '/v1/clock/advance', { seconds: 86_400 })).status).toBe(200);
    const page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('data-testid="early-fraud-warning"');
    expect(page.html).toContain('card_payment.early_fraud_warning');
  });
});
