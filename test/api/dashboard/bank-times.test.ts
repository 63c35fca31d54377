/**
 * Times read in Eastern Time with UTC beside them wherever a person meets them next to the banking
 * rules (set in ET): the checkout page (its expiry, a bank payment's expected and actual
 * settlement, its expiry once expired), every time on a transaction's dashboard page (timeline,
 * events, postings, created and updated) and in the transactions table, and the FX pages'
 * converted, paid and failed times. Instants by hand: 2031-12-03 is a Wednesday in EST (UTC−5);
 * 15:00Z is 10:00 ET. A bank payment made then settles Thursday 08:30 ET (13:30Z); an FX
 * settlement is paid Thursday 12:00 ET (17:00Z).
 */
import { describe, expect, it } from 'vitest';
import { bankTime } from '../../../src/web/bank-time.ts';
import type { Json } from '../../support/clocked-merchant.ts';
import { dashboardTestApp } from '../../support/dashboard.ts';
import { clockedDashboard } from '../../support/dashboard-clocked.ts';
import type { TestMerchant } from '../../support/harness.ts';

const app = dashboardTestApp();
const { post, get, merchantAt, advanceTo, signedInAt } = clockedDashboard(app);

const WEDNESDAY_1000 = '2031-12-03T15:00:00.000Z';
const DE_IBAN = { name: 'Lieferant GmbH', iban: 'DE89 3704 0044 0532 0130 00' };

/** Every <time> element of a piece of HTML: its instant and the text it shows. */
function timesOf(html: string): { iso: string; text: string }[] {
  return [...html.matchAll(/<time datetime="([^"]+)"[^>]*>([^<]*)<\/time>/g)].map((m) => ({
    iso: m[1] ?? '',
    text: m[2] ?? '',
  }));
}

/** Every time in `html` reads "… ET · … UTC" for its own instant; returns how many there were. */
function expectAllBankTimes(html: string): number {
  const times = timesOf(html);
  for (const { iso, text } of times) {
    expect(text, iso).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d ET · (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC$/);
    expect(text, iso).toBe(bankTime(new Date(iso)));
  }
  return times.length;
}

/** A dashboard page without its clock panel (which shows the clock to the second, ET beside it). */
function content(html: string): string {
  const panel = html.indexOf('data-testid="clock-panel"');
  expect(panel).toBeGreaterThan(-1);
  return html.slice(html.indexOf('</section>', panel));
}

/** The part of a page between the element with this data-testid and the end of its tag `tag`. */
function section(html: string, testId: string, tag: string): string {
  const start = html.indexOf(`data-testid="${testId}"`);
  expect(start, testId).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf(`</${tag}>`, start));
}

/** The checkout page of a collection, as a payer opens it. */
async function checkoutPage(m: TestMerchant, reference: string): Promise<string> {
  const url = new URL(String((await get(m, `/v1/collections/${reference}`)).body.checkout_url));
  const res = await app().app.request(`${url.pathname}${url.search}`);
  expect(res.status).toBe(200);
  return res.text();
}

