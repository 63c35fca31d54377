/**
 * The dashboard's transactions and events pages in-process: the list across kinds with
 * its filters and live fragment, the detail page of each kind (fields, timeline with clock times,
 * ledger postings, events with deliveries, the actions its state allows), actions, redelivery,
 * escaping, and isolation between merchants.
 */
import { describe, expect, it } from 'vitest';
import { type DashboardBrowser, dashboardTestApp, signedIn } from '../../support/dashboard.ts';
import type { TestMerchant } from '../../support/harness.ts';

const app = dashboardTestApp();

type Json = Record<string, unknown>;

const VISA = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
const ACCOUNT = {
  name: 'Acme Supplies',
  routing_number: '021000021',
  account_number: '000123456789',
  account_type: 'checking',
};
const XSS_IMG = '<img src=x onerror=alert(1)>';
const XSS_SCRIPT = '<script>alert(1)</script>';

async function api(m: TestMerchant, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await app().rest<Json>(method, path, { key: m.secretKey, ...(body ? { body } : {}) });
  expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
  return res.body;
}

/** A merchant frozen on Tuesday 2031-12-02 09:00 ET with 1,000.00 USD available, signed in. */
async function frozenMerchant(): Promise<{ m: TestMerchant; browser: DashboardBrowser }> {
  const m = await app().merchant();
  await api(m, 'POST', '/v1/clock/freeze');
  await api(m, 'POST', '/v1/clock/advance', { to: '2031-12-02T14:00:00.000Z' });
  await api(m, 'POST', '/v1/simulate/balance/top_up', { amount: '1000.00', currency: 'USD' });
  return { m, browser: await signedIn(app, m) };
}

function transfer(m: TestMerchant, fields: Json = {}): Promise<Json> {
  return api(m, 'POST', '/v1/transfers', {
    rail: 'ach',
    direction: 'credit',
    amount: '25.00',
    currency: 'USD',
    counterparty: ACCOUNT,
    ...fields,
  });
}

/** The ids the list page's table shows, in order. */
function rowIds(html: string): string[] {
  return [...html.matchAll(/<tr data-live-row="([^"]+)"/g)].map((match) => match[1] as string);
}

async function stateOf(m: TestMerchant, id: string): Promise<string> {
  return String((await api(m, 'GET', `/v1/transactions/${id}`)).state);
}

/** Posts a detail page's action form and opens the page it redirects to. */
async function act(
  browser: DashboardBrowser,
  id: string,
  action: string,
  fields: Record<string, string> = {},
) {
  const res = await browser.post(`/dashboard/transactions/${id}/actions/${action}`, fields);
  expect(res.status).toBe(303);
  expect(res.location).toBe(`/dashboard/transactions/${id}`);
  return browser.get(res.location ?? '');
}

