/**
 * The dashboard's create-and-try forms in-process: a collection, a card payment with its
 * test-card picker, a transfer and a payout with the magic-account picker, and the "Try it" index.
 * Each form's object is read back over REST; errors refill the form and create nothing.
 */
import { describe, expect, it } from 'vitest';
import { TEST_CARDS, testCardFill } from '../../../src/modules/cards/magic-cards.ts';
import {
  INSTANT_REJECT_ACCOUNTS,
  MAGIC_ACCOUNTS,
  RETURN_CODE_ACCOUNT,
  UNREACHABLE_ROUTING_NUMBER,
} from '../../../src/modules/transfers/transfers.rails.ts';
import {
  type DashboardBrowser,
  type DashboardPage,
  dashboardTestApp,
  signedIn,
} from '../../support/dashboard.ts';
import { PUBLIC_URL, type TestMerchant } from '../../support/harness.ts';

const app = dashboardTestApp();

async function setUp(name = 'Form Shop'): Promise<{ m: TestMerchant; browser: DashboardBrowser }> {
  const m = await app().merchant(name);
  return { m, browser: await signedIn(app, m) };
}

const get = async (m: TestMerchant, path: string) =>
  (await app().rest('GET', path, { key: m.secretKey })).body;

async function topUp(m: TestMerchant, amount: number): Promise<void> {
  const res = await app().rest('POST', '/v1/simulate/balance/top_up', {
    key: m.secretKey,
    body: { amount, currency: 'USD' },
  });
  expect(res.status).toBe(200);
}

/** The id a create form redirected to (its transaction detail page). */
function createdId(page: DashboardPage, prefix: string): string {
  expect(page.status).toBe(303);
  const match = new RegExp(`^/dashboard/transactions/(${prefix}_[A-Za-z0-9]+)$`).exec(page.location ?? '');
  expect(match, `redirect to ${page.location}`).not.toBeNull();
  return match?.[1] ?? '';
}

function unescapeHtml(text: string): string {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

/** The option values of a select, in order. */
function optionsOf(html: string, name: string): string[] {
  const select = new RegExp(`<select id="${name}" name="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html);
  expect(select, `select ${name}`).not.toBeNull();
  return [...(select?.[1] ?? '').matchAll(/<option value="([^"]*)"/g)].map((m) => unescapeHtml(m[1] ?? ''));
}

/** The data-fill objects of the links with this data-testid, for this form. */
function fillsOf(html: string, testId: string, formId: string): Record<string, string>[] {
  const pattern = new RegExp(`data-fill="([^"]*)" data-fill-form="${formId}" data-testid="${testId}"`, 'g');
  return [...html.matchAll(pattern)].map((m) => JSON.parse(unescapeHtml(m[1] ?? '')));
}

function flashError(html: string): string {
  return unescapeHtml(/data-testid="flash-error">([^<]*)</.exec(html)?.[1] ?? '');
}

function flashNotice(html: string): string {
  return unescapeHtml(/data-testid="flash-notice">([^<]*)</.exec(html)?.[1] ?? '');
}

function inputValue(html: string, id: string): string | null {
  const match = new RegExp(`<input id="${id}" name="[^"]*" value="([^"]*)"`).exec(html);
  return match ? unescapeHtml(match[1] ?? '') : null;
}

async function clockYear(m: TestMerchant): Promise<number> {
  return new Date(String((await get(m, '/v1/clock')).now)).getUTCFullYear();
}

function expectSafePage(page: DashboardPage): void {
  expect(page.status).toBe(200);
  expect(page.html).not.toMatch(/<script>|<script [^>]*>[^<]/);
  expect(page.html).not.toMatch(/ style="| on[a-z]+="/);
}

