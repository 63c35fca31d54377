/**
 * The dashboard's virtual cards in-process: issuing from the form with its limits editor,
 * the number shown once, freeze / unfreeze / cancel, editing limits, simulated authorizations until
 * one is declined with its reason, and escaping of what the merchant typed. Every outcome is read
 * back over REST, which runs the same services.
 *
 * Instants: 2031-12-03 is a Wednesday; the clock is frozen at 21:00 UTC, so the day's window runs
 * to midnight UTC.
 */
import { describe, expect, it } from 'vitest';
import type { Json } from '../../support/clocked-merchant.ts';
import { type DashboardBrowser, dashboardTestApp } from '../../support/dashboard.ts';
import { clockedDashboard, testIdTexts } from '../../support/dashboard-clocked.ts';

const app = dashboardTestApp();
const { post, get, signedInAt } = clockedDashboard(app);

const WEDNESDAY_2100 = '2031-12-03T21:00:00.000Z';

/** The form of the issue page with every interval blank unless given. */
function cardForm(fields: Record<string, string>): Record<string, string> {
  return {
    brand: 'visa',
    cardholder_name: 'Ada Lovelace',
    'spending_controls[limits][per_authorization][amount]': '',
    'spending_controls[limits][daily][amount]': '',
    'spending_controls[limits][weekly][amount]': '',
    'spending_controls[limits][monthly][amount]': '',
    'spending_controls[limits][yearly][amount]': '',
    'spending_controls[limits][all_time][amount]': '',
    'spending_controls[allowed_mccs]': '',
    'spending_controls[blocked_mccs]': '',
    ...fields,
  };
}

/** Issues a card through the dashboard's form; returns its id (from the redirect to its page). */
async function issue(browser: DashboardBrowser, fields: Record<string, string>): Promise<string> {
  const res = await browser.post('/dashboard/cards', cardForm(fields));
  expect(res.status).toBe(303);
  const id = /^\/dashboard\/cards\/(vc_\w+)$/.exec(res.location ?? '')?.[1];
  expect(id, res.location ?? '').toBeDefined();
  return id as string;
}

const setup = () => signedInAt(WEDNESDAY_2100, '500.00');

async function authorize(browser: DashboardBrowser, id: string, amount: string, mcc = '5814') {
  const res = await browser.post(`/dashboard/cards/${id}/authorizations`, {
    amount,
    'merchant[name]': 'Blue Bottle Coffee',
    'merchant[mcc]': mcc,
    'merchant[country]': 'US',
  });
  expect(res.status).toBe(303);
  expect(res.location).toBe(`/dashboard/cards/${id}`);
  return browser.get(`/dashboard/cards/${id}`);
}