describe('the transactions list', () => {
  it('filters by kind, state, UTC dates and search (id or reference), with a live fragment and a pager', async () => {
    const { m, browser } = await frozenMerchant();
    const col = await api(m, 'POST', '/v1/collect', { amount: 10, currency: 'USD', reference: 'ORD-1001' });
    await api(m, 'POST', '/v1/clock/advance', { to: '2031-12-03T14:00:00.000Z' });
    const card = await api(m, 'POST', '/v1/card_payments', {
      amount: 20,
      currency: 'USD',
      card: VISA,
      reference: 'ord-2002',
    });
    await api(m, 'POST', '/v1/clock/advance', { to: '2031-12-04T14:00:00.000Z' });
    const tr = await transfer(m, { reference: 'rent-dec' });
    const list = async (query: string) => {
      const page = await browser.get(`/dashboard/transactions${query}`);
      expect(page.status).toBe(200);
      return page;
    };

    const all = await list('');
    expect(rowIds(all.html)).toEqual([tr.id, card.id, col.id]);
    expect(all.html).toContain('data-testid="transaction-filters"');
    expect(all.html).toContain('data-live-refresh="/dashboard/transactions?fragment=1"');
    expect(rowIds((await list('?kind=collection')).html)).toEqual([col.id]);
    expect(rowIds((await list('?state=captured')).html)).toEqual([card.id]);
    expect(rowIds((await list('?kind=transfer&state=pending')).html)).toEqual([tr.id]);
    // Dates are UTC days, the "to" day included.
    expect(rowIds((await list('?from=2031-12-03&to=2031-12-03')).html)).toEqual([card.id]);
    expect(rowIds((await list('?from=2031-12-03')).html)).toEqual([tr.id, card.id]);
    expect(rowIds((await list('?to=2031-12-02')).html)).toEqual([col.id]);
    expect(rowIds((await list('?q=ord')).html)).toEqual([card.id, col.id]);
    expect(rowIds((await list(`?q=${tr.id}`)).html)).toEqual([tr.id]);
    const none = await list('?q=nothing-like-it');
    expect(none.html).toContain('No transaction matches.');
    // The form shows what was asked.
    const filtered = await list('?kind=card_payment&q=ord&from=2031-12-03');
    expect(filtered.html).toContain('<option value="card_payment" selected>');
    expect(filtered.html).toContain('value="ord"');
    expect(filtered.html).toContain('value="2031-12-03"');
    expect(filtered.html).toContain(
      'data-live-refresh="/dashboard/transactions?kind=card_payment&amp;q=ord&amp;from=2031-12-03&amp;fragment=1"',
    );

    const fragment = await list('?kind=card_payment&q=ord&fragment=1');
    expect(fragment.html).not.toContain('<html');
    expect(fragment.html).toContain('data-testid="transactions"');
    expect(rowIds(fragment.html)).toEqual([card.id]);

    const first = await list('?limit=2');
    expect(rowIds(first.html)).toEqual([tr.id, card.id]);
    const next = /href="([^"]+)" data-testid="next-page"/.exec(first.html)?.[1]?.replace(/&amp;/g, '&');
    expect(next).toBe(`/dashboard/transactions?starting_after=${card.id}&limit=2`);
    const second = await list((next ?? '').slice('/dashboard/transactions'.length));
    expect(rowIds(second.html)).toEqual([col.id]);
    expect(second.html).not.toContain('data-testid="next-page"');
  });

  it('shows a bad filter as an error, not a failure', async () => {
    const { browser } = await frozenMerchant();
    const page = await browser.get('/dashboard/transactions?from=03/12/2031');
    expect(page.status).toBe(200);
    expect(page.html).toContain('data-testid="filter-error"');
    expect(page.html).toContain('from: choose a date (UTC).');
    const state = await browser.get('/dashboard/transactions?state=%3Cb%3E');
    expect(state.html).toContain('data-testid="filter-error"');
    expect(state.html).not.toContain('<b>');
    // Days that do not exist, and instants no timestamp holds, are refused rather than rolled over.
    for (const query of ['from=2026-02-31', 'from=0000-01-01', 'to=9999-12-31']) {
      const odd = await browser.get(`/dashboard/transactions?${query}`);
      expect(odd.status, query).toBe(200);
      expect(odd.html, query).toContain('data-testid="filter-error"');
    }
  });
});

