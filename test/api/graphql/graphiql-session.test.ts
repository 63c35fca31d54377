import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardBrowser, dashboardBrowser, signedIn } from '../../support/dashboard.ts';
import { createTestApp, PUBLIC_URL, type TestApp, type TestMerchant } from '../../support/harness.ts';

/**
 * GraphiQL opened from a signed-in dashboard runs as its merchant without a key: the page holds the
 * session's CSRF token (never a key), and /graphql takes the session cookie only with that token,
 * from PUBLIC_URL's origin.
 */

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant('GraphiQL Shop');
  other = await t.merchant('Other Shop');
  for (const [merchant, reference] of [
    [m, 'gql-session-1'],
    [other, 'gql-other-1'],
  ] as const) {
    const res = await t.rest('POST', '/v1/collect', {
      key: merchant.secretKey,
      body: { amount: 7, currency: 'USD', reference },
    });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await t.close();
});

const QUERY = '{ collections(first: 5) { edges { node { reference } } } }';

type GqlAnswer = {
  status: number;
  data?: { collections?: { edges: { node: { reference: string } }[] } } | null;
  errors?: { message: string; extensions?: { code?: string; status?: number } }[];
};

/** A POST of QUERY as a browser page would send it: the cookies of `browser`, and these headers. */
async function post(browser: DashboardBrowser | null, headers: Record<string, string>): Promise<GqlAnswer> {
  const all: Record<string, string> = { 'content-type': 'application/json', ...headers };
  if (browser) all.cookie = cookieOf(browser);
  const res = await t.app.request('/graphql', {
    method: 'POST',
    headers: all,
    body: JSON.stringify({ query: QUERY }),
  });
  return { status: res.status, ...((await res.json()) as Omit<GqlAnswer, 'status'>) };
}

/** GraphiQL's page for a browser with these cookies, and the options it hands to its script. */
async function graphiqlOptions(browser: DashboardBrowser | null) {
  const headers: Record<string, string> = { accept: 'text/html' };
  if (browser) headers.cookie = cookieOf(browser);
  const res = await t.app.request('/graphql', { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const html = await res.text();
  const attribute = /data-options="([^"]*)"/.exec(html)?.[1] ?? '';
  const json = attribute
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
  return {
    html,
    options: JSON.parse(json) as { title: string; headers: string; shouldPersistHeaders: boolean },
  };
}

const references = (answer: GqlAnswer) => answer.data?.collections?.edges.map((edge) => edge.node.reference);

describe('GraphiQL with the dashboard session', () => {
  it('signed out, GraphiQL offers the key placeholder', async () => {
    const { options } = await graphiqlOptions(null);
    expect(JSON.parse(options.headers)).toEqual({ Authorization: 'Bearer sk_test_...' });
  });

  it("signed in, its headers hold the session's CSRF token and no key; its queries run as the merchant", async () => {
    const browser = await signedIn(() => t, m);
    const { html, options } = await graphiqlOptions(browser);
    expect(options.title).toBe('Sandbank GraphQL · GraphiQL Shop');
    expect(options.shouldPersistHeaders).toBe(false);
    const headers = JSON.parse(options.headers) as Record<string, string>;
    expect(headers).toEqual({ 'X-CSRF-Token': browser.csrf() });
    expect(html).not.toMatch(/sk_test_[A-Za-z0-9]/);
    expect(html).not.toContain(m.secretKey);

    const answer = await post(browser, { ...headers, origin: PUBLIC_URL });
    expect(answer.errors).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(references(answer)).toEqual(['gql-session-1']);
  });

  it('the cookie alone is not enough: no token, a wrong token, another origin or no origin are refused', async () => {
    const browser = await signedIn(() => t, m);
    const token = browser.csrf();
    const noToken = await post(browser, { origin: PUBLIC_URL });
    expect(noToken.errors?.[0]?.extensions?.code).toBe('api_key_missing');
    expect(noToken.data?.collections ?? null).toBeNull();
    const attempts: Record<string, string>[] = [
      { 'X-CSRF-Token': `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, origin: PUBLIC_URL },
      { 'X-CSRF-Token': token, origin: 'https://evil.example' },
      { 'X-CSRF-Token': token },
    ];
    for (const headers of attempts) {
      const refused = await post(browser, headers);
      expect(refused.errors?.[0]?.extensions, JSON.stringify(headers)).toMatchObject({
        code: 'api_key_invalid',
        status: 401,
      });
      expect(refused.errors?.[0]?.message).toContain('dashboard session');
      expect(refused.data?.collections ?? null).toBeNull();
    }
    // A token without the cookie is nothing either.
    const noCookie = await post(null, { 'X-CSRF-Token': token, origin: PUBLIC_URL });
    expect(noCookie.errors?.[0]?.extensions?.code).toBe('api_key_invalid');
  });

  it('once signed out, the old cookie and token no longer work', async () => {
    const browser = await signedIn(() => t, m);
    const token = browser.csrf();
    const cookies = new Map(browser.cookies);
    expect((await browser.post('/dashboard/logout')).location).toBe('/dashboard/login');
    const replay = dashboardBrowser(() => t);
    for (const [name, value] of cookies) replay.cookies.set(name, value);
    const refused = await post(replay, { 'X-CSRF-Token': token, origin: PUBLIC_URL });
    expect(refused.errors?.[0]?.extensions?.code).toBe('api_key_invalid');
  });

  it('an Authorization header still decides: a key of another merchant reads that merchant', async () => {
    const browser = await signedIn(() => t, m);
    const answer = await post(browser, {
      'X-CSRF-Token': browser.csrf(),
      origin: PUBLIC_URL,
      authorization: `Bearer ${other.secretKey}`,
    });
    expect(answer.errors).toBeUndefined();
    expect(references(answer)).toEqual(['gql-other-1']);
  });
});

function cookieOf(browser: DashboardBrowser): string {
  return [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
}
