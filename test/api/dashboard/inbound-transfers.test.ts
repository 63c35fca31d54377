/**
 * The dashboard's inbound transfers: the form simulates an outside originator's entry, the list
 * shows it, its page shows the timeline and only the actions its state allows (settle while
 * pending on ACH, return with a receiver's code while settled, none on FedNow).
 */
import { describe, expect, it } from 'vitest';
import { dashboardTestApp, signedIn } from '../../support/dashboard.ts';
import { expectLedgerBalanced } from '../../support/ledger.ts';

const app = dashboardTestApp();

describe('dashboard: inbound transfers', () => {
  it('creates, settles and returns an ACH debit; a FedNow credit has no actions; bad input flashes', async () => {
    const m = await app().merchant('Inbound Shop');
    const browser = await signedIn(app, m);
    const list = await browser.get('/dashboard/inbound_transfers');
    expect(list.status).toBe(200);
    expect(list.html).toContain('data-testid="inbound-empty"');

    const created = await browser.post('/dashboard/inbound_transfers', {
      rail: 'ach',
      direction: 'debit',
      amount: '40.00',
      currency: 'USD',
      'originator[name]': 'Gym Membership',
      'originator[routing_number]': '021000021',
      'originator[account_number]': '000987654321',
    });
    expect(created.status).toBe(303);
    const id = /^\/dashboard\/inbound_transfers\/(itr_[A-Za-z0-9]+)$/.exec(created.location ?? '')?.[1] ?? '';
    expect(id).not.toBe('');
    let page = await browser.get(`/dashboard/inbound_transfers/${id}`);
    expect(page.html).toContain('data-testid="inbound-settle"');
    expect(page.html).not.toContain('data-testid="inbound-return-form"');
    expect(page.html).toContain('data-state="created"');

    expect((await browser.post(`/dashboard/inbound_transfers/${id}/settle`)).status).toBe(303);
    page = await browser.get(`/dashboard/inbound_transfers/${id}`);
    expect(page.html).toContain('data-testid="inbound-return-form"');
    expect(page.html).toContain('data-state="settled"');
    // The picker offers the codes a receiver may return this CCD debit with: R29 and R05 (corporate),
    // not the consumer ones (R10), not credit-only R23, not the ODFI's R61; each with its time frame,
    // and the unauthorized ones with the written statement they need.
    expect(page.html).toContain('value="R29"');
    expect(page.html).toContain('value="R05"');
    expect(page.html).toContain('value="R01"');
    for (const code of ['R10', 'R07', 'R11', 'R23', 'R61', 'R13'])
      expect(page.html, code).not.toContain(`value="${code}"`);
    expect(page.html).toMatch(/R01 [^<]*opening of business \(08:30 ET\) of the 2nd banking day/);
    expect(page.html).toMatch(/R05 [^<]*needs a signed WSUD/);

    // R29 is for corporate entries; this one is CCD, so it is accepted.
    expect((await browser.post(`/dashboard/inbound_transfers/${id}/return`, { code: 'R29' })).status).toBe(
      303,
    );
    page = await browser.get(`/dashboard/inbound_transfers/${id}`);
    expect(page.html).toContain('data-state="returned"');
    expect(page.html).toContain('data-testid="no-actions"');
    const rest = await app().rest('GET', `/v1/inbound_transfers/${id}`, { key: m.secretKey });
    expect(rest.body).toMatchObject({ state: 'returned', return_code: 'R29' });

    const instant = await browser.post('/dashboard/inbound_transfers', {
      rail: 'fednow',
      direction: 'credit',
      amount: '5.00',
      currency: 'USD',
      'originator[name]': 'Friend',
      'originator[routing_number]': '021000021',
      'originator[account_number]': '1234',
    });
    const instantId = /(itr_[A-Za-z0-9]+)$/.exec(instant.location ?? '')?.[1] ?? '';
    page = await browser.get(`/dashboard/inbound_transfers/${instantId}`);
    expect(page.html).toContain('data-state="completed"');
    expect(page.html).toContain('irrevocable');

    const refused = await browser.post('/dashboard/inbound_transfers', {
      rail: 'rtp',
      direction: 'debit',
      amount: '5.00',
      currency: 'USD',
      'originator[name]': 'X',
      'originator[routing_number]': '021000021',
      'originator[account_number]': '1234',
    });
    expect(refused.location).toBe('/dashboard/inbound_transfers');
    expect((await browser.get('/dashboard/inbound_transfers')).html).toContain(
      'RTP and FedNow only push money',
    );

    await expectLedgerBalanced(app().database.db, m.id);
  });
});