describe('the detail page', () => {
  it('a transfer stepped through submit and settle: timeline entries with clock times, postings, actions', async () => {
    const { m, browser } = await frozenMerchant();
    const tr = await transfer(m, { reference: 'rent-dec', description: 'December rent' });
    const id = String(tr.id);
    const created = await browser.get(`/dashboard/transactions/${id}`);
    expect(created.status).toBe(200);
    expect(created.html).toContain(`data-live-refresh="/dashboard/transactions/${id}?fragment=1"`);
    expect(created.html).toContain(`data-live-for="${id}" data-live-on="any"`);
    expect(created.html).toContain(`data-live-state="${id}">pending<`);
    expect(created.html).toContain('25.00 USD');
    expect(created.html).toContain('December rent');
    expect(created.html).toContain('data-testid="action-cancel"');
    expect(created.html).toContain('data-testid="action-submit"');
    expect(created.html).not.toContain('data-testid="action-settle"');

    await api(m, 'POST', '/v1/clock/advance', { to: '2031-12-02T14:30:00.000Z' });
    const submitted = await act(browser, id, 'submit');
    expect(submitted.html).toContain('Simulate submit: this transfer is now submitted.');
    expect(submitted.html).not.toContain('data-testid="action-submit"');
    expect(submitted.html).toContain('data-testid="action-settle"');
    await api(m, 'POST', '/v1/clock/advance', { to: '2031-12-02T15:00:00.000Z' });
    const page = await act(browser, id, 'settle');
    expect(await stateOf(m, id)).toBe('settled');

    const entries = [
      ...page.html.matchAll(
        /<li data-testid="timeline-entry" data-state="([a-z_]+)">[\s\S]*?<time datetime="([^"]+)"/g,
      ),
    ].map((match) => [match[1], match[2]]);
    expect(entries).toEqual([
      ['created', '2031-12-02T14:00:00.000Z'],
      ['submitted', '2031-12-02T14:30:00.000Z'],
      ['settled', '2031-12-02T15:00:00.000Z'],
    ]);
    // Each entry's time in Eastern Time (EST, UTC−5), UTC beside it.
    expect(page.html).toContain('>2031-12-02 09:30 ET · 14:30 UTC</time>');
    // A credit's hold, then posted at settlement: both are the transfer's postings.
    const postings = page.html.match(/data-testid="posting"/g) ?? [];
    expect(postings.length).toBeGreaterThanOrEqual(1);
    expect(page.html).toContain('−25.00 USD');
    // Settled: only a return is left.
    expect(page.html).toContain('data-testid="action-return"');
    expect(page.html).not.toContain('data-testid="action-cancel"');

    const fragment = await browser.get(`/dashboard/transactions/${id}?fragment=1`);
    expect(fragment.html).not.toContain('<html');
    expect(fragment.html.match(/data-testid="timeline-entry"/g)?.length).toBe(3);
  });

  it('captures and refunds a card payment with amounts', async () => {
    const { m, browser } = await frozenMerchant();
    const cp = await api(m, 'POST', '/v1/card_payments', {
      amount: 20,
      currency: 'USD',
      card: VISA,
      capture: false,
    });
    const id = String(cp.id);
    const page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('data-testid="action-capture"');
    expect(page.html).toContain('data-testid="action-void"');
    expect(page.html).not.toContain('data-testid="action-refund"');
    expect(page.html).toContain('visa •••• 4242');

    const captured = await act(browser, id, 'capture', { amount: '15.00' });
    expect(captured.html).toContain('Capture: this card payment is now captured.');
    expect(await api(m, 'GET', `/v1/card_payments/${id}`)).toMatchObject({
      state: 'captured',
      amount_captured: 15,
    });
    const refunded = await act(browser, id, 'refund', { amount: '5' });
    expect(refunded.html).toContain('is now partially_refunded');
    expect(refunded.html).toContain('data-testid="refunds"');
    const payment = await api(m, 'GET', `/v1/card_payments/${id}`);
    expect(payment).toMatchObject({ state: 'partially_refunded', amount_refunded: 5 });
    // The refund's postings are the payment's too.
    const refundId = String((payment.refunds as Json[])[0]?.id);
    const sources = [...refunded.html.matchAll(/<td>(card_payment|refund[^<]*)<\/td>/g)].map(
      (match) => match[1],
    );
    expect(sources).toContain('card_payment');
    expect(sources).toContain(`refund ${refundId}`);

    // A bad amount is an error, the form keeps it, nothing changes.
    const bad = await act(browser, id, 'refund', { amount: '1000' });
    expect(bad.html).toContain('data-testid="flash-error"');
    expect(bad.html).toContain('value="1000"');
    expect((await api(m, 'GET', `/v1/card_payments/${id}`)).amount_refunded).toBe(5);
  });

  it('an action the state does not allow is not offered, and posting it changes nothing', async () => {
    const { m, browser } = await frozenMerchant();
    const cp = await api(m, 'POST', '/v1/card_payments', { amount: 20, currency: 'USD', card: VISA });
    const id = String(cp.id);
    const page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).not.toContain('data-testid="action-capture"');
    expect(page.html).not.toContain('data-testid="action-void"');
    expect(page.html).toContain('data-testid="action-refund"');
    for (const action of ['capture', 'void', 'settle', 'no_such_action']) {
      const after = await act(browser, id, action);
      expect(after.html).toContain('data-testid="flash-error"');
      expect(after.html).toContain(`This card payment is captured; it allows refund, not ${action}.`);
    }
    expect(await api(m, 'GET', `/v1/card_payments/${id}`)).toMatchObject({
      state: 'captured',
      amount_captured: 20,
    });
  });

  it('cancels a transfer, and returns a settled one with a chosen code', async () => {
    const { m, browser } = await frozenMerchant();
    const pending = String((await transfer(m)).id);
    const canceled = await act(browser, pending, 'cancel');
    expect(canceled.html).toContain('Cancel: this transfer is now canceled.');
    expect(canceled.html).toContain('data-testid="no-actions"');
    expect(await stateOf(m, pending)).toBe('canceled');

    const settled = String((await transfer(m, { direction: 'debit' })).id);
    await api(m, 'POST', `/v1/simulate/transfers/${settled}/submit`);
    await api(m, 'POST', `/v1/simulate/transfers/${settled}/settle`);
    const returned = await act(browser, settled, 'return', { code: 'R02' });
    expect(returned.html).toContain('is now returned');
    expect(await api(m, 'GET', `/v1/transfers/${settled}`)).toMatchObject({
      state: 'returned',
      return_code: 'R02',
    });
    expect(returned.html).toContain('R02');
  });

  it('3-D Secure completion on a card payment that requires action', async () => {
    const { m, browser } = await frozenMerchant();
    const res = await app().rest<Json>('POST', '/v1/card_payments', {
      key: m.secretKey,
      body: { amount: 12, currency: 'USD', card: { ...VISA, number: '4000002500003155' } },
    });
    const id = String(res.body.id);
    expect(res.body.state).toBe('requires_action');
    const page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('data-testid="action-complete_3ds"');
    expect(page.html).toContain('data-testid="action-fail_3ds"');
    expect(page.html).not.toContain('data-testid="action-capture"');
    await act(browser, id, 'complete_3ds');
    expect(await stateOf(m, id)).toBe('captured');
  });

  it('a collection links its checkout page in a new tab and offers cancel', async () => {
    const { m, browser } = await frozenMerchant();
    const col = await api(m, 'POST', '/v1/collect', { amount: 10, currency: 'USD' });
    const id = String(col.id);
    const page = await browser.get(`/dashboard/transactions/${id}`);
    // The link the API hands out, with its secret.
    expect(String(col.checkout_url)).toMatch(new RegExp(`^http://sandbank.test/checkout/${id}\\?secret=`));
    expect(page.html).toContain(
      `<a href="${col.checkout_url}" target="_blank" rel="noopener" data-testid="checkout-link">`,
    );
    expect(page.html).toContain('data-testid="action-cancel"');
    await act(browser, id, 'cancel');
    expect(await stateOf(m, id)).toBe('canceled');
  });

  it('an issuing authorization: capture less than authorized', async () => {
    const { m, browser } = await frozenMerchant();
    const card = await api(m, 'POST', '/v1/virtual_cards', { brand: 'visa', cardholder_name: 'Ada' });
    const auth = await api(m, 'POST', `/v1/simulate/virtual_cards/${card.id}/authorizations`, {
      amount: 30,
      merchant: { name: 'Corner Cafe', mcc: '5812' },
    });
    const id = String(auth.id);
    const page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('Corner Cafe');
    expect(page.html).toContain(`href="/dashboard/cards/${card.id}"`);
    expect(page.html).toContain('data-testid="action-reverse"');
    await act(browser, id, 'capture', { amount: '25' });
    expect(await api(m, 'GET', `/v1/issuing_authorizations/${id}`)).toMatchObject({
      state: 'captured',
      amount_captured: 25,
    });
  });

  it('a closed-loop authorization offers no issuer steps (it follows its card payment)', async () => {
    const { m: issuer, browser } = await frozenMerchant();
    const { m: acquirer } = await frozenMerchant();
    const card = await api(issuer, 'POST', '/v1/virtual_cards', { brand: 'visa', cardholder_name: 'Ada' });
    const details = await api(issuer, 'GET', `/v1/virtual_cards/${card.id}/details`);
    await api(acquirer, 'POST', '/v1/card_payments', {
      amount: '12.00',
      currency: 'USD',
      capture: false,
      card: {
        number: details.number,
        exp_month: details.exp_month,
        exp_year: details.exp_year,
        cvc: details.cvc,
      },
    });
    const auths = await api(issuer, 'GET', `/v1/virtual_cards/${card.id}/authorizations`);
    const id = String(((auths.data as Json[])[0] as Json).id);
    const page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('approved');
    expect(page.html).not.toMatch(/data-testid="action-(capture|reverse|refund)"/);
  });

  it('an FX settlement: simulate failure with a reason, and a conversion offers nothing', async () => {
    const { m, browser } = await frozenMerchant();
    const settlement = await api(m, 'POST', '/v1/fx/settlements', {
      target_currency: 'EUR',
      target_amount: '50.00',
      destination: { name: 'Muller GmbH', iban: 'DE89370400440532013000' },
    });
    const id = String(settlement.id);
    const page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('data-testid="action-pay"');
    expect(page.html).toContain('Muller GmbH');
    expect(page.html).toContain(`href="/dashboard/fx/quotes/${settlement.quote}"`);
    const failed = await act(browser, id, 'fail', { code: 'AC01' });
    expect(failed.html).toContain('Simulate failure: this FX settlement is now failed.');
    expect(await api(m, 'GET', `/v1/fx/settlements/${id}`)).toMatchObject({
      state: 'failed',
      failure_code: 'AC01',
    });
    expect(failed.html).toContain('data-testid="no-actions"');

    const quote = await api(m, 'POST', '/v1/fx/quotes', {
      source_currency: 'USD',
      target_currency: 'JPY',
      source_amount: '10.00',
    });
    const conversion = await api(m, 'POST', '/v1/fx/conversions', { quote_id: quote.id });
    const converted = await browser.get(`/dashboard/transactions/${conversion.id}`);
    expect(converted.html).toContain('data-testid="no-actions"');
    expect(converted.html).toMatch(/Converted to<\/dt><dd>[\d,]+ JPY</);
  });

  it("another merchant's object is 404, and its actions change nothing", async () => {
    const { m } = await frozenMerchant();
    const id = String((await transfer(m)).id);
    const { browser: other } = await frozenMerchant();
    const page = await other.get(`/dashboard/transactions/${id}`);
    expect(page.status).toBe(404);
    expect(page.html).toContain('data-testid="not-found"');
    expect(page.html).not.toContain('25.00 USD');
    expect((await other.get(`/dashboard/transactions/${id}?fragment=1`)).status).toBe(404);
    expect((await other.get('/dashboard/transactions/nope_123')).status).toBe(404);
    const post = await other.post(`/dashboard/transactions/${id}/actions/cancel`);
    expect(post.status).toBe(303);
    expect((await other.get(post.location ?? '')).html).toContain('data-testid="flash-error"');
    expect(await stateOf(m, id)).toBe('pending');
  });
});

