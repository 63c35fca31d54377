import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { type ServerProcess, startServerProcess } from '../processes/server-process.ts';
import { Receiver } from '../support/receiver.ts';
import { launchChromium, screenshot } from './chromium.ts';

/**
 * The merchant dashboard in Debian's Chromium: the real server as a child process
 * (Postgres when TEST_DATABASE_URL is set, else PGlite in memory), signed in with the one-time link
 * the start-up banner prints, or per test as a merchant of its own (so clocks never collide).
 */

let server: ServerProcess | undefined;
let browser: Browser | undefined;
let signInLink = '';
const contexts: BrowserContext[] = [];

function base(): string {
  if (!server) throw new Error('the server did not start');
  return server.url;
}

beforeAll(async () => {
  server = await startServerProcess({ args: ['--memory'], postgres: true });
  browser = await launchChromium();
  const running = server;
  await vi.waitFor(() => expect(running.output()).toMatch(/Dashboard {2}\S+\/dashboard\/login\/\S+/), {
    timeout: 10_000,
  });
  const printed = /Dashboard {2}(\S+)/.exec(running.output())?.[1] ?? '';
  // The banner prints PUBLIC_URL; the test server listens on its own port.
  signInLink = `${base()}${new URL(printed).pathname}`;
}, 120_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

afterAll(async () => {
  await browser?.close();
  if (server) await server.stop();
}, 60_000);

interface Merchant {
  id: string;
  secret_key: string;
}

async function api<T = Record<string, unknown>>(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base()}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** A merchant of the test's own, its clock frozen at `at`, with USD funds. */
async function merchant(at: string, funds = '1000.00'): Promise<Merchant> {
  const res = await fetch(`${base()}/v1/merchants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Browser Test Shop' }),
  });
  const created = (await res.json()) as Merchant;
  expect(created.secret_key).toMatch(/^sk_test_/);
  await api(created.secret_key, 'POST', '/v1/clock/freeze');
  await api(created.secret_key, 'POST', '/v1/clock/advance', { to: at });
  if (funds !== '0')
    await api(created.secret_key, 'POST', '/v1/simulate/balance/top_up', { amount: funds, currency: 'USD' });
  return created;
}

async function newPage(viewport = { width: 1280, height: 800 }): Promise<Page> {
  if (!browser) throw new Error('the browser did not launch');
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  // Any dialog (an injected alert) fails the test that sees it.
  page.on('dialog', (dialog) => {
    throw new Error(`a dialog fired: ${dialog.message()}`);
  });
  return page;
}

/** Signs in through the sign-in form with the merchant's secret key. */
async function signIn(page: Page, m: Merchant): Promise<void> {
  await page.goto(`${base()}/dashboard/login`);
  await page.fill('[data-testid="sign-in-key"]', m.secret_key);
  await page.click('[data-testid="sign-in"]');
  await page.waitForURL(`${base()}/dashboard`);
}

async function liveConnected(page: Page): Promise<void> {
  await page.waitForSelector('body[data-live-connected="true"]');
}

describe('dashboard in Chromium', () => {
  it('signs in with the printed link; a collection created there and paid in a second tab turns succeeded without a reload', async () => {
    const linked = await newPage();
    await linked.goto(signInLink);
    await linked.waitForURL(`${base()}/dashboard`);
    await expect(linked.getByTestId('merchant-name').textContent()).resolves.toBe('Sandbank Demo Store');
    // The rest runs as a merchant of its own, with no funds: its balance is exactly what this test
    // moves. (On Postgres every browser test file's server shares the default merchant, whose
    // balances the other files' payments and clock moves change meanwhile.)
    const page = await newPage();
    await signIn(page, await merchant('2031-12-02T14:00:00.000Z', '0'));
    await page.goto(`${base()}/dashboard/collections/new`);
    await page.fill('[data-testid="field-amount"]', '42.50');
    await page.fill('[data-testid="field-reference"]', 'browser-order-1');
    await page.fill('[data-testid="field-description"]', 'Two coffees');
    await page.click('[data-testid="collection-form-submit"]');
    await page.waitForURL(/\/dashboard\/transactions\/col_/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
    await expect(page.getByTestId('flash-notice').textContent()).resolves.toContain('/checkout/');
    await liveConnected(page);
    const home = await newPage();
    await home.context().addCookies(await page.context().cookies());
    await home.goto(`${base()}/dashboard`);
    await liveConnected(home);
    const badge = home.locator(`[data-live-state="${id}"]`);
    await expect(badge.textContent()).resolves.toBe('pending');

    // The payer opens the checkout link from the detail page in a second tab and pays by card.
    const [checkout] = await Promise.all([
      page.context().waitForEvent('page'),
      page.click('[data-testid="checkout-link"]'),
    ]);
    await checkout.waitForLoadState();
    await checkout.click('a[data-card="4242424242424242"]');
    await checkout.click('[data-testid="pay-card"]');
    await checkout.getByTestId('status').waitFor();
    expect(await checkout.getByTestId('status').getAttribute('data-state')).toBe('succeeded');

    // Both dashboard tabs follow without a reload: the badge and the detail page's timeline.
    const navigations: string[] = [];
    home.on('framenavigated', (frame) => navigations.push(frame.url()));
    await home.waitForFunction(
      (cid) => document.querySelector(`[data-live-state="${cid}"]`)?.textContent === 'succeeded',
      id,
    );
    await page.waitForSelector('[data-testid="timeline-entry"][data-state="succeeded"]');
    // The balances follow too: the captured 42.50 is pending.
    await home.waitForFunction(() =>
      document.querySelector('[data-testid="balance-USD"]')?.textContent?.includes('42.50 USD'),
    );
    expect(navigations).toEqual([]);
    await screenshot(home, 'dashboard-home');
    await screenshot(page, 'dashboard-collection-succeeded');
  });

  it('a transfer created from the dashboard settles after "Next settlement"; its timeline lists each state with clock times', async () => {
    // Tuesday 2031-12-02 09:00 ET: the 10:30 ET Same-Day window submits, 13:00 ET settles.
    const m = await merchant('2031-12-02T14:00:00.000Z');
    const page = await newPage();
    await signIn(page, m);
    await page.goto(`${base()}/dashboard/transfers/new`);
    await page.selectOption('[data-testid="field-rail"]', 'same_day_ach');
    await page.fill('[data-testid="field-amount"]', '250.00');
    await page.fill('[data-testid="field-account_name"]', 'Acme Supplies');
    await page.fill('[data-testid="field-routing_number"]', '110000000');
    await page.fill('[data-testid="field-account_number"]', '000123456789');
    await page.click('[data-testid="transfer-form-submit"]');
    await page.waitForURL(/\/dashboard\/transactions\/tr_/);
    await expect(page.locator('[data-testid="timeline-entry"]').count()).resolves.toBe(1);
    await page.click('[data-testid="clock-next_settlement"]');
    await page.waitForURL(/\/dashboard\/transactions\/tr_/);
    await expect(page.getByTestId('clock-moved').textContent()).resolves.toContain('transfer.');
    const entries = page.locator('[data-testid="timeline-entry"]');
    const states = await entries.evaluateAll((items) => items.map((li) => li.getAttribute('data-state')));
    expect(states).toEqual(['created', 'submitted', 'settled']);
    const times = await entries
      .locator('time')
      .evaluateAll((items) => items.map((t) => t.getAttribute('datetime')));
    expect(times).toEqual([
      '2031-12-02T14:00:00.000Z',
      '2031-12-02T15:30:00.000Z',
      '2031-12-02T18:00:00.000Z',
    ]);
    await expect(page.getByTestId('clock-now').textContent()).resolves.toBe('2031-12-02 18:00:00Z');
    await screenshot(page, 'dashboard-transfer-timeline');
  });

  it('webhooks: failed attempts against a failing loopback receiver, then a redelivery that succeeds', async () => {
    // The suite's loopback receiver: every delivery it gets is checked against the OpenAPI document.
    const receiver = await new Receiver().start();
    receiver.status = 500;
    receiver.body = 'receiver down <b>for maintenance</b>';
    const url = receiver.url;
    try {
      const m = await merchant('2031-12-02T14:00:00.000Z');
      const page = await newPage();
      await signIn(page, m);
      await page.goto(`${base()}/dashboard/webhooks`);
      await page.fill('[data-testid="field-url"]', url);
      await page.check('[data-testid="event-all"]');
      await page.click('[data-testid="endpoint-create"]');
      await page.waitForURL(/\/dashboard\/webhooks\/we_/);
      await expect(page.getByTestId('endpoint-secret').textContent()).resolves.toMatch(/^whsec_/);
      // An event: a collection over the API. The clock panel's +1 hour runs its first attempts.
      await api(m.secret_key, 'POST', '/v1/collect', { amount: 5, currency: 'USD' });
      await page.click('[data-testid="clock-hour"]');
      const attempts = page.locator('[data-testid="attempt-row"]');
      await attempts.first().waitFor();
      const statuses = await page.locator('[data-testid="attempt-status"]').allTextContents();
      expect(statuses.length).toBeGreaterThanOrEqual(2);
      expect(new Set(statuses)).toEqual(new Set(['500']));
      await expect(page.locator('[data-testid="attempt-response"]').first().textContent()).resolves.toBe(
        'receiver down <b>for maintenance</b>',
      );
      await screenshot(page, 'dashboard-webhook-failing');

      receiver.status = 200;
      receiver.body = 'ok';
      const before = statuses.length;
      await page.locator('[data-testid="redeliver"]').first().click();
      await page.waitForURL(/\/dashboard\/webhooks\/we_/);
      // The redelivery is due now: the page follows it until its attempt is in the log.
      await page.waitForFunction(
        (n) => document.querySelectorAll('[data-testid="attempt-status"]').length > n,
        before,
        { timeout: 20_000 },
      );
      const after = await page.locator('[data-testid="attempt-status"]').allTextContents();
      expect(after.at(-1)).toBe('200');
      expect(receiver.received.length).toBe(after.length);
      await screenshot(page, 'dashboard-webhook-redelivered');
    } finally {
      await receiver.stop();
    }
  });

  it('virtual card: issue with a daily limit, simulate authorizations until one is declined, see why', async () => {
    const m = await merchant('2031-12-03T21:00:00.000Z', '500.00');
    const page = await newPage();
    await signIn(page, m);
    await page.goto(`${base()}/dashboard/cards`);
    await page.fill('[data-testid="cardholder-name"]', 'Ada Lovelace');
    await page.fill('[data-testid="limit-daily"]', '20');
    await page.click('[data-testid="create-card"]');
    await page.waitForURL(/\/dashboard\/cards\/vc_/);
    await expect(page.getByTestId('card-number').textContent()).resolves.toMatch(/^4859 32/);
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.fill('[data-testid="auth-amount"]', '6.50');
      await page.fill('[data-testid="auth-merchant"]', 'Blue Bottle');
      await page.fill('[data-testid="auth-mcc"]', '5814');
      await page.click('[data-testid="simulate-authorization"]');
      await page.waitForURL(/\/dashboard\/cards\/vc_/);
      const flash = await page
        .locator('[data-testid="flash-notice"], [data-testid="flash-error"]')
        .first()
        .textContent();
      outcomes.push(/declined/i.test(flash ?? '') ? 'declined' : 'approved');
    }
    expect(outcomes).toEqual(['approved', 'approved', 'approved', 'declined']);
    const reason = await page.getByTestId('decline-reason').first().textContent();
    expect(reason).toContain('spending_limit_exceeded');
    expect(reason).toContain('daily');
    await expect(page.getByTestId('card-number').count()).resolves.toBe(0);
    await screenshot(page, 'dashboard-card-declined');
  });

  it('merchant text with <img onerror> and <script> renders as text everywhere, and no dialog fires', async () => {
    const m = await merchant('2031-12-02T14:00:00.000Z');
    const attack = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    const created = await api<{ id: string }>(m.secret_key, 'POST', '/v1/collect', {
      amount: 5,
      currency: 'USD',
      reference: 'xss-1',
      description: attack,
      metadata: { note: attack, [attack.slice(0, 30)]: 'key too' },
    });
    expect(created.status).toBe(200);
    const page = await newPage();
    await signIn(page, m);
    for (const path of [
      '/dashboard',
      '/dashboard/transactions',
      `/dashboard/transactions/${created.body.id}`,
      '/dashboard/events',
      '/dashboard/collections/new',
    ]) {
      await page.goto(`${base()}${path}`);
      expect(await page.locator('img[src="x"]').count(), path).toBe(0);
      const injected = await page.evaluate(
        () => [...document.scripts].filter((s) => !s.src || s.textContent?.includes('alert')).length,
      );
      expect(injected, path).toBe(0);
    }
    await page.goto(`${base()}/dashboard/transactions/${created.body.id}`);
    await expect(page.getByTestId('description').textContent()).resolves.toContain(attack);
    await screenshot(page, 'dashboard-xss-as-text');
  });

  it('refuses a form post without its CSRF token, and sends a request without a session to sign-in', async () => {
    const m = await merchant('2031-12-02T14:00:00.000Z');
    const page = await newPage();
    await signIn(page, m);
    const before = await api<{ now: string }>(m.secret_key, 'GET', '/v1/clock');
    // A form of the page without its token, submitted by the browser itself.
    await page.evaluate(() => {
      const token = document.querySelector<HTMLInputElement>('.clock-ops input[name="_csrf"]');
      token?.remove();
    });
    await page.click('[data-testid="clock-hour"]');
    await expect(page.getByTestId('refused').textContent()).resolves.toContain('CSRF');
    const after = await api<{ now: string }>(m.secret_key, 'GET', '/v1/clock');
    expect(after.body.now).toBe(before.body.now);
    await screenshot(page, 'dashboard-csrf-refused');

    const anonymous = await newPage();
    await anonymous.goto(`${base()}/dashboard/transactions`);
    expect(new URL(anonymous.url()).pathname).toBe('/dashboard/login');
    expect(new URL(anonymous.url()).searchParams.get('next')).toBe('/dashboard/transactions');
    // A cross-site form post (no cookie is sent with it: SameSite) is sent to sign-in too.
    const posted = await fetch(`${base()}/dashboard/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'op=hour',
      redirect: 'manual',
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe('/dashboard/login');
  });

  it('graphql-ws takes the session cookie only from this origin (another site cannot ride it)', async () => {
    const m = await merchant('2031-12-02T14:00:00.000Z', '0');
    const page = await newPage();
    await signIn(page, m);
    const cookie = (await page.context().cookies()).find((c) => c.name === 'sandbank_session');
    expect(cookie?.httpOnly).toBe(true);
    const handshake = (origin: string, host?: string) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(`${base().replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
          headers: { cookie: `sandbank_session=${cookie?.value}`, origin, ...(host ? { host } : {}) },
        });
        socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
        socket.on('message', (data) => {
          resolve(String(JSON.parse(String(data)).type));
          socket.close();
        });
        socket.on('close', (code) => resolve(`closed ${code}`));
      });
    expect(await handshake(base())).toBe('connection_ack');
    expect(await handshake('https://evil.example')).toBe('closed 4401');
    // A Host header of the client's choosing proves nothing: only PUBLIC_URL's origin counts.
    expect(await handshake('http://evil.example', 'evil.example')).toBe('closed 4401');
    expect(await handshake(base().replace('127.0.0.1', 'localhost'))).toBe('closed 4401');
    await liveConnected(page);
    await screenshot(page, 'dashboard-live-connected');
  });

  it("GraphiQL opened from the dashboard's menu runs a query as the signed-in merchant, no key pasted", async () => {
    const m = await merchant('2031-12-02T14:00:00.000Z', '0');
    const page = await newPage();
    await signIn(page, m);
    const [graphiql] = await Promise.all([
      page.context().waitForEvent('page'),
      page.click('nav a[href="/graphql"]'),
    ]);
    graphiql.setDefaultTimeout(15_000);
    await graphiql.locator('.graphiql-container').first().waitFor();
    expect(await graphiql.title()).toBe('Sandbank GraphQL · Browser Test Shop');
    const editor = graphiql.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.waitFor();
    await editor.click();
    await graphiql.keyboard.press('ControlOrMeta+A');
    await graphiql.keyboard.press('Delete');
    await graphiql.keyboard.type('{ merchant { id'); // the editor closes the braces
    await graphiql.keyboard.press('Escape');
    await graphiql.locator('.graphiql-execute-button').dispatchEvent('click');
    await expect
      .poll(() => graphiql.locator('.graphiql-response').textContent(), { timeout: 20_000 })
      .toContain(m.id);
    expect(await graphiql.locator('.graphiql-response').textContent()).not.toContain('api_key');
    await screenshot(graphiql, 'graphiql-from-dashboard');
  });

  it('is usable at 390×844: no page scrolls sideways, the menu opens', async () => {
    const m = await merchant('2031-12-02T14:00:00.000Z');
    const page = await newPage({ width: 390, height: 844 });
    await signIn(page, m);
    for (const path of [
      '/dashboard',
      '/dashboard/keys',
      '/dashboard/transactions',
      '/dashboard/collections/new',
      '/dashboard/card_payments/new',
      '/dashboard/transfers/new',
      '/dashboard/cards',
      '/dashboard/fx',
      '/dashboard/webhooks',
      '/dashboard/events',
    ]) {
      await page.goto(`${base()}${path}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await screenshot(page, 'dashboard-mobile-keys');
  });

  it('at 390×844 the first screen shows the page, not the menu, which opens behind its toggle without script', async () => {
    const m = await merchant('2031-12-02T14:00:00.000Z');
    for (const javaScriptEnabled of [true, false]) {
      if (!browser) throw new Error('the browser did not launch');
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled });
      contexts.push(context);
      const page = await context.newPage();
      await signIn(page, m);
      for (const path of ['/dashboard', '/dashboard/transactions', '/dashboard/events']) {
        await page.goto(`${base()}${path}`);
        const where = `${path} (script ${javaScriptEnabled ? 'on' : 'off'})`;
        // The menu is folded: its links are not shown, its toggle is, and the page's heading sits
        // on the first screen with the clock panel.
        await expect(page.getByTestId('nav-items').isVisible(), where).resolves.toBe(false);
        const toggle = await page.getByTestId('menu-toggle').boundingBox();
        const heading = await page.locator('main h1').boundingBox();
        const clock = await page.getByTestId('clock-panel').boundingBox();
        expect(toggle && heading && clock, where).toBeTruthy();
        if (!toggle || !heading || !clock) return;
        expect(toggle.y + toggle.height, where).toBeLessThan(150);
        expect(heading.y + heading.height, where).toBeLessThan(844);
        expect(clock.y, where).toBeLessThan(heading.y);
      }
      // The toggle opens the menu (a checkbox and its label: no script involved), and a link works.
      await page.getByTestId('menu-toggle').click();
      await expect(page.getByTestId('nav-items').isVisible()).resolves.toBe(true);
      await page.getByRole('link', { name: 'Virtual cards' }).click();
      await page.waitForURL(`${base()}/dashboard/cards`);
      await expect(page.getByTestId('nav-items').isVisible()).resolves.toBe(false);
    }
    const wide = await newPage();
    await signIn(wide, m);
    await expect(wide.getByTestId('nav-items').isVisible()).resolves.toBe(true);
    await expect(wide.getByTestId('menu-toggle').isVisible()).resolves.toBe(false);
  });

  it("at 390×844 every list keeps its rows' state and amount on the screen", async () => {
    const m = await merchant('2031-12-02T14:00:00.000Z', '5000.00');
    const ok = (res: { status: number; body: unknown }, what: string) =>
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    const collection = await api<{ id: string }>(m.secret_key, 'POST', '/v1/collect', {
      amount: '999999.99',
      currency: 'USD',
      reference: 'a-rather-long-order-reference-0001',
    });
    ok(collection, 'collect');
    ok(
      await api(m.secret_key, 'POST', '/v1/virtual_cards', {
        brand: 'visa',
        cardholder_name: 'Ada Lovelace',
      }),
      'card',
    );
    ok(
      await api(m.secret_key, 'POST', '/v1/webhook_endpoints', {
        url: 'http://127.0.0.1:9/a/long/path/for/the/webhook/endpoint',
        enabled_events: ['*'],
      }),
      'endpoint',
    );
    const quote = await api<{ id: string }>(m.secret_key, 'POST', '/v1/fx/quotes', {
      target_currency: 'EUR',
      source_amount: '1000.00',
    });
    ok(quote, 'quote');
    ok(await api(m.secret_key, 'POST', '/v1/fx/conversions', { quote_id: quote.body.id }), 'conversion');
    const page = await newPage({ width: 390, height: 844 });
    await signIn(page, m);
    const lists: [string, string, boolean][] = [
      ['/dashboard', 'transactions', true],
      ['/dashboard/transactions', 'transactions', true],
      ['/dashboard/collections/new', 'recent-collections', true],
      ['/dashboard/cards', 'cards', false],
      ['/dashboard/webhooks', 'endpoints', false],
      ['/dashboard/fx', 'conversions', true],
      ['/dashboard/fx', 'quotes', true],
    ];
    for (const [path, table, amounts] of lists) {
      await page.goto(`${base()}${path}`);
      const where = `${path} ${table}`;
      const cells = await page.evaluate(
        (testId) =>
          [...document.querySelectorAll(`table[data-testid="${testId}"] tbody tr`)].flatMap((row) =>
            [...row.querySelectorAll(':scope > td')]
              .filter((td) => td.querySelector('[data-state]') || td.classList.contains('num'))
              .map((td) => {
                const box = td.getBoundingClientRect();
                return {
                  kind: td.classList.contains('num') ? 'amount' : 'state',
                  display: getComputedStyle(td).display,
                  left: box.left,
                  right: box.right,
                  width: box.width,
                  text: td.textContent?.trim() ?? '',
                };
              }),
          ),
        table,
      );
      expect(cells.filter((cell) => cell.kind === 'state').length, where).toBeGreaterThan(0);
      if (amounts) expect(cells.filter((cell) => cell.kind === 'amount').length, where).toBeGreaterThan(0);
      for (const cell of cells) {
        expect(cell.display, `${where} ${cell.kind} ${cell.text}`).not.toBe('none');
        expect(cell.width, `${where} ${cell.kind} ${cell.text}`).toBeGreaterThan(0);
        expect(cell.left, `${where} ${cell.kind} ${cell.text}`).toBeGreaterThanOrEqual(0);
        expect(cell.right, `${where} ${cell.kind} ${cell.text}`).toBeLessThanOrEqual(390);
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, where).toBeLessThanOrEqual(0);
    }
    await page.goto(`${base()}/dashboard/transactions`);
    await screenshot(page, 'dashboard-mobile-transactions');
    // The balance chart's axis labels are legible on the phone: not tiny, inside the chart, apart.
    await page.goto(`${base()}/dashboard`);
    for (const kind of ['time-tick', 'value-tick']) {
      const boxes = await page.evaluate((testId) => {
        const svg = document.querySelector('[data-testid="balance-USD"] svg')?.getBoundingClientRect();
        const chart = { left: svg?.left ?? 0, right: svg?.right ?? 0 };
        return [...document.querySelectorAll(`[data-testid="balance-USD"] [data-testid="${testId}"]`)].map(
          (text) => {
            const box = text.getBoundingClientRect();
            return {
              text: text.textContent,
              chart,
              left: box.left,
              right: box.right,
              top: box.top,
              height: box.height,
            };
          },
        );
      }, kind);
      expect(boxes.length, kind).toBeGreaterThanOrEqual(2);
      for (const box of boxes) {
        expect(box.height, `${kind} ${box.text}`).toBeGreaterThanOrEqual(8);
        expect(box.left, `${kind} ${box.text}`).toBeGreaterThanOrEqual(box.chart.left);
        expect(box.right, `${kind} ${box.text}`).toBeLessThanOrEqual(box.chart.right);
      }
      const sorted = [...boxes].sort((a, b) => (kind === 'time-tick' ? a.left - b.left : a.top - b.top));
      for (let i = 1; i < sorted.length; i++) {
        const [a, b] = [sorted[i - 1], sorted[i]];
        if (!a || !b) continue;
        if (kind === 'time-tick') expect(b.left, `${kind} ${b.text}`).toBeGreaterThan(a.right);
        else expect(b.top, `${kind} ${b.text}`).toBeGreaterThanOrEqual(a.top + a.height);
      }
    }
    await screenshot(page, 'dashboard-mobile-home');
  });

  it('at 390×844 a bank payment reads its times in ET beside UTC, on its dashboard page and its checkout, without scrolling sideways', async () => {
    // Wednesday 2031-12-03 10:00 ET: the debit settles Thursday 08:30 ET (13:30 UTC).
    const m = await merchant('2031-12-03T15:00:00.000Z', '0');
    const collection = await api<{ checkout_url: string }>(m.secret_key, 'POST', '/v1/collect', {
      amount: '120.00',
      currency: 'USD',
      reference: 'phone-bank-times',
    });
    expect(collection.status).toBe(200);
    const paid = await api<{ payment: { id: string } }>(
      m.secret_key,
      'POST',
      '/v1/simulate/collections/phone-bank-times/pay',
      {
        method: 'bank_account',
        bank_account: { name: 'Ada Lovelace', routing_number: '110000000', account_number: '000123456789' },
      },
    );
    expect(paid.status).toBe(200);
    const page = await newPage({ width: 390, height: 844 });
    await signIn(page, m);
    const noSidewaysScroll = async (where: string) =>
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
        where,
      ).toBeLessThanOrEqual(0);

    await page.goto(`${base()}/dashboard/transactions/${paid.body.payment.id}`);
    const expected = page.locator('dt:text-is("Expected settlement") + dd time');
    await expect(expected.textContent()).resolves.toBe('2031-12-04 08:30 ET · 13:30 UTC');
    expect(await expected.isVisible()).toBe(true);
    const timeline = await page.locator('[data-testid="timeline-entry"] time').allInnerTexts();
    expect(timeline.length).toBeGreaterThan(0);
    for (const text of timeline) expect(text).toMatch(/ ET · .* UTC$/);
    await noSidewaysScroll('transaction page');
    await screenshot(page, 'dashboard-mobile-bank-times');

    const checkout = new URL(collection.body.checkout_url);
    await page.goto(`${base()}${checkout.pathname}${checkout.search}`);
    const settles = page.getByTestId('expected-settlement');
    await expect(settles.textContent()).resolves.toBe('2031-12-04 08:30 ET · 13:30 UTC');
    const box = await settles.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box)).toBe(true);
    await noSidewaysScroll('checkout page');
  });
});