describe('collections', () => {
  it('creates the collection with every submitted value and the flash names its checkout URL', async () => {
    const { m, browser } = await setUp();
    const page = await browser.post('/dashboard/collections/new', {
      amount: '12.34',
      currency: 'USD',
      email: 'payer@example.com',
      reference: 'order-77',
      description: 'Two mugs',
      redirect_url: 'https://shop.example/thanks',
      expires_in: '3600',
      metadata_key_1: 'cart',
      metadata_value_1: 'c-9',
      metadata_key_2: '',
      metadata_value_2: '',
      metadata_key_3: 'channel',
      metadata_value_3: 'dashboard',
    });
    const id = createdId(page, 'col');
    const body = await get(m, `/v1/collections/${id}`);
    expect(body).toMatchObject({
      amount: 12.34,
      currency: 'USD',
      email: 'payer@example.com',
      reference: 'order-77',
      description: 'Two mugs',
      redirect_url: 'https://shop.example/thanks',
      metadata: { cart: 'c-9', channel: 'dashboard' },
      state: 'pending',
      checkout_url: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/checkout/${id}\\?secret=[\\w-]{43}$`)),
    });
    expect(Date.parse(String(body.expires_at)) - Date.parse(String(body.created_at))).toBe(3_600_000);
    const next = await browser.get('/dashboard/try');
    expect(flashNotice(next.html)).toContain(String(body.checkout_url));
    expect(flashNotice(next.html)).toContain('12.34 USD');
  });

  it('the form page lists the last 5 collections, each opening its checkout page', async () => {
    const { m, browser } = await setUp();
    const urls: string[] = [];
    for (let i = 1; i <= 6; i += 1) {
      const res = await app().rest('POST', '/v1/collect', {
        key: m.secretKey,
        body: { amount: i, currency: 'USD' },
      });
      urls.push(String(res.body.checkout_url));
    }
    const page = await browser.get('/dashboard/collections/new');
    expectSafePage(page);
    const links = [
      ...page.html.matchAll(/<a href="([^"]+)" target="_blank" rel="noopener" data-testid="open-checkout">/g),
    ].map((match) => match[1]);
    // The links the API hands out (with their secrets), newest first.
    expect(links).toEqual(urls.slice(1).reverse());
    const opened = new URL(links[0] ?? '');
    const checkout = await app().app.request(`${opened.pathname}${opened.search}`);
    expect(checkout.status).toBe(200);
    expect(await checkout.text()).toContain('6.00');
  });

  it('a validation error refills the form (escaped), shows the message and creates nothing', async () => {
    const { m, browser } = await setUp();
    const page = await browser.post('/dashboard/collections/new', {
      amount: '5',
      currency: 'USD',
      reference: 'bad ref!',
      description: '<script>alert(1)</script>',
      metadata_key_1: 'note',
      metadata_value_1: '"><img src=x onerror=alert(2)>',
    });
    expect(page.status).toBe(303);
    expect(page.location).toBe('/dashboard/collections/new');
    const form = await browser.get('/dashboard/collections/new');
    expectSafePage(form);
    expect(flashError(form.html)).toContain('Invalid reference');
    expect(inputValue(form.html, 'reference')).toBe('bad ref!');
    expect(form.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;</textarea>');
    expect(form.html).not.toContain('<script>alert');
    expect(form.html).not.toContain('<img src=x');
    expect(form.html).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"');
    expect((await get(m, '/v1/collections')).data).toEqual([]);
  });
});

describe('card payments', () => {
  it('authorizes the typed card without capture when the box is unchecked', async () => {
    const { m, browser } = await setUp();
    const year = await clockYear(m);
    const page = await browser.post('/dashboard/card_payments/new', {
      amount: '42.50',
      currency: 'USD',
      'card[number]': '4242424242424242',
      'card[exp_month]': '11',
      'card[exp_year]': String(year + 2),
      'card[cvc]': '321',
      'card[name]': 'Ada Payer',
      reference: 'cp-ref-1',
      description: 'Tea',
    });
    const id = createdId(page, 'cp');
    expect(page.location).not.toContain('4242424242424242');
    expect(await get(m, `/v1/card_payments/${id}`)).toMatchObject({
      state: 'authorized',
      amount: 42.5,
      amount_captured: 0,
      brand: 'visa',
      last4: '4242',
      exp_month: 11,
      exp_year: year + 2,
      reference: 'cp-ref-1',
      description: 'Tea',
    });
    const next = await browser.get('/dashboard/try');
    expect(flashNotice(next.html)).toContain(`${id}`);
    expect(next.html).not.toContain('4242424242424242');
  });

  it('without script: a test card chosen in the select is used when the number is blank', async () => {
    const { m, browser } = await setUp();
    const page = await browser.post('/dashboard/card_payments/new', {
      amount: '9.99',
      currency: 'USD',
      'card[number]': '',
      'card[cvc]': '',
      'card[exp_month]': '',
      'card[exp_year]': '',
      test_card: '5555555555554444',
      capture: 'true',
    });
    const id = createdId(page, 'cp');
    expect(await get(m, `/v1/card_payments/${id}`)).toMatchObject({
      state: 'captured',
      amount_captured: 9.99,
      brand: 'mastercard',
      last4: '4444',
      exp_month: 12,
      exp_year: (await clockYear(m)) + 5,
    });
  });

  it('a declined test card lands on the declined payment, the flash names the code and not the number', async () => {
    const { m, browser } = await setUp();
    const year = await clockYear(m);
    const page = await browser.post('/dashboard/card_payments/new', {
      amount: '10',
      currency: 'USD',
      'card[number]': '4000000000009995',
      'card[exp_month]': '12',
      'card[exp_year]': String(year + 5),
      'card[cvc]': '123',
      capture: 'true',
    });
    const id = createdId(page, 'cp');
    expect(page.location).not.toContain('4000000000009995');
    expect(await get(m, `/v1/card_payments/${id}`)).toMatchObject({
      state: 'declined',
      decline_code: 'insufficient_funds',
      network_response_code: '51',
      last4: '9995',
    });
    const landed = await browser.get(page.location ?? '');
    expect(landed.status).toBe(200);
    expect(landed.html).toContain(id);
    const error = flashError(landed.html);
    expect(error).toContain('insufficient_funds');
    expect(error).toContain(id);
    expect(landed.html).not.toContain('4000000000009995');
  });

  it('a validation error refills everything but the number and CVC, and creates nothing', async () => {
    const { m, browser } = await setUp();
    const page = await browser.post('/dashboard/card_payments/new', {
      amount: '3',
      currency: 'USD',
      'card[number]': '4242424242424242',
      'card[exp_month]': '12',
      'card[exp_year]': '2099',
      'card[cvc]': '12',
      'card[name]': '<b>Mallory</b>',
      reference: 'keep-me',
      capture: 'true',
    });
    expect(page.location).toBe('/dashboard/card_payments/new');
    const form = await browser.get('/dashboard/card_payments/new');
    expectSafePage(form);
    expect(flashError(form.html)).toBe('The CVC has the wrong length for this card brand.');
    expect(inputValue(form.html, 'number')).toBe('');
    expect(inputValue(form.html, 'cvc')).toBe('');
    expect(inputValue(form.html, 'reference')).toBe('keep-me');
    expect(inputValue(form.html, 'exp_year')).toBe('2099');
    expect(form.html).toContain('value="&lt;b&gt;Mallory&lt;/b&gt;"');
    expect((await get(m, '/v1/card_payments')).data).toEqual([]);
  });

  it("the picker offers exactly the network's test cards, filling December of the clock's year + 5 as checkout does", async () => {
    const { m, browser } = await setUp();
    const year = await clockYear(m);
    const page = await browser.get('/dashboard/card_payments/new');
    expectSafePage(page);
    expect(optionsOf(page.html, 'test_card')).toEqual(['', ...TEST_CARDS.map((card) => card.number)]);
    expect(fillsOf(page.html, 'test-card', 'card-payment-form')).toEqual(
      TEST_CARDS.map((card) => ({
        number: card.number,
        cvc: card.cvc,
        exp_month: '12',
        exp_year: String(year + 5),
      })),
    );
    expect(page.html).toMatch(/<input type="checkbox" name="capture" value="true" checked/);
  });

  it('after the clock moved 7 years ahead, the picked card is still valid and the picker fills what checkout fills', async () => {
    const { m, browser } = await setUp();
    const year = await clockYear(m);
    const moved = await app().rest('POST', '/v1/clock/advance', {
      key: m.secretKey,
      body: { to: `${year + 7}-06-15T12:00:00.000Z` },
    });
    expect(moved.status).toBe(200);
    const now = new Date(String((await get(m, '/v1/clock')).now));
    const page = await browser.get('/dashboard/card_payments/new');
    expect(page.html).toContain(`(expiry 12/${year + 12}, by the sandbox clock)`);
    const fills = fillsOf(page.html, 'test-card', 'card-payment-form');
    expect(fills).toEqual(TEST_CARDS.map((card) => testCardFill(card, now)));
    const visa = fills[0] ?? {};
    expect(visa.exp_year).toBe(String(year + 12));

    // The checkout page of the same merchant fills the same expiry.
    const collection = await app().rest<{ checkout_url: string }>('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: '4.00', currency: 'USD', reference: 'picker-clock' },
    });
    const checkout = new URL(collection.body.checkout_url);
    const payerPage = await app().app.request(`${checkout.pathname}${checkout.search}`);
    expect(await payerPage.text()).toContain(`data-exp-month="12" data-exp-year="${year + 12}"`);

    // The filled card pays, from the links' fill (script) as from the select (no script).
    const typed = await browser.post('/dashboard/card_payments/new', {
      amount: '5.00',
      currency: 'USD',
      // The fill link fills the inputs by id; the form sends them by the body's names.
      ...Object.fromEntries(Object.entries(visa).map(([id, value]) => [`card[${id}]`, value])),
      capture: 'true',
    });
    const typedId = createdId(typed, 'cp');
    expect(await get(m, `/v1/card_payments/${typedId}`)).toMatchObject({
      state: 'captured',
      exp_month: 12,
      exp_year: year + 12,
    });
    const picked = await browser.post('/dashboard/card_payments/new', {
      amount: '6.00',
      currency: 'USD',
      'card[number]': '',
      'card[cvc]': '',
      'card[exp_month]': '',
      'card[exp_year]': '',
      test_card: '5555555555554444',
      capture: 'true',
    });
    const pickedId = createdId(picked, 'cp');
    expect(await get(m, `/v1/card_payments/${pickedId}`)).toMatchObject({
      state: 'captured',
      exp_year: year + 12,
    });
  });
});

describe('transfers and payouts', () => {
  const magicValues = () => [
    ...MAGIC_ACCOUNTS.map((account) => account.accountNumber),
    RETURN_CODE_ACCOUNT.example,
    ...Object.keys(INSTANT_REJECT_ACCOUNTS),
  ];

  it('creates a transfer from a magic account chosen without script; the page shows the balance', async () => {
    const { m, browser } = await setUp();
    await topUp(m, 1000);
    const page = await browser.post('/dashboard/transfers/new', {
      rail: 'same_day_ach',
      direction: 'credit',
      amount: '125.50',
      currency: 'USD',
      'counterparty[name]': 'Acme Supplies',
      'counterparty[routing_number]': '',
      'counterparty[account_number]': '',
      'counterparty[account_type]': 'savings',
      magic_account: '000111111113',
      sec_code: 'PPD',
      reference: 'tr-ref-1',
      description: 'Rent',
    });
    const id = createdId(page, 'tr');
    expect(await get(m, `/v1/transfers/${id}`)).toMatchObject({
      rail: 'same_day_ach',
      direction: 'credit',
      amount: 125.5,
      currency: 'USD',
      sec_code: 'PPD',
      reference: 'tr-ref-1',
      description: 'Rent',
      counterparty: {
        name: 'Acme Supplies',
        routing_number: '110000000',
        account_number: '••••1113',
        account_type: 'savings',
      },
    });
    const form = await browser.get('/dashboard/transfers/new');
    expectSafePage(form);
    expect(flashNotice(form.html)).toContain(id);
    expect(form.html).toContain('data-testid="available-usd">874.50 USD<');
  });

  it('creates a payout with the typed account and method', async () => {
    const { m, browser } = await setUp();
    await topUp(m, 50);
    const page = await browser.post('/dashboard/payouts/new', {
      amount: '20',
      currency: 'USD',
      method: 'rtp',
      'destination[name]': 'Own Account',
      'destination[routing_number]': '021000021',
      'destination[account_number]': '987654321',
      'destination[account_type]': 'checking',
      reference: 'po-ref-1',
    });
    const id = createdId(page, 'po');
    expect(await get(m, `/v1/payouts/${id}`)).toMatchObject({
      method: 'rtp',
      amount: 20,
      reference: 'po-ref-1',
      destination: { name: 'Own Account', routing_number: '021000021', account_number: '••••4321' },
    });
    const form = await browser.get('/dashboard/payouts/new');
    expectSafePage(form);
    expect(form.html).toContain('data-testid="available-usd">30.00 USD<');
  });

  it('errors refill the form (escaped), show the message and create nothing', async () => {
    const { m, browser } = await setUp();
    await topUp(m, 100);
    const bad = await browser.post('/dashboard/transfers/new', {
      rail: 'ach',
      direction: 'credit',
      amount: '10',
      currency: 'USD',
      'counterparty[name]': '<script>alert(3)</script>',
      'counterparty[routing_number]': '123456789',
      'counterparty[account_number]': '000123456789',
    });
    expect(bad.location).toBe('/dashboard/transfers/new');
    const form = await browser.get('/dashboard/transfers/new');
    expectSafePage(form);
    expect(flashError(form.html)).toContain('routing number');
    expect(inputValue(form.html, 'account_name')).toBe('<script>alert(3)</script>');
    expect(form.html).not.toContain('<script>alert');
    expect(optionsOf(form.html, 'rail')).toEqual(['ach', 'same_day_ach', 'rtp', 'fednow', 'wire']);
    expect((await get(m, '/v1/transfers')).data).toEqual([]);

    const broke = await browser.post('/dashboard/payouts/new', {
      amount: '500',
      currency: 'USD',
      method: 'ach',
      'destination[name]': 'Own',
      'destination[routing_number]': '110000000',
      'destination[account_number]': '000123456789',
    });
    expect(broke.location).toBe('/dashboard/payouts/new');
    const payoutForm = await browser.get('/dashboard/payouts/new');
    expect(flashError(payoutForm.html)).toMatch(/balance/i);
    expect(inputValue(payoutForm.html, 'amount')).toBe('500');
    expect((await get(m, '/v1/payouts')).data).toEqual([]);
  });

  it("both pickers offer exactly the rails' magic accounts", async () => {
    const { browser } = await setUp();
    for (const [path, formId] of [
      ['/dashboard/transfers/new', 'transfer-form'],
      ['/dashboard/payouts/new', 'payout-form'],
    ] as const) {
      const page = await browser.get(path);
      expectSafePage(page);
      expect(optionsOf(page.html, 'magic_account')).toEqual([
        '',
        ...magicValues(),
        `routing_${UNREACHABLE_ROUTING_NUMBER}`,
      ]);
      const fills = fillsOf(page.html, 'magic-account', formId);
      expect(fills.map((fill) => fill.account_number).slice(0, -1)).toEqual(magicValues());
      expect(fills.at(-1)?.routing_number).toBe(UNREACHABLE_ROUTING_NUMBER);
      for (const account of MAGIC_ACCOUNTS) expect(page.html).toContain(account.outcome);
    }
  });

  it('the unreachable routing number of the picker is refused by ACH at creation', async () => {
    const { m, browser } = await setUp();
    await topUp(m, 10);
    await browser.post('/dashboard/transfers/new', {
      rail: 'ach',
      direction: 'credit',
      amount: '1',
      currency: 'USD',
      'counterparty[name]': 'Nobody',
      magic_account: `routing_${UNREACHABLE_ROUTING_NUMBER}`,
    });
    const form = await browser.get('/dashboard/transfers/new');
    expect(flashError(form.html)).toMatch(/not reachable|unreachable/i);
    expect((await get(m, '/v1/transfers')).data).toEqual([]);
  });
});

describe('every create form', () => {
  const forms: [string, Record<string, string>][] = [
    ['/dashboard/collections/new', { amount: '1', currency: 'USD' }],
    [
      '/dashboard/card_payments/new',
      { amount: '1', currency: 'USD', test_card: '4242424242424242', capture: 'true' },
    ],
    [
      '/dashboard/transfers/new',
      { rail: 'ach', direction: 'debit', amount: '1', currency: 'USD', 'counterparty[name]': 'X' },
    ],
    ['/dashboard/payouts/new', { amount: '1', currency: 'USD', method: 'ach', 'destination[name]': 'X' }],
  ];

  it('refuses a post without the CSRF token and creates nothing', async () => {
    const { m, browser } = await setUp();
    await topUp(m, 10);
    for (const [path, fields] of forms) {
      const page = await browser.post(path, { ...fields, magic_account: '000123456789', _csrf: '' });
      expect(page.status, path).toBe(403);
    }
    const listed = await Promise.all(
      ['/v1/collections', '/v1/card_payments', '/v1/transfers', '/v1/payouts'].map((path) => get(m, path)),
    );
    for (const body of listed) expect(body.data).toEqual([]);
  });

  it('the Try it index links every create form of the dashboard', async () => {
    const { browser } = await setUp();
    const page = await browser.get('/dashboard/try');
    expectSafePage(page);
    const hrefs = [...page.html.matchAll(/<a href="([^"]+)" data-testid="try-/g)].map((match) => match[1]);
    expect(hrefs).toEqual([
      '/dashboard/collections/new',
      '/dashboard/card_payments/new',
      '/dashboard/transfers/new',
      '/dashboard/payouts/new',
      '/dashboard/cards',
      '/dashboard/fx',
      '/dashboard/webhooks',
    ]);
  });
});