describe('issuing a card from the dashboard', () => {
  it('a card with a daily limit, blocked MCCs and metadata reads back the same over REST', async () => {
    const { m, browser } = await setup();
    const form = await browser.get('/dashboard/cards');
    expect(form.html).toContain('data-testid="create-card-form"');
    expect(form.html).toContain('data-testid="limit-all_time"');
    const id = await issue(browser, {
      brand: 'mastercard',
      'spending_controls[limits][daily][amount]': '20',
      'spending_controls[limits][per_authorization][amount]': '12.50',
      'spending_controls[blocked_mccs]': '7995, 7801',
      metadata_key_1: 'team',
      metadata_value_1: 'ops',
    });
    const card = (await get(m, `/v1/virtual_cards/${id}`)).body;
    expect(card).toMatchObject({
      brand: 'mastercard',
      cardholder_name: 'Ada Lovelace',
      state: 'active',
      metadata: { team: 'ops' },
      spending_controls: {
        limits: [
          { amount: 12.5, interval: 'per_authorization' },
          { amount: 20, interval: 'daily' },
        ],
        allowed_mccs: null,
        blocked_mccs: ['7995', '7801'],
      },
    });
    const list = await browser.get('/dashboard/cards');
    expect(list.html).toContain(`href="/dashboard/cards/${id}"`);
    expect(list.html).toContain(`Mastercard •••• ${card.last4}`);
    expect(list.html).toContain('daily 20.00 USD');
  });

  it('shows the number and CVC once, right after issuing, and nowhere after', async () => {
    const { m, browser } = await setup();
    const id = await issue(browser, { 'spending_controls[limits][daily][amount]': '20' });
    const secret = (await get(m, `/v1/virtual_cards/${id}/details`)).body;
    const grouped = String(secret.number).replace(/(\d{4})(?=\d)/g, '$1 ');
    const first = await browser.get(`/dashboard/cards/${id}`);
    expect(first.html).toContain('data-testid="card-secret-once"');
    expect(testIdTexts(first.html, 'card-number')).toEqual([grouped]);
    expect(testIdTexts(first.html, 'card-cvc')).toEqual([secret.cvc]);
    expect(first.html).toContain(`•••• •••• •••• ${secret.last4}`);
    for (const path of [`/dashboard/cards/${id}`, '/dashboard/cards', '/dashboard']) {
      const later = await browser.get(path);
      expect(later.status).toBe(200);
      expect(later.html).not.toContain(grouped);
      expect(later.html).not.toContain(String(secret.number));
      expect(later.html).not.toContain('data-testid="card-secret-once"');
    }
  });

  it('a form error goes back to the form with the message and the values typed', async () => {
    const { m, browser } = await setup();
    const res = await browser.post(
      '/dashboard/cards',
      cardForm({
        cardholder_name: 'Grace',
        'spending_controls[limits][weekly][amount]': '12.345',
        'spending_controls[blocked_mccs]': '7995',
      }),
    );
    expect(res.location).toBe('/dashboard/cards');
    const page = await browser.get('/dashboard/cards');
    expect(page.html).toContain('data-testid="flash-error"');
    expect(page.html).toContain('USD amounts have at most 2 decimal places');
    expect(page.html).toContain('value="12.345"');
    expect(page.html).toContain('value="Grace"');
    expect((await get(m, '/v1/virtual_cards')).body.data).toEqual([]);
  });

  it('an unknown card, or another merchant’s, is a 404 page', async () => {
    const { browser } = await setup();
    const other = await setup();
    const theirs = await issue(other.browser, {});
    for (const id of [theirs, 'vc_nothing']) {
      const page = await browser.get(`/dashboard/cards/${id}`);
      expect(page.status).toBe(404);
      expect(page.html).toContain('data-testid="not-found"');
    }
  });
});

