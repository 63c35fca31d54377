/**
 * The dashboard's counterparties pages and a transfer's notification of change: save a
 * counterparty through the form, send a transfer to it, then on the transfer's page simulate an
 * NOC (the action its settled state allows) and refuse it; the counterparty's page lists the
 * correction and its reversal, the transfer's timeline the two events.
 */
import { describe, expect, it } from 'vitest';
import { dashboardTestApp, signedIn } from '../../support/dashboard.ts';

const app = dashboardTestApp();
type Json = Record<string, unknown>;

describe('dashboard: counterparties and notifications of change', () => {
  it('saves a counterparty, shows its corrections, and offers NOC actions on a settled transfer', async () => {
    const m = await app().merchant();
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await app().rest<Json>(method, path, { key: m.secretKey, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
      return res.body;
    };
    await api('POST', '/v1/clock/freeze');
    await api('POST', '/v1/clock/advance', { to: '2031-12-02T14:00:00.000Z' });
    const browser = await signedIn(app, m);

    const empty = await browser.get('/dashboard/counterparties');
    expect(empty.status).toBe(200);
    expect(empty.html).toContain('data-testid="no-counterparties"');
    const bad = await browser.post('/dashboard/counterparties', {
      name: 'Acme',
      routing_number: '021000022',
      account_number: '000123456789',
      account_type: 'checking',
    });
    expect(bad.status).toBe(303);
    expect(bad.location).toBe('/dashboard/counterparties');
    expect((await browser.get('/dashboard/counterparties')).html).toContain('ABA checksum');
    const saved = await browser.post('/dashboard/counterparties', {
      name: 'Acme Supplies',
      routing_number: '021000021',
      account_number: '000123456789',
      account_type: 'checking',
      individual_id: '',
    });
    expect(saved.status).toBe(303);
    const id = decodeURIComponent(String(saved.location).split('/').at(-1) ?? '');
    expect(id).toMatch(/^cpty_/);
    const page = await browser.get(String(saved.location));
    expect(page.html).toContain('data-testid="no-corrections"');
    expect((await browser.get('/dashboard/counterparties')).html).toContain(id);

    const transfer = await api('POST', '/v1/transfers', {
      rail: 'same_day_ach',
      direction: 'debit',
      amount: '5.00',
      currency: 'USD',
      counterparty: id,
    });
    const tr = String(transfer.id);
    const pending = await browser.get(`/dashboard/transactions/${tr}`);
    expect(pending.html).not.toContain('data-testid="action-notify_change"');
    expect(pending.html).toContain(`href="/dashboard/counterparties/${id}"`);
    await api('POST', '/v1/clock/advance', { to: '2031-12-02T18:00:00.000Z' });
    const settled = await browser.get(`/dashboard/transactions/${tr}`);
    expect(settled.html).toContain('data-testid="action-notify_change"');
    expect(settled.html).not.toContain('data-testid="action-refuse_change"');

    const notified = await browser.post(`/dashboard/transactions/${tr}/actions/notify_change`, {
      code: 'C05',
    });
    expect(notified.status).toBe(303);
    const after = await browser.get(`/dashboard/transactions/${tr}`);
    expect(after.html).toContain('data-testid="noc" data-code="C05"');
    expect(after.html).toContain('data-state="notification_of_change"');
    expect(after.html).toContain('data-testid="action-refuse_change"');
    expect(after.html).not.toContain('data-testid="action-notify_change"');
    const corrected = await browser.get(`/dashboard/counterparties/${id}`);
    expect(corrected.html).toContain('data-testid="correction" data-code="C05"');
    expect(corrected.html).toMatch(/data-testid="account-type">savings</);

    // A C06 on a second transfer corrects the account number: shown masked, as the account is.
    const second = await api('POST', '/v1/transfers', {
      rail: 'same_day_ach',
      direction: 'debit',
      amount: '5.00',
      currency: 'USD',
      counterparty: id,
    });
    await api('POST', '/v1/clock/advance', { to: '2031-12-02T22:00:00.000Z' });
    expect((await browser.get(`/dashboard/transactions/${second.id}`)).html).toContain(
      'data-testid="action-notify_change"',
    );
    await api('POST', `/v1/simulate/transfers/${second.id}/notification_of_change`, {
      code: 'C01',
      corrected_data: { account_number: '5550001234' },
    });
    for (const path of [`/dashboard/transactions/${second.id}`, `/dashboard/counterparties/${id}`]) {
      const shown = (await browser.get(path)).html;
      expect(shown).toContain('account_number: ••••1234');
      expect(shown).not.toContain('5550001234');
    }

    await browser.post(`/dashboard/transactions/${tr}/actions/refuse_change`, { code: 'C69' });
    const refused = await browser.get(`/dashboard/transactions/${tr}`);
    expect(refused.html).toContain('refused C69');
    expect(refused.html).toContain('data-state="notification_of_change_refused"');
    expect(refused.html).not.toContain('data-testid="action-refuse_change"');
    const reverted = await browser.get(`/dashboard/counterparties/${id}`);
    expect(reverted.html).toMatch(/data-testid="account-type">checking</);
    expect(reverted.html).toContain('reverted');
  });
});