describe('escaping', () => {
  it('merchant text is shown as text on the list, the detail and the event pages', async () => {
    const { m, browser } = await frozenMerchant();
    const col = await api(m, 'POST', '/v1/collect', {
      amount: 10,
      currency: 'USD',
      reference: 'x-1',
      description: `${XSS_IMG} ${XSS_SCRIPT}`,
      metadata: { note: XSS_SCRIPT, [XSS_IMG]: 'key' },
      redirect_url: 'https://example.com/back?x="><script>alert(1)</script>',
    });
    const tr = await transfer(m, { description: XSS_IMG, reference: 'x-2' });
    const list = await browser.get(`/dashboard/transactions?q=${encodeURIComponent(XSS_SCRIPT)}`);
    const pages = [
      list,
      await browser.get('/dashboard/transactions'),
      await browser.get(`/dashboard/transactions/${col.id}`),
      await browser.get(`/dashboard/transactions/${tr.id}`),
      await browser.get(`/dashboard/transactions/${col.id}?fragment=1`),
    ];
    const events = await api(m, 'GET', `/v1/events?object_id=${col.id}`);
    const eventId = String((events.data as Json[])[0]?.id);
    pages.push(await browser.get(`/dashboard/events/${eventId}`));
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.html).not.toContain('<img src=x');
      expect(page.html).not.toContain('<script>alert');
      expect(page.html).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
      expect(page.html).not.toMatch(/ style="/);
    }
    const detail = pages[2]?.html ?? '';
    expect(detail).toContain('&lt;img src=x onerror=alert(1)&gt; &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(detail).toContain('data-testid="metadata"');
    expect(pages[5]?.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('events and redelivery', () => {
  it('the events page lists and filters by type; an event shows its JSON and deliveries', async () => {
    const { m, browser } = await frozenMerchant();
    const col = await api(m, 'POST', '/v1/collect', { amount: 10.5, currency: 'USD' });
    await api(m, 'POST', `/v1/collections/${col.id}/cancel`);
    const all = await browser.get('/dashboard/events');
    expect(all.html).toContain('collection.created');
    expect(all.html).toContain('collection.canceled');
    const filtered = await browser.get('/dashboard/events?type=collection.canceled');
    expect(filtered.html.match(/data-testid="event-row"/g)?.length).toBe(1);
    expect(filtered.html).toContain('<option value="collection.canceled" selected>');
    const eventId = /href="\/dashboard\/events\/(evt_[A-Z0-9]+)"/.exec(filtered.html)?.[1];
    const event = await browser.get(`/dashboard/events/${eventId}`);
    expect(event.html).toContain('data-testid="event-json"');
    expect(event.html).toContain('&quot;amount&quot;: 10.50');
    expect(event.html).toContain('data-testid="no-deliveries"');
    expect((await browser.get(`/dashboard/events?type=${'x'.repeat(300)}`)).html).toContain(
      'data-testid="filter-error"',
    );
    // Text no column can store is refused before any page runs: the dashboard's 400 page names it.
    const unstorable = await browser.get('/dashboard/events?type=%00');
    expect(unstorable.status).toBe(400);
    expect(unstorable.html).toContain('Invalid type');
    const { browser: other } = await frozenMerchant();
    expect((await other.get(`/dashboard/events/${eventId}`)).status).toBe(404);
  });

  it('redeliver attempts at once, to every subscribed endpoint or the chosen one, and says how it went', async () => {
    const { m, browser } = await frozenMerchant();
    const tr = await transfer(m);
    const events = await api(m, 'GET', `/v1/events?object_id=${tr.id}`);
    const eventId = String((events.data as Json[])[0]?.id);
    const deliveries = async () =>
      (await api(m, 'GET', `/v1/events/${eventId}/deliveries`)).data as { endpoint: string; state: string }[];
    expect(await deliveries()).toEqual([]);

    // No endpoint yet: nothing to send, said so.
    const nothing = await browser.post(`/dashboard/events/${eventId}/redeliver`, {
      back: `/dashboard/transactions/${tr.id}`,
    });
    expect(nothing.location).toBe(`/dashboard/transactions/${tr.id}`);
    expect((await browser.get(nothing.location ?? '')).html).toContain('nothing was sent');

    const endpoint = await api(m, 'POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' });
    const page = await browser.get(`/dashboard/transactions/${tr.id}`);
    expect(page.html).toContain(`action="/dashboard/events/${eventId}/redeliver"`);
    const res = await browser.post(`/dashboard/events/${eventId}/redeliver`, {
      back: `/dashboard/transactions/${tr.id}`,
    });
    const after = await browser.get(res.location ?? '');
    // Nothing listens on port 9: the attempt made at once failed, and a retry is scheduled.
    expect(after.html).toContain('0 delivered, 1 still failing');
    expect(await deliveries()).toEqual([
      expect.objectContaining({ endpoint: endpoint.id, state: 'pending', attempt_count: 1 }),
    ]);
    expect(after.html).toContain('connection refused');
    expect(after.html).toContain('data-testid="delivery"');
    expect(after.html).toContain(`href="/dashboard/webhooks/${endpoint.id}"`);

    const second = await api(m, 'POST', '/v1/webhook_endpoints', {
      url: 'http://127.0.0.1:9/other',
      events: ['collection.created'],
    });
    const eventPage = await browser.get(`/dashboard/events/${eventId}`);
    expect(eventPage.html).toContain(`<option value="${second.id}">http://127.0.0.1:9/other</option>`);
    const chosen = await browser.post(`/dashboard/events/${eventId}/redeliver`, {
      endpoint_id: String(second.id),
    });
    expect(chosen.location).toBe(`/dashboard/events/${eventId}`);
    expect((await deliveries()).map((d) => d.endpoint).sort()).toEqual([endpoint.id, second.id].sort());
    const unknown = await browser.post(`/dashboard/events/${eventId}/redeliver`, { endpoint_id: 'we_nope' });
    expect((await browser.get(unknown.location ?? '')).html).toContain('data-testid="flash-error"');
  });
});