describe('the checkout page', () => {
  it('shows its expiry, then the bank payment expected and settled, in ET beside UTC', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    await post(m, '/v1/collect', { amount: 120, currency: 'USD', reference: 'et-bank', expires_in: 3600 });
    const open = await checkoutPage(m, 'et-bank');
    expect(open).toContain(
      'data-testid="expires"><time datetime="2031-12-03T16:00:00.000Z" title="2031-12-03T16:00:00.000Z">2031-12-03 11:00 ET · 16:00 UTC</time>',
    );
    const paid = await post(m, '/v1/simulate/collections/et-bank/pay', {
      method: 'bank_account',
      bank_account: { name: 'Ada Lovelace', routing_number: '110000000', account_number: '000123456789' },
    });
    expect(paid.status).toBe(200);
    const processing = await checkoutPage(m, 'et-bank');
    expect(processing).toContain('data-state="processing"');
    expect(processing).toMatch(
      /<dt>Expected settlement<\/dt><dd data-testid="expected-settlement"><time datetime="2031-12-04T13:30:00.000Z"[^>]*>2031-12-04 08:30 ET · 13:30 UTC<\/time>/,
    );
    // Closed: the expiry no longer shows.
    expect(processing).not.toContain('data-testid="expires"');
    await advanceTo(m, '2031-12-04T13:30:00.000Z');
    const settled = await checkoutPage(m, 'et-bank');
    expect(settled).toContain('data-state="succeeded"');
    expect(settled).toMatch(
      /<dt>Settled<\/dt><dd data-testid="settled-at"><time[^>]*>2031-12-04 08:30 ET · 13:30 UTC</,
    );
    expect(settled).not.toContain('data-testid="expected-settlement"');
    expect(expectAllBankTimes(settled)).toBe(1);
  });

  it('an expired checkout says when it expired; the UTC side names its own date when the day differs', async () => {
    const m = await merchantAt('2031-12-03T23:30:00.000Z', '0');
    await post(m, '/v1/collect', { amount: 5, currency: 'USD', reference: 'et-late', expires_in: 3600 });
    const open = await checkoutPage(m, 'et-late');
    expect(open).toContain('>2031-12-03 19:30 ET · 2031-12-04 00:30 UTC</time>');
    await advanceTo(m, '2031-12-04T01:00:00.000Z');
    const expired = await checkoutPage(m, 'et-late');
    expect(expired).toContain('data-state="expired"');
    expect(expired).toMatch(
      /data-testid="expired-at"><time[^>]*>2031-12-03 19:30 ET · 2031-12-04 00:30 UTC</,
    );
  });
});

