/**
 * The dashboard's foreign exchange in-process: the rates and their 48-hour chart against
 * GET /v1/fx/rates, a quote from the form against a REST quote, the countdown to expiry on the
 * merchant's clock, converting and settling abroad from the quote's page, paying out of a foreign
 * balance, an expired quote, escaping. Outcomes are read back over REST (the same services).
 *
 * Instants: 2031-12-03 is a Wednesday; 15:00Z is 10:00 ET, so a settlement is paid Thursday
 * 2031-12-04 12:00 ET = 17:00Z.
 */
import { describe, expect, it } from 'vitest';
import { CHART_HOURS } from '../../../src/web/dashboard/fx.ts';
import type { Json } from '../../support/clocked-merchant.ts';
import { type DashboardBrowser, dashboardTestApp } from '../../support/dashboard.ts';
import { clockedDashboard, testIdTexts } from '../../support/dashboard-clocked.ts';
import type { TestMerchant } from '../../support/harness.ts';

const app = dashboardTestApp();
const { post, get, signedInAt } = clockedDashboard(app);

const WEDNESDAY_1000 = '2031-12-03T15:00:00.000Z';
const JP_ACCOUNT = {
  'destination[name]': 'Yamada Taro',
  'destination[bank_code]': '0001',
  'destination[branch_code]': '123',
  'destination[account_number]': '1234567',
};

const setup = () => signedInAt(WEDNESDAY_1000, '1000.00');
const testIdText = (page: string, testId: string) => testIdTexts(page, testId)[0];

/** A quote through the dashboard's form; returns its id (from the redirect to its page). */
async function quoteFromForm(browser: DashboardBrowser, fields: Record<string, string>): Promise<string> {
  const res = await browser.post('/dashboard/fx/quotes', {
    target_currency: 'JPY',
    source_amount: '200',
    lock_duration: 'hour',
    ...fields,
  });
  expect(res.status).toBe(303);
  const id = /^\/dashboard\/fx\/quotes\/(fxq_\w+)$/.exec(res.location ?? '')?.[1];
  expect(id, res.location ?? '').toBeDefined();
  return id as string;
}

async function balances(m: TestMerchant): Promise<Record<string, Json>> {
  const rows = (await get(m, '/v1/balances')).body.data as Json[];
  return Object.fromEntries(rows.map((row) => [String(row.currency), row]));
}

describe('rates', () => {
  it('the rates shown are GET /v1/fx/rates at the clock', async () => {
    const { m, browser } = await setup();
    await post(m, '/v1/clock/advance', { to: '2031-12-03T15:42:10.000Z' });
    const rest = (await get(m, '/v1/fx/rates')).body;
    const page = await browser.get('/dashboard/fx');
    expect(page.status).toBe(200);
    for (const rate of rest.rates as Json[]) {
      expect(testIdText(page.html, `mid-${rate.target_currency}`)).toBe(rate.mid_rate);
      expect(testIdText(page.html, `sell-${rate.target_currency}`)).toBe(rate.rate);
    }
    expect(page.html).toMatch(/data-testid="rates-as-of"><time datetime="2031-12-03T15:00:00.000Z"/);
    expect(page.html).toMatch(/data-testid="rates-next-change"><time datetime="2031-12-03T16:00:00.000Z"/);
  });

  it('each currency has a chart of 48 hourly points spanning the REST rates of those hours', async () => {
    const { m, browser } = await setup();
    const page = await browser.get('/dashboard/fx');
    const hours = await Promise.all(
      Array.from({ length: CHART_HOURS }, (_, i) => {
        const at = new Date(Date.parse(WEDNESDAY_1000) - i * 3_600_000).toISOString();
        return get(m, `/v1/fx/rates?at=${at}`);
      }),
    );
    for (const currency of ['EUR', 'GBP', 'JPY']) {
      const chart = new RegExp(`data-testid="rate-chart-${currency}">([\\s\\S]*?)</figure>`).exec(
        page.html,
      )?.[1];
      expect(chart, currency).toBeDefined();
      const paths = [...(chart ?? '').matchAll(/<path d="([^"]+)"/g)].map((p) => p[1] ?? '');
      expect(paths).toHaveLength(2); // mid and sell
      // A step line: one move, then a horizontal and a vertical segment per later point.
      for (const d of paths) expect(d.match(/V/g)).toHaveLength(CHART_HOURS - 1);
      const of = (side: string) =>
        hours.map((h) =>
          Number((h.body.rates as Json[]).find((r) => r.target_currency === currency)?.[side]),
        );
      const range = /range ([\d.]+) to ([\d.]+)/.exec(chart ?? '');
      const places = currency === 'JPY' ? 3 : 5;
      expect(range?.[1]).toBe(Math.min(...of('rate')).toFixed(places));
      expect(range?.[2]).toBe(Math.max(...of('mid_rate')).toFixed(places));
    }
  });
});

