import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../processes/server-process.ts';
import { launchChromium, SECRET_KEY, screenshot, startBrowserTestServer, watchProblems } from './chromium.ts';

/**
 * The rendered pages under their Content-Security-Policy in Chromium: the checkout (ending at a
 * redirect_url on another origin), the 3-D Secure page, /docs (Swagger UI) and GraphiQL each
 * render and work with no script or style refused, no error, and nothing fetched from elsewhere.
 */

let server: ServerProcess | undefined;
let browser: Browser | undefined;
/** A merchant's shop on another loopback port (another origin): the redirect_url of a checkout. */
let shop: Server | undefined;
let shopUrl = '';
const shopVisits: { url: string; headers: IncomingHttpHeaders }[] = [];
const contexts: BrowserContext[] = [];
let problems: string[] = [];
/** Requests a page made anywhere but this server (data: and blob: URLs aside): none, it works offline. */
let elsewhere: string[] = [];

function base(): string {
  if (!server) throw new Error('the server did not start');
  return server.url;
}

beforeAll(async () => {
  server = await startBrowserTestServer();
  browser = await launchChromium();
  shop = createServer((req, res) => {
    shopVisits.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>Shop</title><link rel="icon" href="data:,"><h1 id="thanks">Thanks</h1>');
  });
  const listening = shop;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
}, 120_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
  expect(problems).toEqual([]);
  expect(elsewhere).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (shop ? shop.close(resolve) : resolve(undefined)));
  if (server) await server.stop();
}, 60_000);

async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base()}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

async function newPage(): Promise<Page> {
  if (!browser) throw new Error('the browser did not launch');
  const context = await browser.newContext({ viewport: { width: 1200, height: 1000 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  problems = await watchProblems(page);
  elsewhere = [];
  page.on('request', (request) => {
    const url = request.url();
    const ours = url.startsWith(`${base()}/`) || url.startsWith(`${shopUrl}/`);
    if (!ours && !url.startsWith('data:') && !url.startsWith('blob:')) elsewhere.push(url);
  });
  return page;
}

/** Opens a link the API handed out (its path and query, on the test server). */
async function open(page: Page, link: string): Promise<Response> {
  const url = new URL(link, base());
  const response = await page.goto(`${base()}${url.pathname}${url.search}`);
  if (!response) throw new Error(`no response for ${link}`);
  return response;
}

/** The page was served under the pages' CSP (so a clean console above means it runs within it). */
function expectPolicy(response: Response): void {
  const headers = response.headers();
  expect(headers['content-security-policy']).toContain("script-src 'self';");
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe('no-referrer');
}

describe('payer pages under their Content-Security-Policy', () => {
  it('a checkout fills a test card by its served script, pays, and ends at a redirect_url on another origin without a Referer', async () => {
    const reference = `csp-${randomUUID()}`;
    const created = await api<{ checkout_url: string }>('POST', '/v1/collect', {
      amount: 9,
      currency: 'USD',
      reference,
      redirect_url: `${shopUrl}/thanks`,
    });
    const page = await newPage();
    expectPolicy(await open(page, created.checkout_url));

    await page.click('a[data-card="4242424242424242"]');
    await expect(page.inputValue('#number')).resolves.toBe('4242 4242 4242 4242');
    await page.click('[data-testid="pay-card"]');
    await page.waitForURL((url) => url.origin === shopUrl);
    await page.locator('#thanks').waitFor();

    const visit = shopVisits.find((v) => v.url.includes(reference));
    expect(visit?.url).toBe(`/thanks?reference=${reference}&state=succeeded`);
    // The checkout's link (and its secret) did not travel to the shop.
    expect(visit?.headers.referer).toBeUndefined();
  });

  it('the 3-D Secure page of a direct card payment takes the answer and shows the outcome', async () => {
    const payment = await api<{ next_action: { url: string } }>('POST', '/v1/card_payments', {
      amount: 15,
      currency: 'USD',
      card: { number: '4000002500003155', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    const page = await newPage();
    expectPolicy(await open(page, payment.next_action.url));
    await page.getByTestId('challenge').waitFor();
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    await expect(page.getByTestId('payment-state').textContent()).resolves.toBe('captured');
  });

  it('/docs renders the API reference with Swagger UI and opens an operation', async () => {
    const page = await newPage();
    expectPolicy(await open(page, '/docs'));
    const operations = page.locator('.opblock');
    await operations.first().waitFor();
    expect(await operations.count()).toBeGreaterThan(20);
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor();
    await screenshot(page, 'docs-under-csp');
  });

  it('GraphiQL renders, runs a query with its editor workers, and shows the answer', async () => {
    const page = await newPage();
    expectPolicy(await open(page, '/graphql'));
    await page.locator('.graphiql-container').first().waitFor();
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.waitFor();
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ __typename'); // the editor closes the brace
    // Its suggestion list may lie over the run button: close it, and press the button itself.
    await page.keyboard.press('Escape');
    await page.locator('.graphiql-execute-button').dispatchEvent('click');
    await expect
      .poll(() => page.locator('.graphiql-response').textContent(), { timeout: 20_000 })
      .toMatch(/"__typename":\s*"Query"/); // Monaco lays spaces out as no-break spaces
    await screenshot(page, 'graphiql-under-csp');
  });

  it('an inline script injected into a page is refused and reported (the watch above can fail)', async () => {
    const page = await newPage();
    await open(page, '/docs');
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'document.title = "injected"';
      document.head.append(script);
    });
    await expect.poll(() => problems.length).toBeGreaterThan(0);
    expect(await page.title()).not.toBe('injected');
    expect(problems.join('\n')).toMatch(/script-src/);
    problems = [];
  });
});