describe('the dashboard', () => {
  it("every time on a bank payment's page (timeline, events, postings) and in the transactions table", async () => {
    const { m, browser } = await signedInAt(WEDNESDAY_1000, '1000.00');
    const created = await post(m, '/v1/transfers', {
      amount: '12.00',
      currency: 'USD',
      rail: 'ach',
      direction: 'debit',
      counterparty: {
        name: 'Acme Supplies',
        routing_number: '021000021',
        account_number: '000123456789',
        account_type: 'checking',
      },
    });
    expect(created.status).toBe(200);
    await advanceTo(m, '2031-12-04T13:30:00.000Z');
    expect((await get(m, `/v1/transfers/${created.body.id}`)).body.state).toBe('settled');
    const page = await browser.get(`/dashboard/transactions/${created.body.id}`);
    expect(page.status).toBe(200);
    const timeline = section(page.html, 'timeline', 'ol');
    // Created, submitted in the 10:30 ET window, settled Thursday 08:30 ET: each entry in ET · UTC.
    expect(timesOf(timeline).map((time) => time.text)).toEqual([
      '2031-12-03 10:00 ET · 15:00 UTC',
      '2031-12-03 10:30 ET · 15:30 UTC',
      '2031-12-04 08:30 ET · 13:30 UTC',
    ]);
    expect(page.html).toMatch(/Created \(clock\)<\/dt><dd><time[^>]*>2031-12-03 10:00 ET · 15:00 UTC</);
    expect(page.html).toMatch(/Updated \(clock\)<\/dt><dd><time[^>]*>2031-12-04 08:30 ET · 13:30 UTC</);
    // Events and postings too: every time on the page (it has no webhook endpoint, so no delivery log).
    expect(expectAllBankTimes(content(page.html))).toBeGreaterThanOrEqual(10);
    const list = await browser.get('/dashboard/transactions');
    expect(section(list.html, 'transactions', 'table')).toMatch(
      /<time datetime="2031-12-03T15:00:00.000Z"[^>]*>2031-12-03 10:00 ET · 15:00 UTC</,
    );
    expect(expectAllBankTimes(section(list.html, 'transactions', 'table'))).toBeGreaterThanOrEqual(1);
  });

  it("the FX page's converted, paid and failed times, and a settlement's page, in ET beside UTC", async () => {
    const { m, browser } = await signedInAt(WEDNESDAY_1000, '1000.00');
    const quote = (await post(m, '/v1/fx/quotes', { target_currency: 'EUR', source_amount: 100 })).body;
    const conversion = await post(m, '/v1/fx/conversions', { quote_id: quote.id });
    expect(conversion.status).toBe(200);
    const pays = (
      await post(m, '/v1/fx/settlements', { currency: 'EUR', amount: '10.00', destination: DE_IBAN })
    ).body as Json;
    const fails = (
      await post(m, '/v1/fx/settlements', { currency: 'EUR', amount: '5.00', destination: DE_IBAN })
    ).body as Json;
    const waits = (
      await post(m, '/v1/fx/settlements', { currency: 'EUR', amount: '1.00', destination: DE_IBAN })
    ).body as Json;
    expect(waits.expected_paid_at).toBe('2031-12-04T17:00:00.000Z');
    await advanceTo(m, '2031-12-03T16:15:00.000Z');
    expect((await post(m, `/v1/simulate/fx_settlements/${pays.id}/pay`)).status).toBe(200);
    expect((await post(m, `/v1/simulate/fx_settlements/${fails.id}/fail`, { code: 'AC04' })).status).toBe(
      200,
    );

    const fx = await browser.get('/dashboard/fx');
    expect(section(fx.html, 'conversions', 'table')).toMatch(
      /data-testid="converted-at"><time[^>]*>2031-12-03 10:00 ET · 15:00 UTC</,
    );
    const settlements = section(fx.html, 'settlements', 'table');
    const rowOf = (id: unknown) => settlements.slice(settlements.indexOf(`data-live-row="${id}"`));
    expect(rowOf(pays.id)).toMatch(
      /data-testid="settlement-time"><time[^>]*>2031-12-03 11:15 ET · 16:15 UTC</,
    );
    expect(rowOf(fails.id)).toMatch(
      /data-testid="settlement-time"><time[^>]*>2031-12-03 11:15 ET · 16:15 UTC</,
    );
    expect(rowOf(waits.id)).toMatch(
      /data-testid="settlement-time"><time[^>]*>2031-12-04 12:00 ET · 17:00 UTC</,
    );
    expect(expectAllBankTimes(section(fx.html, 'conversions', 'table'))).toBe(1);
    expect(expectAllBankTimes(settlements)).toBe(3);

    const paidPage = await browser.get(`/dashboard/transactions/${pays.id}`);
    expect(paidPage.html).toMatch(/Paid<\/dt><dd><time[^>]*>2031-12-03 11:15 ET · 16:15 UTC</);
    expect(paidPage.html).toMatch(/Expected paid<\/dt><dd><time[^>]*>2031-12-04 12:00 ET · 17:00 UTC</);
    expect(expectAllBankTimes(content(paidPage.html))).toBeGreaterThanOrEqual(5);
    const failedPage = await browser.get(`/dashboard/transactions/${fails.id}`);
    expect(failedPage.html).toMatch(/Failed<\/dt><dd><time[^>]*>2031-12-03 11:15 ET · 16:15 UTC</);
    expect(expectAllBankTimes(content(failedPage.html))).toBeGreaterThanOrEqual(5);
  });

  it('a settlement funded by a quote shows when it converted', async () => {
    const { m, browser } = await signedInAt(WEDNESDAY_1000, '1000.00');
    const quote = (await post(m, '/v1/fx/quotes', { target_currency: 'EUR', source_amount: 50 })).body;
    const settlement = await post(m, '/v1/fx/settlements', { quote_id: quote.id, destination: DE_IBAN });
    expect(settlement.status).toBe(200);
    expect(settlement.body.state).toBe('converted');
    const page = await browser.get(`/dashboard/transactions/${settlement.body.id}`);
    expect(page.html).toMatch(/Converted<\/dt><dd><time[^>]*>2031-12-03 10:00 ET · 15:00 UTC</);
    expect(expectAllBankTimes(content(page.html))).toBeGreaterThanOrEqual(5);
  });
});