describe('quotes', () => {
  it('a quote from the form has the numbers of the same quote made over REST', async () => {
    const { m, browser } = await setup();
    const id = await quoteFromForm(browser, { target_currency: 'JPY', source_amount: '200' });
    const mine = (await get(m, `/v1/fx/quotes/${id}`)).body;
    const rest = (
      await post(m, '/v1/fx/quotes', { target_currency: 'JPY', source_amount: 200, lock_duration: 'hour' })
    ).body;
    for (const field of [
      'rate',
      'sell_rate',
      'mid_rate',
      'source_amount',
      'target_amount',
      'fee',
      'expires_at',
    ])
      expect(mine[field], field).toEqual(rest[field]);
    expect(mine).toMatchObject({
      target_currency: 'JPY',
      fixed_side: 'source',
      lock_duration: 'hour',
      state: 'open',
    });
    const page = await browser.get(`/dashboard/fx/quotes/${id}`);
    expect(testIdText(page.html, 'quote-rate')).toBe(mine.rate);
    expect(testIdText(page.html, 'quote-sell-rate')).toBe(mine.sell_rate);
    expect(testIdText(page.html, 'quote-mid-rate')).toBe(mine.mid_rate);
    expect(testIdText(page.html, 'quote-source')).toBe('200.00 USD');
    expect(testIdText(page.html, 'quote-target')).toBe(
      `${Number(mine.target_amount).toLocaleString('en-US')} JPY`,
    );
    expect(testIdText(page.html, 'quote-fee')).toBe(`${Number(mine.fee).toFixed(2)} USD`);
    expect(page.html).toContain('data-testid="quote-convert"');

    // A target amount: exactly that many euros.
    const euros = await quoteFromForm(browser, {
      target_currency: 'EUR',
      source_amount: '',
      target_amount: '50',
    });
    expect((await get(m, `/v1/fx/quotes/${euros}`)).body).toMatchObject({
      target_amount: 50,
      fixed_side: 'target',
    });
  });

  it('a form error goes back to the FX page with the message and the values typed', async () => {
    const { m, browser } = await setup();
    const res = await browser.post('/dashboard/fx/quotes', {
      target_currency: 'JPY',
      source_amount: '',
      target_amount: '10.5',
      lock_duration: 'day',
    });
    expect(res.location).toBe('/dashboard/fx');
    const page = await browser.get('/dashboard/fx');
    expect(page.html).toContain('data-testid="flash-error"');
    expect(page.html).toContain('JPY amounts have at most 0 decimal places');
    expect(page.html).toContain('value="10.5"');
    expect(page.html).toMatch(/<option value="day" selected>/);
    expect((await get(m, '/v1/fx/quotes')).body.data).toEqual([]);
  });

  it('the countdown is expires_at − the clock, and runs only while the clock runs', async () => {
    const { m, browser } = await setup();
    const id = await quoteFromForm(browser, { lock_duration: 'hour' });
    await post(m, '/v1/clock/advance', { seconds: 754 });
    const quote = (await get(m, `/v1/fx/quotes/${id}`)).body;
    const now = (await get(m, '/v1/clock')).body;
    expect(now.frozen).toBe(true);
    const page = await browser.get(`/dashboard/fx/quotes/${id}`);
    const left = Date.parse(String(quote.expires_at)) - Date.parse(String(now.now));
    expect(left).toBe(3_600_000 - 754_000);
    expect(page.html).toContain(`data-countdown-ms="${left}"`);
    expect(page.html).toContain('data-countdown-running="false"');
    expect(testIdText(page.html, 'quote-countdown')).toBe('47:26');

    await post(m, '/v1/clock/unfreeze');
    const running = await browser.get(`/dashboard/fx/quotes/${id}`);
    expect(running.html).toContain('data-countdown-running="true"');
    const ms = Number(/data-countdown-ms="(\d+)"/.exec(running.html)?.[1]);
    expect(ms).toBeLessThanOrEqual(left);
    expect(ms).toBeGreaterThan(left - 60_000);
  });

  it('an expired quote shows that instead of Convert and Settle, and refuses a convert anyway', async () => {
    const { m, browser } = await setup();
    const id = await quoteFromForm(browser, { lock_duration: 'five_minutes' });
    await post(m, '/v1/clock/advance', { seconds: 600 });
    const page = await browser.get(`/dashboard/fx/quotes/${id}`);
    expect(page.html).toContain('data-testid="quote-expired"');
    expect(page.html).not.toContain('data-testid="quote-convert"');
    expect(page.html).not.toContain('data-testid="settle-form"');
    expect(page.html).toContain('data-countdown-ms="0"');
    expect(page.html).toMatch(/data-testid="quote-state"><span class="badge state-expired"/);
    const res = await browser.post(`/dashboard/fx/quotes/${id}/convert`);
    expect(res.location).toBe(`/dashboard/fx/quotes/${id}`);
    expect((await browser.get(res.location ?? '')).html).toContain('expired at');
    expect((await get(m, '/v1/fx/conversions')).body.data).toEqual([]);
  });

  it('an unknown quote is a 404 page', async () => {
    const { browser } = await setup();
    const page = await browser.get('/dashboard/fx/quotes/fxq_nothing');
    expect(page.status).toBe(404);
    expect(page.html).toContain('data-testid="not-found"');
  });
});

