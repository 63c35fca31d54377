import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBrowser, signedIn } from './fixtures/dashboard.ts';
import { createTestApp, type TestApp, type TestMerchant } from './harness.ts';

/**
 * What a new user meets first: the icon every page names.
 */

let t: TestApp;
let m: TestMerchant;
beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant('First Day Shop');
});
afterAll(async () => {
  await t.close();
});

const ICON_LINK = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">';

describe('the icon', () => {
  it('/favicon.svg is an SVG of this server, cacheable; /favicon.ico answers the same', async () => {
    const svg = await t.app.request('/favicon.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('x-content-type-options')).toBe('nosniff');
    expect(svg.headers.get('cache-control')).toContain('max-age');
    const body = await svg.text();
    expect(body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    // Nothing from elsewhere: no external reference, no script.
    expect(body).not.toMatch(/href=|<script|url\(/);
    expect(body.length).toBeLessThan(1024);
    const ico = await t.app.request('/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/svg+xml');
    expect(await ico.text()).toBe(body);
  });

  it('every page layout names it: checkout, docs, GraphiQL, the dashboard signed out and in', async () => {
    const collect = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: 5, currency: 'USD' },
    });
    const checkout = new URL(String(collect.body.checkout_url));
    const plain = async (path: string) =>
      (await t.app.request(path, { headers: { accept: 'text/html' } })).text();
    const browser = await signedIn(() => t, m);
    const pages: [string, string][] = [
      ['checkout', await plain(`${checkout.pathname}${checkout.search}`)],
      ['unknown checkout', await plain('/checkout/col_00000000000000000000000000')],
      ['docs', await plain('/docs')],
      ['GraphiQL', await plain('/graphql')],
      ['sign-in', (await dashboardBrowser(() => t).get('/dashboard/login')).html],
      ['dashboard', (await browser.get('/dashboard')).html],
    ];
    for (const [what, page] of pages) {
      expect(page, what).toContain(ICON_LINK);
      expect(page, what).not.toContain('rel="icon" href="data:');
    }
  });
});