describe("a card's state and controls", () => {
  it('freeze, unfreeze and cancel go through the same service as POST /v1/virtual_cards/{id}', async () => {
    const { m, browser } = await setup();
    const id = await issue(browser, {});
    const stateOf = async () => (await get(m, `/v1/virtual_cards/${id}`)).body.state;
    let page = await browser.get(`/dashboard/cards/${id}`);
    expect(page.html).toContain('data-testid="card-frozen"');
    expect(page.html).not.toContain('data-testid="card-active"');

    expect((await browser.post(`/dashboard/cards/${id}/state`, { state: 'frozen' })).location).toBe(
      `/dashboard/cards/${id}`,
    );
    expect(await stateOf()).toBe('frozen');
    page = await browser.get(`/dashboard/cards/${id}`);
    expect(page.html).toContain('The card is frozen.');
    expect(page.html).toMatch(/data-testid="card-state"><span class="badge state-frozen"/);
    expect(page.html).toContain('data-testid="card-active"');
    page = await authorize(browser, id, '1.00');
    expect(testIdTexts(page.html, 'decline-reason')).toEqual(['card_frozen · ISO 62']);

    await browser.post(`/dashboard/cards/${id}/state`, { state: 'active' });
    expect(await stateOf()).toBe('active');
    await browser.post(`/dashboard/cards/${id}/state`, { state: 'canceled' });
    expect(await stateOf()).toBe('canceled');
    page = await browser.get(`/dashboard/cards/${id}`);
    expect(page.html).toContain('data-testid="card-final"');
    expect(page.html).not.toContain('data-testid="edit-limits-form"');

    await browser.post(`/dashboard/cards/${id}/state`, { state: 'active' });
    page = await browser.get(`/dashboard/cards/${id}`);
    expect(page.html).toContain('data-testid="flash-error"');
    expect(page.html).toContain('is canceled');
    expect(await stateOf()).toBe('canceled');
    const events = (await get(m, `/v1/events?object_id=${id}`)).body.data as Json[];
    expect(events.map((e) => e.type).reverse()).toEqual([
      'virtual_card.created',
      'virtual_card.frozen',
      'virtual_card.active',
      'virtual_card.canceled',
    ]);
  });

  it('"edit limits" is prefilled, replaces the controls, and a blank amount removes a limit', async () => {
    const { m, browser } = await setup();
    const id = await issue(browser, {
      'spending_controls[limits][daily][amount]': '20',
      'spending_controls[blocked_mccs]': '7995',
    });
    let page = await browser.get(`/dashboard/cards/${id}`);
    expect(page.html).toMatch(/name="spending_controls\[limits\]\[daily\]\[amount\]" [^>]*value="20.00"/);
    expect(page.html).toMatch(/name="spending_controls\[blocked_mccs\]" [^>]*value="7995"/);

    await browser.post(`/dashboard/cards/${id}/controls`, {
      'spending_controls[limits][daily][amount]': '',
      'spending_controls[limits][monthly][amount]': '300',
      'spending_controls[limits][per_authorization][amount]': '25',
      'spending_controls[allowed_mccs]': '5814 5411',
      'spending_controls[blocked_mccs]': '7995',
    });
    const controls = (await get(m, `/v1/virtual_cards/${id}`)).body.spending_controls;
    expect(controls).toEqual({
      limits: [
        { amount: 25, interval: 'per_authorization' },
        { amount: 300, interval: 'monthly' },
      ],
      allowed_mccs: ['5814', '5411'],
      blocked_mccs: ['7995'],
    });
    page = await browser.get(`/dashboard/cards/${id}`);
    expect(page.html).toContain('Spending controls saved.');
    expect(page.html).toMatch(/name="spending_controls\[limits\]\[daily\]\[amount\]" [^>]*value=""/);
    expect(page.html).toMatch(/name="spending_controls\[limits\]\[monthly\]\[amount\]" [^>]*value="300.00"/);
    expect(page.html).toMatch(/name="spending_controls\[allowed_mccs\]" [^>]*value="5814, 5411"/);

    await browser.post(`/dashboard/cards/${id}/controls`, {
      'spending_controls[limits][daily][amount]': '-5',
      'spending_controls[blocked_mccs]': '99',
    });
    page = await browser.get(`/dashboard/cards/${id}`);
    expect(page.html).toContain('data-testid="flash-error"');
    expect(page.html).toMatch(/name="spending_controls\[limits\]\[daily\]\[amount\]" [^>]*value="-5"/);
    expect((await get(m, `/v1/virtual_cards/${id}`)).body.spending_controls).toEqual(controls);
  });
});