describe('converting and settling', () => {
  it('Convert moves USD into the target balance at the quote, and the quote shows it was used', async () => {
    const { m, browser } = await setup();
    const id = await quoteFromForm(browser, { target_currency: 'JPY', source_amount: '200' });
    const quote = (await get(m, `/v1/fx/quotes/${id}`)).body;
    const res = await browser.post(`/dashboard/fx/quotes/${id}/convert`);
    const fxc = /^\/dashboard\/transactions\/(fxc_\w+)$/.exec(res.location ?? '')?.[1];
    expect(fxc, res.location ?? '').toBeDefined();
    expect((await get(m, `/v1/fx/conversions/${fxc}`)).body).toMatchObject({
      state: 'completed',
      quote: id,
      source_amount: 200,
      target_amount: quote.target_amount,
    });
    const after = await balances(m);
    expect(after.USD).toMatchObject({ available: 800 });
    expect(after.JPY).toMatchObject({ available: quote.target_amount });
    const page = await browser.get(`/dashboard/fx/quotes/${id}`);
    expect(page.html).toContain('data-testid="quote-used"');
    expect(page.html).toContain(`href="/dashboard/transactions/${fxc}"`);
    expect(page.html).not.toContain('data-testid="quote-convert"');
    const fx = await browser.get('/dashboard/fx');
    expect(fx.html).toContain(`data-live-state="${fxc}"`);
    expect(testIdText(fx.html, 'fx-available-JPY')).toBe(
      `${Number(quote.target_amount).toLocaleString('en-US')} JPY`,
    );
  });

  it('Settle abroad pays a Japanese account at the quote; a bad account goes back to the form', async () => {
    const { m, browser } = await setup();
    const id = await quoteFromForm(browser, { target_currency: 'JPY', source_amount: '100' });
    const quote = (await get(m, `/v1/fx/quotes/${id}`)).body;
    const page = await browser.get(`/dashboard/fx/quotes/${id}`);
    expect(page.html).toContain('name="destination[bank_code]"');
    expect(page.html).not.toContain('name="destination[iban]"');

    const bad = await browser.post(`/dashboard/fx/quotes/${id}/settle`, {
      ...JP_ACCOUNT,
      'destination[branch_code]': '12',
    });
    expect(bad.location).toBe(`/dashboard/fx/quotes/${id}`);
    const again = await browser.get(`/dashboard/fx/quotes/${id}`);
    expect(again.html).toContain('branch code is exactly 3 digits');
    expect(again.html).toMatch(/name="destination\[branch_code\]" [^>]*value="12"/);
    expect((await get(m, `/v1/fx/quotes/${id}`)).body.state).toBe('open');

    const res = await browser.post(`/dashboard/fx/quotes/${id}/settle`, {
      ...JP_ACCOUNT,
      reference: 'inv-77',
    });
    const fxs = /^\/dashboard\/transactions\/(fxs_\w+)$/.exec(res.location ?? '')?.[1];
    expect(fxs, res.location ?? '').toBeDefined();
    expect((await get(m, `/v1/fx/settlements/${fxs}`)).body).toMatchObject({
      state: 'converted',
      funding: 'conversion',
      quote: id,
      amount: quote.target_amount,
      currency: 'JPY',
      reference: 'inv-77',
      destination: {
        type: 'jp_bank_account',
        name: 'Yamada Taro',
        bank_code: '0001',
        branch_code: '123',
        last4: '4567',
      },
      expected_paid_at: '2031-12-04T17:00:00.000Z',
    });
    expect((await balances(m)).JPY).toMatchObject({ available: 0, reserved: quote.target_amount });
  });

  it('the payout form pays out of a foreign balance to an IBAN', async () => {
    const { m, browser } = await setup();
    const id = await quoteFromForm(browser, {
      target_currency: 'EUR',
      source_amount: '',
      target_amount: '80',
    });
    await browser.post(`/dashboard/fx/quotes/${id}/convert`);
    const res = await browser.post('/dashboard/fx/settlements', {
      currency: 'EUR',
      amount: '30.25',
      'destination[name]': 'Lieferant GmbH',
      'destination[iban]': 'DE89 3704 0044 0532 0130 00',
      'destination[bank_code]': '',
      'destination[branch_code]': '',
      'destination[account_number]': '',
    });
    const fxs = /^\/dashboard\/transactions\/(fxs_\w+)$/.exec(res.location ?? '')?.[1];
    expect(fxs, res.location ?? '').toBeDefined();
    expect((await get(m, `/v1/fx/settlements/${fxs}`)).body).toMatchObject({
      funding: 'balance',
      amount: 30.25,
      currency: 'EUR',
      destination: { type: 'iban', country: 'DE', last4: '3000' },
    });
    expect((await balances(m)).EUR).toMatchObject({ available: 49.75, reserved: 30.25 });
    const fx = await browser.get('/dashboard/fx');
    expect(fx.html).toContain(`data-live-state="${fxs}"`);
    expect(fx.html).toContain('Lieferant GmbH · IBAN DE ••3000');
  });
});

describe('escaping', () => {
  it("a beneficiary's name holding markup renders as text on the FX page and in the flash", async () => {
    const { m, browser } = await setup();
    const quote = (await post(m, '/v1/fx/quotes', { target_currency: 'EUR', source_amount: 20 })).body;
    await browser.post(`/dashboard/fx/quotes/${quote.id}/settle`, {
      'destination[name]': '<script>alert(1)</script><img src=x onerror=alert(2)>',
      'destination[iban]': 'DE89370400440532013000',
    });
    const page = await browser.get('/dashboard/fx');
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    expect(page.html).not.toMatch(/ style="| on[a-z]+="/);
  });
});
