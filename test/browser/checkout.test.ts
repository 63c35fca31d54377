import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { detectBrand } from '../../src/modules/cards/card-numbers.ts';
import { TEST_CARDS } from '../../src/modules/cards/magic-cards.ts';
import type { ServerProcess } from '../processes/server-process.ts';
import { launchChromium, SECRET_KEY, screenshot, startBrowserTestServer, watchProblems } from './chromium.ts';

/**
 * The hosted checkout in a real browser: the real server as a child process (Postgres when
 * TEST_DATABASE_URL is set, else PGlite in memory), Debian's Chromium driven by playwright-core,
 * collections created over real HTTP with the pinned secret key.
 */

/** Far enough ahead that no simulated clock reaches it in a test. */
const EXPIRY = { month: '12', year: '2099' };

let server: ServerProcess | undefined;
let browser: Browser | undefined;
let merchantName = '';
const contexts: BrowserContext[] = [];
/** What each page opened in a test reported as wrong (CSP refusals, script errors): none, ever. */
const problems: string[][] = [];

function base(): string {
  if (!server) throw new Error('the server did not start');
  return server.url;
}

beforeAll(async () => {
  server = await startBrowserTestServer();
  browser = await launchChromium();
  // The start-up banner names the default merchant that the pinned keys belong to.
  const running = server;
  await vi.waitFor(() => expect(running.output()).toMatch(/Merchant {3}.+ \(mch_/), { timeout: 10_000 });
  merchantName = /Merchant {3}(.+) \(mch_/.exec(running.output())?.[1] ?? '';
  expect(running.output()).toContain(
    process.env.TEST_DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'PGlite in memory',
  );
  expect(merchantName).not.toBe('');
}, 120_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
  expect(problems.splice(0).flat()).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  if (server) await server.stop();
}, 60_000);

interface Api<T> {
  status: number;
  body: T;
}

async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
): Promise<Api<T>> {
  const headers: Record<string, string> = { authorization: `Bearer ${SECRET_KEY}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base()}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

interface Created {
  id: string;
  reference: string;
  checkout_url: string;
  state: string;
}

/** POST /v1/collect for $25 with a reference unique to this run (or the generated one, the id). */
async function collect(extra: Record<string, unknown> = {}, ownReference = true): Promise<Created> {
  const reference = ownReference ? `browser-${randomUUID()}` : undefined;
  const res = await api<Created & { status: string }>('POST', '/v1/collect', {
    amount: 25,
    currency: 'USD',
    ...(reference ? { reference } : {}),
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status).toBe('success');
  expect(res.body.reference).toBe(reference ?? res.body.id);
  // The link carries the checkout's secret: the page opens only with it.
  expect(res.body.checkout_url).toMatch(new RegExp(`/checkout/${res.body.id}\\?secret=[\\w-]{43}$`));
  return res.body;
}

/** A collection's payment: a card payment (cp_) or, for a bank account, an ACH debit (tr_). */
interface Payment {
  id: string;
  object: string;
  state: string;
  decline_code?: string | null;
  last4?: string;
  three_d_secure?: string | null;
  counterparty?: { account_number: string };
}

async function collection(reference: string) {
  const res = await api<{ state: string; failure_code: string | null; payments: Payment[] }>(
    'GET',
    `/v1/collections/${encodeURIComponent(reference)}`,
  );
  expect(res.status).toBe(200);
  return res.body;
}

/** A fresh browser context (no shared cookies) at the collection's checkout_url (its path and query). */
async function openCheckout(created: Created): Promise<Page> {
  if (!browser) throw new Error('the browser did not launch');
  const context = await browser.newContext({ viewport: { width: 900, height: 1100 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  problems.push(await watchProblems(page));
  const link = new URL(created.checkout_url);
  const response = await page.goto(`${base()}${link.pathname}${link.search}`);
  expect(response?.status()).toBe(200);
  return page;
}

async function fillCard(page: Page, number: string, cvc = '123'): Promise<void> {
  await page.fill('#number', number);
  await page.fill('#exp_month', EXPIRY.month);
  await page.fill('#exp_year', EXPIRY.year);
  await page.fill('#cvc', cvc);
  await page.fill('#name', 'Ada Lovelace');
}

async function status(page: Page): Promise<string | null> {
  const section = page.getByTestId('status');
  await section.waitFor();
  return section.getAttribute('data-state');
}

describe('hosted checkout in Chromium', () => {
  it('pays by card with a one-click test card and shows the receipt', async () => {
    const created = await collect({ description: 'Two coffees' });
    const page = await openCheckout(created);

    await expect(page.locator('.test-mode').textContent()).resolves.toContain('TEST MODE');
    await expect(page.getByTestId('merchant').textContent()).resolves.toBe(merchantName);
    await expect(page.getByTestId('amount').textContent()).resolves.toBe('$25.00 USD');
    await expect(page.getByTestId('reference').textContent()).resolves.toBe(created.reference);
    await expect(page.getByTestId('pay-card').textContent()).resolves.toBe('Pay $25.00 USD');
    expect(await page.locator('.test-cards a[data-card]').count()).toBeGreaterThanOrEqual(10);
    await screenshot(page, 'checkout-form');
    // The stylesheet reaches the browser unescaped: the two-column bank row spans the form's width.
    const right = (selector: string) =>
      page.locator(selector).evaluate((e) => Math.round(e.getBoundingClientRect().right));
    expect(await right('#account_number')).toBe(await right('#account_name'));
    expect(await right('#cvc')).toBe(await right('#number'));

    const pathBefore = new URL(page.url()).pathname;
    await page.click('a[data-card="4242424242424242"]');
    // The link fills the form through the page script instead of navigating.
    expect(new URL(page.url()).pathname).toBe(pathBefore);
    await expect(page.inputValue('#number')).resolves.toBe('4242 4242 4242 4242');
    await expect(page.inputValue('#exp_month')).resolves.toBe('12');
    expect(Number(await page.inputValue('#exp_year'))).toBeGreaterThan(new Date().getUTCFullYear());
    await expect(page.inputValue('#cvc')).resolves.toBe('123');

    await page.click('[data-testid="pay-card"]');
    expect(await status(page)).toBe('succeeded');
    await expect(page.getByTestId('status-text').textContent()).resolves.toContain('complete');
    await expect(page.locator('[data-testid="status"] dd').first().textContent()).resolves.toContain('4242');
    expect(await page.locator('#card-form').count()).toBe(0);

    const res = await fetch(`${base()}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query($r: String!) { collection(reference: $r) { state cardPayments { state last4 } } }',
        variables: { r: created.reference },
      }),
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as {
      data: { collection: { state: string; cardPayments: { state: string; last4: string }[] } };
      errors?: unknown;
    };
    expect(json.errors).toBeUndefined();
    expect(json.data.collection).toEqual({
      state: 'succeeded',
      cardPayments: [{ state: 'captured', last4: '4242' }],
    });
  });

  it('shows a decline inline, keeps the collection pending, and lets the payer retry', async () => {
    const created = await collect();
    const page = await openCheckout(created);

    // Every value the page's script writes to the tab's storage is copied aside (under a key of the
    // test's own), to show below that the CVC is never among them.
    await page.evaluate(() => {
      const setItem = Storage.prototype.setItem;
      Storage.prototype.setItem = function (key: string, value: string) {
        setItem.call(this, 'test-written', `${this.getItem('test-written') ?? ''}${value}\n`);
        setItem.call(this, key, value);
      };
    });
    await fillCard(page, '4000000000000002', '987');
    await page.click('[data-testid="pay-card"]');
    const error = page.getByTestId('card-error');
    await error.waitFor();
    await expect(error.textContent()).resolves.toBe('Your card was declined.');
    const written = await page.evaluate(() => {
      const text = sessionStorage.getItem('test-written') ?? '';
      sessionStorage.removeItem('test-written');
      return text;
    });
    expect(written).toContain('4000 0000 0000 0002');
    expect(written).toContain('Ada Lovelace');
    expect(written).not.toContain('987');
    expect(await page.locator('#card-form').count()).toBe(1);
    expect(await page.getByTestId('status').count()).toBe(0);
    // What the payer typed is still there, but the CVC.
    await expect(page.inputValue('#number')).resolves.toBe('4000 0000 0000 0002');
    await expect(page.inputValue('#exp_month')).resolves.toBe(EXPIRY.month);
    await expect(page.inputValue('#exp_year')).resolves.toBe(EXPIRY.year);
    await expect(page.inputValue('#name')).resolves.toBe('Ada Lovelace');
    await expect(page.inputValue('#cvc')).resolves.toBe('');
    await expect(page.getByTestId('card-brand').textContent()).resolves.toBe('Visa');

    const declined = await collection(created.reference);
    expect(declined.state).toBe('pending');
    expect(declined.payments).toHaveLength(1);
    expect(declined.payments[0]).toMatchObject({
      object: 'card_payment',
      state: 'declined',
      decline_code: 'generic_decline',
    });

    await fillCard(page, '4242424242424242');
    await page.click('[data-testid="pay-card"]');
    expect(await status(page)).toBe('succeeded');

    const paid = await collection(created.reference);
    expect(paid.state).toBe('succeeded');
    expect(paid.payments.map((a) => a.state)).toEqual(['captured', 'declined']);
    // Paid: nothing typed is kept in the tab any longer.
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('a refused number comes back typed in this browser, and the server-side hint steps aside', async () => {
    const created = await collect();
    const page = await openCheckout(created);
    await fillCard(page, '4242424242424241');
    await page.click('[data-testid="pay-card"]');
    await expect(page.getByTestId('card-error').textContent()).resolves.toContain('card number');
    await expect(page.inputValue('#number')).resolves.toBe('4242 4242 4242 4241');
    await expect(page.inputValue('#cvc')).resolves.toBe('');
    expect(await page.getByTestId('card-hint').isVisible()).toBe(false);
    // A reload of the error page has nothing to put back: the kept values were read once.
    await page.reload();
    await expect(page.inputValue('#number')).resolves.toBe('');
  });

  it("groups the number as it is typed (Amex 4-6-5) and shows its brand by the server's own rules", async () => {
    const created = await collect();
    const page = await openCheckout(created);
    for (const [typed, shown, brand] of [
      ['378282246310005', '3782 822463 10005', 'Amex'],
      ['4242424242424242', '4242 4242 4242 4242', 'Visa'],
      ['5555555555554444', '5555 5555 5555 4444', 'Mastercard'],
      ['2223003122003222', '2223 0031 2200 3222', 'Mastercard'],
      ['6011', '6011', ''],
    ] as const) {
      await page.fill('#number', '');
      await page.locator('#number').pressSequentially(typed);
      await expect(page.inputValue('#number')).resolves.toBe(shown);
      await expect(page.getByTestId('card-brand').textContent()).resolves.toBe(brand);
    }
    // A digit typed in the middle keeps the caret after it.
    await page.fill('#number', '4242 4242');
    await page.locator('#number').press('Home');
    await page.locator('#number').press('ArrowRight');
    await page.keyboard.type('1');
    await expect(page.inputValue('#number')).resolves.toBe('4124 2424 2');
    await page.keyboard.type('9');
    await expect(page.inputValue('#number')).resolves.toBe('4192 4242 42');

    // The script's detection against the server's detectBrand: every test card, every 1- to
    // 4-digit prefix.
    const samples = [
      ...TEST_CARDS.map((card) => card.number),
      ...Array.from({ length: 10 }, (_, n) => String(n)),
      ...Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0')),
      ...Array.from({ length: 10_000 }, (_, n) => String(n).padStart(4, '0')),
    ];
    const seen = await page.evaluate((numbers) => {
      const input = document.getElementById('number') as HTMLInputElement;
      const mark = document.querySelector('[data-testid="card-brand"]') as HTMLElement;
      return numbers.map((number) => {
        input.value = number;
        input.dispatchEvent(new Event('input'));
        return mark.dataset.brand || 'unknown';
      });
    }, samples);
    const expected = samples.map((number) => detectBrand(number));
    expect(seen).toEqual(expected);
    expect(new Set(expected)).toEqual(new Set(['visa', 'mastercard', 'amex', 'unknown']));
  });

  it('pays with a virtual card issued here: frozen it is declined inline, active the collection succeeds', async () => {
    expect((await api('POST', '/v1/simulate/balance/top_up', { amount: 100, currency: 'USD' })).status).toBe(
      200,
    );
    const issued = await api<{
      id: string;
      number: string;
      cvc: string;
      exp_month: number;
      exp_year: number;
    }>('POST', '/v1/virtual_cards', { brand: 'mastercard', cardholder_name: 'Ada Lovelace' });
    expect(issued.status).toBe(200);
    const card = issued.body;
    expect((await api('POST', `/v1/virtual_cards/${card.id}`, { state: 'frozen' })).status).toBe(200);
    const created = await collect();
    const page = await openCheckout(created);
    const fillIssued = async () => {
      await page.fill('#number', card.number);
      await page.fill('#exp_month', String(card.exp_month));
      await page.fill('#exp_year', String(card.exp_year));
      await page.fill('#cvc', card.cvc);
      await page.fill('#name', 'Ada Lovelace');
      await page.click('[data-testid="pay-card"]');
    };
    await fillIssued();
    const error = page.getByTestId('card-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('declined');
    expect((await collection(created.reference)).payments[0]).toMatchObject({
      state: 'declined',
      decline_code: 'restricted_card',
    });

    expect((await api('POST', `/v1/virtual_cards/${card.id}`, { state: 'active' })).status).toBe(200);
    await fillIssued();
    expect(await status(page)).toBe('succeeded');
    const auths = await api<{ data: { state: string; merchant: { name: string } }[] }>(
      'GET',
      `/v1/virtual_cards/${card.id}/authorizations`,
    );
    expect(auths.body.data.map((a) => a.state)).toEqual(['captured', 'declined']);
    expect(auths.body.data[0]?.merchant.name).toBe(merchantName);
  });

  it('runs the 3-D Secure challenge: Complete authentication pays', async () => {
    const created = await collect();
    const page = await openCheckout(created);

    await fillCard(page, '4000002500003155');
    await page.click('[data-testid="pay-card"]');
    await page.getByTestId('challenge').waitFor();
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/checkout/${created.id}/3ds/cp_`));
    await expect(page.getByTestId('challenge').textContent()).resolves.toContain('•••• 3155');
    expect((await collection(created.reference)).payments[0]?.state).toBe('requires_action');

    await page.getByRole('button', { name: 'Complete authentication' }).click();
    expect(await status(page)).toBe('succeeded');

    const paid = await collection(created.reference);
    expect(paid.state).toBe('succeeded');
    expect(paid.payments).toHaveLength(1);
    expect(paid.payments[0]).toMatchObject({
      object: 'card_payment',
      state: 'captured',
      last4: '3155',
      three_d_secure: 'succeeded',
    });
  });

  it('runs the 3-D Secure challenge: Fail authentication returns to the form with an error', async () => {
    const created = await collect();
    const page = await openCheckout(created);

    await fillCard(page, '4000002500003155');
    await page.click('[data-testid="pay-card"]');
    await page.getByTestId('challenge').waitFor();
    await page.getByRole('button', { name: 'Fail authentication' }).click();

    const error = page.getByTestId('card-error');
    await error.waitFor();
    await expect(error.textContent()).resolves.toBe('3-D Secure authentication failed.');
    expect(await page.locator('#card-form').count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe(`/checkout/${created.id}`);

    const failed = await collection(created.reference);
    expect(failed.state).toBe('pending');
    expect(failed.payments).toHaveLength(1);
    expect(failed.payments[0]).toMatchObject({
      state: 'declined',
      decline_code: 'authentication_failed',
      three_d_secure: 'failed',
    });
  });

  it('ends at redirect_url with the reference and state in the query string', async () => {
    const redirectUrl = `${base()}/healthz`;
    const created = await collect({ redirect_url: redirectUrl });
    const page = await openCheckout(created);

    await fillCard(page, '4242424242424242');
    await page.click('[data-testid="pay-card"]');
    await page.waitForURL((url) => url.pathname === '/healthz');

    const landed = new URL(page.url());
    expect(`${landed.origin}${landed.pathname}`).toBe(redirectUrl);
    expect(landed.searchParams.get('reference')).toBe(created.reference);
    expect(landed.searchParams.get('state')).toBe('succeeded');
    expect((await collection(created.reference)).state).toBe('succeeded');
  });

  it('shows a canceled collection as closed instead of the form', async () => {
    const created = await collect({}, false);
    const canceled = await api('POST', `/v1/collections/${encodeURIComponent(created.reference)}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.state).toBe('canceled');

    const page = await openCheckout(created);
    expect(await status(page)).toBe('canceled');
    await expect(page.getByTestId('status-text').textContent()).resolves.toContain('canceled');
    await expect(page.getByTestId('amount').textContent()).resolves.toBe('$25.00 USD');
    expect(await page.locator('#card-form').count()).toBe(0);
    expect(await page.getByTestId('pay-bank').count()).toBe(0);
    // A generated reference (an unbroken id) wraps instead of widening the page on a phone.
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });

  /** Pays a checkout on the page with the bank account `account`; returns its ACH debit. */
  async function payByBank(page: Page, created: Created, account: string) {
    await page.fill('#account_name', 'Ada Lovelace');
    await page.fill('#routing_number', '110000000');
    await page.fill('#account_number', account);
    await page.click('[data-testid="pay-bank"]');
    expect(await status(page)).toBe('processing');
    await expect(page.getByTestId('status-text').textContent()).resolves.toContain('processing');
    const last4 = account.slice(-4);
    await expect(page.locator('[data-testid="status"] dd').first().textContent()).resolves.toContain(last4);
    const submitted = await collection(created.reference);
    expect(submitted.state).toBe('processing');
    expect(submitted.payments).toHaveLength(1);
    const debit = submitted.payments[0] as Payment & { expected_settlement_at: string };
    expect(debit).toMatchObject({
      object: 'transfer',
      direction: 'debit',
      state: 'pending',
      counterparty: { account_number: `••••${last4}` },
    });
    return debit;
  }

  /** Moves the default merchant's clock (the bank tests run last: it only goes forward). */
  async function advanceClock(body: { to: string } | { seconds: number }) {
    const res = await api('POST', '/v1/clock/advance', body);
    expect(res.status).toBe(200);
  }

  it('pays by US bank account: processing, then succeeded once the clock passes settlement', async () => {
    const created = await collect();
    const page = await openCheckout(created);
    const debit = await payByBank(page, created, '000123456789');

    await advanceClock({ to: debit.expected_settlement_at });
    await page.reload();
    expect(await status(page)).toBe('succeeded');
    await expect(page.getByTestId('status-text').textContent()).resolves.toContain('complete');
    const settled = await collection(created.reference);
    expect(settled.state).toBe('succeeded');
    expect(settled.payments[0]).toMatchObject({ id: debit.id, state: 'settled' });
  });

  it('pays from 000222222227: the debit settles, then returns R01 and the checkout shows it failed', async () => {
    const created = await collect();
    const page = await openCheckout(created);
    const debit = await payByBank(page, created, '000222222227');

    await advanceClock({ to: debit.expected_settlement_at });
    // The return arrives the next banking day: a week covers any weekend and holiday in between.
    await advanceClock({ seconds: 7 * 86_400 });
    await page.reload();
    expect(await status(page)).toBe('failed');
    await expect(page.getByTestId('failure').textContent()).resolves.toContain('R01 Insufficient Funds');
    await screenshot(page, 'checkout-bank-returned');
    const failed = await collection(created.reference);
    expect(failed).toMatchObject({ state: 'failed', failure_code: 'R01' });
    expect(failed.payments[0]).toMatchObject({ id: debit.id, state: 'returned', return_code: 'R01' });
  });

  it('a magic bank account fills the routing and account numbers in one click, by the served script', async () => {
    const created = await collect();
    const page = await openCheckout(created);
    const link = page.locator('a[data-account="000333333335"]');
    await expect(link.textContent()).resolves.toBe('110000000 / 000333333335');
    await link.click();
    // The script filled the form in place: no navigation to the link's server-side fill.
    expect(new URL(page.url()).searchParams.has('bank')).toBe(false);
    await expect(page.inputValue('#routing_number')).resolves.toBe('110000000');
    await expect(page.inputValue('#account_number')).resolves.toBe('000333333335');
    await page.click('[data-testid="pay-bank"]');
    expect(await status(page)).toBe('processing');
    const debit = (await collection(created.reference)).payments[0];
    expect(debit).toMatchObject({ object: 'transfer', counterparty: { account_number: '••••3335' } });
  });

  it("after the clock moves years ahead, click-to-fill takes the clock's year and an old expiry is declined naming both dates", async () => {
    // A merchant of its own (the default merchant's clock is shared with the other browser tests when
    // they run against one Postgres), its clock moved past the year a browser-based fill (now + 3) gives.
    const signup = await fetch(`${base()}/v1/merchants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Future Shop' }),
    });
    const key = String(((await signup.json()) as { secret_key: string }).secret_key);
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${base()}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, path).toBe(200);
      return (await res.json()) as Created;
    };
    await call('/v1/clock/advance', { to: '2035-03-02T10:00:00Z' });
    const created = await call('/v1/collect', { amount: 25, currency: 'USD' });
    const page = await openCheckout(created);
    await expect(page.getByTestId('test-cards-summary').textContent()).resolves.toContain('12/2040');

    await fillCard(page, '4242424242424242');
    await page.fill('#exp_year', '2034');
    await page.click('[data-testid="pay-card"]');
    await expect(page.getByTestId('card-error').textContent()).resolves.toBe(
      'Your card has expired: it expired at the end of 12/2034 and the sandbox clock is at 2035-03-02.',
    );

    await page.click('a[data-card="4242424242424242"]');
    await expect(page.inputValue('#exp_month')).resolves.toBe('12');
    await expect(page.inputValue('#exp_year')).resolves.toBe('2040');
    await page.click('[data-testid="pay-card"]');
    expect(await status(page)).toBe('succeeded');
  });
});
