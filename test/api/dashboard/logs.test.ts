/**
 * The request log in the dashboard, in-process: the Logs page lists the merchant's API requests
 * (time, method, path, status, operation, source, latency), filters them by status class, path and
 * operation, says why a filter is refused, and one request's page shows its masked bodies. The
 * dashboard's own pages are not in it.
 */
import { describe, expect, it } from 'vitest';
import { dashboardTestApp, signedIn } from '../../support/dashboard.ts';
import { PUBLIC_URL } from '../../support/harness.ts';

const app = dashboardTestApp();

const rows = (html: string) =>
  [...html.matchAll(/data-testid="request-row" data-id="(req_\w+)"/g)].map((m) => m[1]);

describe('the Logs page', () => {
  it('lists, filters and shows one request with its masked bodies', async () => {
    const m = await app().merchant('Dashboard logs');
    const paid = await app().post(m, '/v1/card_payments', {
      amount: '5.00',
      currency: 'USD',
      card: { number: '4000000000000002', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    expect(paid.status).toBe(402);
    const collected = await app().post(m, '/v1/collect', {
      amount: '2.00',
      currency: 'USD',
      reference: 'dash-log',
    });
    const browser = await signedIn(app, m);

    const page = await browser.get('/dashboard/logs');
    expect(page.status).toBe(200);
    expect(page.html).toContain('data-testid="log-filters"');
    expect(rows(page.html)).toEqual([collected.headers.get('request-id'), paid.headers.get('request-id')]);
    expect(page.html).toContain('createCardPayment');
    expect(page.html).toContain('card_declined');
    expect(page.html).toMatch(/class="badge state-pending" data-testid="log-status">402</);

    const declined = await browser.get('/dashboard/logs?status=4xx&path=%2Fv1%2Fcard_payments*');
    expect(rows(declined.html)).toEqual([paid.headers.get('request-id')]);
    const byOperation = await browser.get('/dashboard/logs?operation=createCollection');
    expect(rows(byOperation.html)).toEqual([collected.headers.get('request-id')]);
    const refused = await browser.get('/dashboard/logs?path=nope');
    expect(refused.status).toBe(200);
    expect(refused.html).toContain('data-testid="filter-error"');

    const one = await browser.get(`/dashboard/logs/${paid.headers.get('request-id')}`);
    expect(one.status).toBe(200);
    expect(one.html).toContain('data-testid="request-body"');
    expect(one.html).toContain('****0002');
    expect(one.html).not.toContain('4000000000000002');
    expect(one.html).toContain('data-testid="log-error-code">card_declined');
    const missing = await browser.get('/dashboard/logs/req_01J00000000000000000000000');
    expect(missing.status).toBe(404);
  });

  it('GraphiQL’s requests with the dashboard session are the dashboard’s', async () => {
    const m = await app().merchant('Dashboard GraphiQL log');
    const browser = await signedIn(app, m);
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await app().app.request('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie,
        'X-CSRF-Token': browser.csrf(),
        origin: PUBLIC_URL,
      },
      body: JSON.stringify({ query: 'query FromGraphiQL { clock { now } }' }),
    });
    expect(res.status).toBe(200);
    const [row] = (await app().get(m, '/v1/requests?path=/graphql')).body.data as Record<string, unknown>[];
    expect(row).toMatchObject({ operation: 'FromGraphiQL', source: 'dashboard', status_code: 200 });
    const page = await browser.get('/dashboard/logs');
    expect(page.html).toContain('FromGraphiQL');
  });
});
