/**
 * The dashboard in-process (app.request): a browser's cookie jar, signing in with the secret key,
 * and form posts that carry the page's CSRF token, as a browser would send them.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from './harness.ts';

export interface DashboardPage {
  status: number;
  headers: Headers;
  html: string;
  /** Where a redirect points (Location), else null. */
  location: string | null;
}

export interface DashboardBrowser {
  /** A GET with the browser's cookies (redirects are not followed). */
  get(path: string): Promise<DashboardPage>;
  /** A form POST with the browser's cookies and its CSRF token (unless `_csrf` is given). */
  post(path: string, fields?: Record<string, string>): Promise<DashboardPage>;
  /** The CSRF token the last page carried. */
  csrf(): string;
  cookies: Map<string, string>;
}

/**
 * The test app of a file's dashboard tests: created before them and closed after them. The
 * function answers it once they run.
 */
export function dashboardTestApp(): () => TestApp {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  return () => {
    if (!t) throw new Error('the test app is created before the tests run');
    return t;
  };
}

function csrfOf(html: string): string | null {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? null;
}

/** A browser with no session (its cookies start empty). */
export function dashboardBrowser(t: () => TestApp): DashboardBrowser {
  const cookies = new Map<string, string>();
  let token = '';
  async function send(path: string, init: RequestInit): Promise<DashboardPage> {
    const headers = new Headers(init.headers);
    if (cookies.size > 0)
      headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await t().app.request(path, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', ...value] = pair.split('=');
      if (/Max-Age=0|expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name.trim());
      else cookies.set(name.trim(), value.join('='));
    }
    const html = await response.text();
    token = csrfOf(html) ?? token;
    return {
      status: response.status,
      headers: response.headers,
      html,
      location: response.headers.get('location'),
    };
  }
  return {
    cookies,
    csrf: () => token,
    get: (path) => send(path, { method: 'GET' }),
    async post(path, fields = {}) {
      if (!token && !('_csrf' in fields)) await send('/dashboard/login', { method: 'GET' });
      const body = new URLSearchParams({ _csrf: token, ...fields });
      return send(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      });
    },
  };
}

/** A browser signed in as the merchant (with its secret key, through the sign-in form). */
export async function signedIn(t: () => TestApp, merchant: TestMerchant): Promise<DashboardBrowser> {
  const browser = dashboardBrowser(t);
  await browser.get('/dashboard/login');
  const res = await browser.post('/dashboard/login', { key: merchant.secretKey, next: '/dashboard' });
  expect(res.status).toBe(303);
  expect(browser.cookies.has('sandbank_session')).toBe(true);
  const home = await browser.get('/dashboard');
  expect(home.status).toBe(200);
  return browser;
}
