import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../../src/modules/cards/magic-cards.ts';
import {
  INSTANT_REJECT_ACCOUNTS,
  MAGIC_ACCOUNTS,
  RETURN_CODE_ACCOUNT,
} from '../../../src/modules/transfers/transfers.rails.ts';
import { dashboardBrowser, signedIn } from '../../support/dashboard.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

/**
 * What a new user meets first: the landing page at `/`, the dashboard's 404 page, and the icon
 * every page names.
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

/** The hrefs of a page's links, by their data-testid. */
function linksOf(page: string): Record<string, string> {
  const links: Record<string, string> = {};
  for (const [, href = '', id = ''] of page.matchAll(/<a href="([^"]+)" data-testid="link-([\w-]+)"/g))
    links[id] = href;
  return links;
}

/** The text of each cell of a table's first column (its rows, by data-testid). */
function firstColumn(page: string, testId: string): string[] {
  const table = new RegExp(`<table data-testid="${testId}">([\\s\\S]*?)</table>`).exec(page)?.[1] ?? '';
  return [...table.matchAll(/<tr><td>([\s\S]*?)<\/td>/g)].map(([, cell = '']) =>
    cell.replace(/<[^>]+>/g, ''),
  );
}

describe('the landing page at /', () => {
  it('is a page (not a redirect) linking the dashboard, the API reference, GraphiQL and the OpenAPI document', async () => {
    const res = await t.app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const page = await res.text();
    expect(page).toContain('TEST MODE');
    expect(linksOf(page)).toEqual({
      dashboard: '/dashboard',
      docs: '/docs',
      graphiql: '/graphql',
      openapi: '/v1/openapi.json',
      schema: '/graphql/schema.graphql',
    });
  });

  it('every link it gives answers: the docs keep their own URL', async () => {
    const page = await (await t.app.request('/')).text();
    const expected: Record<string, [number, string]> = {
      dashboard: [303, ''],
      docs: [200, 'text/html'],
      graphiql: [200, 'text/html'],
      openapi: [200, 'application/json'],
      schema: [200, 'text/plain'],
    };
    for (const [id, href] of Object.entries(linksOf(page))) {
      const res = await t.app.request(href, { headers: { accept: 'text/html' } });
      const [status, type] = expected[id] ?? [0, ''];
      expect(res.status, href).toBe(status);
      if (type) expect(res.headers.get('content-type'), href).toContain(type);
    }
    expect((await t.app.request('/docs')).headers.get('location')).toBeNull();
  });

  it("lists exactly the network's test cards and the rails' magic bank accounts", async () => {
    const page = await (await t.app.request('/')).text();
    expect(firstColumn(page, 'test-cards')).toEqual(TEST_CARDS.map((card) => card.number));
    for (const card of TEST_CARDS) expect(page).toContain(card.label.replace(/'/g, '&#39;'));
    expect(firstColumn(page, 'test-accounts')).toEqual([
      ...MAGIC_ACCOUNTS.map((account) => account.accountNumber),
      `${RETURN_CODE_ACCOUNT.example} (100XX)`,
      'routing 790000051',
      ...Object.keys(INSTANT_REJECT_ACCOUNTS),
    ]);
  });
});

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

  it('every page layout names it: landing, checkout, docs, GraphiQL, the dashboard signed out and in, its 404', async () => {
    const collect = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: 5, currency: 'USD' },
    });
    const checkout = new URL(String(collect.body.checkout_url));
    const plain = async (path: string) =>
      (await t.app.request(path, { headers: { accept: 'text/html' } })).text();
    const browser = await signedIn(() => t, m);
    const pages: [string, string][] = [
      ['landing', await plain('/')],
      ['checkout', await plain(`${checkout.pathname}${checkout.search}`)],
      ['unknown checkout', await plain('/checkout/col_00000000000000000000000000')],
      ['docs', await plain('/docs')],
      ['GraphiQL', await plain('/graphql')],
      ['sign-in', (await dashboardBrowser(() => t).get('/dashboard/login')).html],
      ['dashboard', (await browser.get('/dashboard')).html],
      ['dashboard 404', (await browser.get('/dashboard/no-such-page')).html],
    ];
    for (const [what, page] of pages) {
      expect(page, what).toContain(ICON_LINK);
      expect(page, what).not.toContain('rel="icon" href="data:');
    }
  });
});

describe("the dashboard's 404", () => {
  it('an unknown path, signed in: status 404, a page of the dashboard layout with a link back home', async () => {
    const browser = await signedIn(() => t, m);
    for (const path of ['/dashboard/no-such-page', '/dashboard/transactions/extra/deep']) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(404);
      expect(page.headers.get('content-type'), path).toContain('text/html');
      expect(page.headers.get('content-security-policy'), path).toContain("script-src 'self'");
      // The layout: stylesheet, menu, merchant, clock panel.
      expect(page.html).toContain('<link rel="stylesheet" href="/dashboard/assets/dashboard.css">');
      expect(page.html).toContain('data-testid="merchant-name">First Day Shop<');
      expect(page.html).toContain('data-testid="clock-panel"');
      expect(page.html).toContain('<h1>Page not found</h1>');
      expect(page.html).toContain(`There is no dashboard page at <code>${path}</code>.`);
      expect(page.html).toContain('<a href="/dashboard" data-testid="back-home">Back to the dashboard</a>');
    }
  });

  it('a POST to an unknown path is a 404 page too (after the CSRF check); signed out, it asks to sign in', async () => {
    const browser = await signedIn(() => t, m);
    const posted = await browser.post('/dashboard/no-such-form', { x: '1' });
    expect(posted.status).toBe(404);
    expect(posted.html).toContain('data-testid="not-found"');
    const out = await dashboardBrowser(() => t).get('/dashboard/no-such-page');
    expect(out.status).toBe(303);
    expect(out.location).toBe('/dashboard/login?next=%2Fdashboard%2Fno-such-page');
  });

  it('the pages that exist still answer (the catch-all comes last)', async () => {
    const browser = await signedIn(() => t, m);
    for (const path of ['/dashboard', '/dashboard/transactions', '/dashboard/keys', '/dashboard/webhooks']) {
      expect((await browser.get(path)).status, path).toBe(200);
    }
    const asset = await t.app.request('/dashboard/assets/dashboard.css');
    expect(asset.status).toBe(200);
  });
});