describe('simulated authorizations', () => {
  it('approve until the daily limit, then decline spending_limit_exceeded/daily with the reason shown', async () => {
    const { m, browser } = await setup();
    const id = await issue(browser, {
      'spending_controls[limits][daily][amount]': '20',
      'spending_controls[blocked_mccs]': '7995',
    });
    for (let i = 1; i <= 3; i++) {
      const page = await authorize(browser, id, '6.50');
      expect(page.html).toContain('data-testid="flash-notice"');
      expect(page.html).toContain('Approved: 6.50 USD at Blue Bottle Coffee');
      expect(testIdTexts(page.html, 'decline-reason')).toEqual([]);
    }
    const declined = await authorize(browser, id, '6.50');
    expect(declined.html).toContain('data-testid="flash-error"');
    expect(declined.html).toContain('Declined: 6.50 USD at Blue Bottle Coffee');
    expect(declined.html).toContain('spending_limit_exceeded, daily, ISO 61');
    expect(testIdTexts(declined.html, 'decline-reason')).toEqual([
      'spending_limit_exceeded · daily · ISO 61',
    ]);
    // The simulate form keeps what was typed, to try again.
    expect(declined.html).toMatch(/name="amount" [^>]*value="6.50"/);

    const casino = await authorize(browser, id, '1.00', '7995');
    expect(testIdTexts(casino.html, 'decline-reason')).toEqual([
      'mcc_blocked · ISO 57',
      'spending_limit_exceeded · daily · ISO 61',
    ]);

    // The page lists what REST lists, newest first, each linking to its transaction page.
    const rest = (await get(m, `/v1/virtual_cards/${id}/authorizations`)).body.data as Json[];
    expect(rest.map((a) => a.state)).toEqual(['declined', 'declined', 'approved', 'approved', 'approved']);
    const linked = [...casino.html.matchAll(/href="\/dashboard\/transactions\/(iauth_\w+)"/g)].map(
      (x) => x[1],
    );
    expect(linked).toEqual(rest.map((a) => a.id));
    for (const a of rest) expect(casino.html).toContain(`data-live-state="${a.id}"`);
    const balances = (await get(m, '/v1/balances')).body.data as Json[];
    expect(balances.find((b) => b.currency === 'USD')).toMatchObject({ available: 480.5, reserved: 19.5 });
  });

  it('the list follows live: its fragment shows an authorization made over REST', async () => {
    const { m, browser } = await setup();
    const id = await issue(browser, {});
    const page = await browser.get(`/dashboard/cards/${id}`);
    const fragment = `/dashboard/cards/${id}/fragments/authorizations`;
    expect(page.html).toContain(`data-live-refresh="${fragment}"`);
    const auth = await post(m, `/v1/simulate/virtual_cards/${id}/authorizations`, {
      amount: 3,
      merchant: { name: 'Corner Grocery', mcc: '5411' },
    });
    const part = await browser.get(fragment);
    expect(part.html).toContain(`data-live-state="${auth.body.id}"`);
    expect(part.html).toContain('Corner Grocery');
    expect(part.html).not.toContain('<html');
  });

  it('a bad MCC is a form error, and nothing is authorized', async () => {
    const { m, browser } = await setup();
    const id = await issue(browser, {});
    const page = await authorize(browser, id, '5.00', '12');
    expect(page.html).toContain('is not a merchant category code');
    expect((await get(m, `/v1/virtual_cards/${id}/authorizations`)).body.data).toEqual([]);
  });
});

describe('escaping', () => {
  it('cardholder names, metadata and merchant names holding markup render as text', async () => {
    const { m, browser } = await setup();
    const id = await issue(browser, {
      cardholder_name: '<script>alert("name")</script>',
      metadata_key_1: '<b>key</b>',
      metadata_value_1: '<img src=x onerror=alert(1)>',
    });
    await browser.post(`/dashboard/cards/${id}/authorizations`, {
      amount: '1.00',
      'merchant[name]': '<script>alert("shop")</script>',
      'merchant[mcc]': '5814',
      'merchant[country]': 'US',
    });
    expect((await post(m, '/v1/clock/advance', { seconds: 60 })).status).toBe(200);
    for (const path of ['/dashboard/cards', `/dashboard/cards/${id}`]) {
      const page = await browser.get(path);
      expect(page.html).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;');
      expect(page.html).not.toContain('<script>alert');
      expect(page.html).not.toContain('<img src=x');
      expect(page.html).not.toContain('<b>key</b>');
      expect(page.html).not.toMatch(/<script>|<script [^>]*>[^<]/);
      expect(page.html).not.toMatch(/ style="| on[a-z]+="/);
    }
    const card = await browser.get(`/dashboard/cards/${id}`);
    expect(card.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(card.html).toContain('&lt;script&gt;alert(&quot;shop&quot;)&lt;/script&gt;');
  });
});
