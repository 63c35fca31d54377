import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServerProcess, startServerProcess } from '../processes/server-process.ts';
import { launchChromium, PUBLIC_KEY, SECRET_KEY, watchProblems } from './chromium.ts';

/**
 * A Stripe Checkout Session paid in Chromium: the real server as a child process (its Stripe port
 * on a free loopback port; Postgres when TEST_DATABASE_URL is set, else PGlite in memory), the
 * session made with the official stripe SDK, its `url` opened, the test card 4242… typed and paid;
 * the browser lands on the success_url — a page of the merchant's shop served here on loopback —
 * with the session's id in place of {CHECKOUT_SESSION_ID}. The page's cancel link leads to the
 * cancel_url.
 */

let server: ServerProcess | undefined;
let browser: Browser | undefined;
let shop: Server | undefined;
let shopUrl = '';
let stripe: Stripe;
const contexts: BrowserContext[] = [];
const problems: string[][] = [];

beforeAll(async () => {
  const stripePort = await freePort();
  server = await startServerProcess({
    env: {
      SANDBANK_SECRET_KEY: SECRET_KEY,
      SANDBANK_PUBLIC_KEY: PUBLIC_KEY,
      STRIPE_PORT: String(stripePort),
    },
    args: ['--memory'],
    postgres: true,
  });
  stripe = new Stripe(SECRET_KEY, {
    host: '127.0.0.1',
    port: stripePort,
    protocol: 'http',
    telemetry: false,
  });
  // The merchant's shop: every page answers a small HTML page naming its path.
  shop = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://shop').pathname;
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Shop</title><h1 data-testid="shop-page">${path.replace(/[^\w/]/g, '')}</h1>`,
    );
  });
  const listening = shop;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
  expect(problems.splice(0).flat()).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (shop ? shop.close(resolve) : resolve(undefined)));
  if (server) await server.stop();
}, 60_000);

async function open(url: string): Promise<Page> {
  if (!browser) throw new Error('the browser did not launch');
  const context = await browser.newContext({ viewport: { width: 900, height: 1100 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  problems.push(await watchProblems(page));
  const response = await page.goto(url);
  expect(response?.status()).toBe(200);
  return page;
}

function newSession() {
  return stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [
      { price_data: { currency: 'usd', unit_amount: 1250, product_data: { name: 'Notebook' } }, quantity: 2 },
    ],
    success_url: `${shopUrl}/success?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${shopUrl}/cart`,
    customer_email: 'browser@example.com',
  });
}

describe('a Stripe Checkout Session in Chromium', () => {
  it("pays on the session's url with 4242… and lands on success_url with the session id", async () => {
    const session = await newSession();
    expect(session).toMatchObject({ status: 'open', payment_status: 'unpaid', amount_total: 2500 });
    const page = await open(session.url ?? '');
    await expect(page.getByTestId('amount').textContent()).resolves.toBe('$25.00 USD');

    await page.fill('#number', '4242424242424242');
    await page.fill('#exp_month', '12');
    await page.fill('#exp_year', '2099');
    await page.fill('#cvc', '123');
    await page.click('[data-testid="pay-card"]');
    await page.waitForURL((url) => url.pathname === '/success');

    const landed = new URL(page.url());
    expect(landed.origin).toBe(shopUrl);
    expect(landed.searchParams.get('session_id')).toBe(session.id);
    await expect(page.getByTestId('shop-page').textContent()).resolves.toBe('/success');

    const paid = await stripe.checkout.sessions.retrieve(session.id);
    expect(paid).toMatchObject({ status: 'complete', payment_status: 'paid', url: null });
    expect(paid.payment_intent).toMatch(/^pi_/);
    const intent = await stripe.paymentIntents.retrieve(paid.payment_intent as string);
    expect(intent).toMatchObject({ status: 'succeeded', amount: 2500, amount_received: 2500 });
    const charge = await stripe.charges.retrieve(intent.latest_charge as string);
    expect(charge).toMatchObject({ paid: true, payment_intent: intent.id });
    expect(charge.payment_method_details?.card?.last4).toBe('4242');
  });

  it('leads back to cancel_url from the checkout, leaving the session open', async () => {
    const session = await newSession();
    const page = await open(session.url ?? '');
    await page.click('[data-testid="cancel-link"]');
    await page.waitForURL((url) => url.pathname === '/cart');
    expect(new URL(page.url()).origin).toBe(shopUrl);
    expect((await stripe.checkout.sessions.retrieve(session.id)).status).toBe('open');
  });
});
