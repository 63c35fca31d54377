/**
 * The dashboard's foundation in-process: sign-in by key and by one-time link, sessions,
 * CSRF on every form, the security headers, the clock panel, escaping on the home page.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/kernel/clock.ts';
import { createSignInLink } from '../../../src/modules/dashboard/dashboard.service.ts';
import { bankTime } from '../../../src/web/bank-time.ts';
import { dashboardBrowser, dashboardTestApp, signedIn } from '../../support/dashboard.ts';

type Json = Record<string, unknown>;

const app = dashboardTestApp();

describe('signing in', () => {
  it('a page without a session redirects to sign-in, a GET remembering where it was going', async () => {
    const browser = dashboardBrowser(app);
    const page = await browser.get('/dashboard/transactions');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/dashboard/login?next=%2Fdashboard%2Ftransactions');
    const post = await browser.post('/dashboard/clock', { seconds: '3600' });
    expect(post.status).toBe(303);
    expect(post.location).toBe('/dashboard/login');
  });

  it('with the secret key: a session cookie that is HttpOnly, SameSite=Lax and expiring', async () => {
    const m = await app().merchant('Key Shop');
    const browser = dashboardBrowser(app);
    await browser.get('/dashboard/login');
    const res = await browser.post('/dashboard/login', { key: m.secretKey, next: '/dashboard/keys' });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/keys');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sandbank_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Max-Age=43200/);
    const home = await browser.get('/dashboard');
    expect(home.status).toBe(200);
    expect(home.html).toContain('Key Shop');
  });

  it('a public key, a wrong key or a foreign next= are refused', async () => {
    const m = await app().merchant();
    const browser = dashboardBrowser(app);
    await browser.get('/dashboard/login');
    const pub = await browser.post('/dashboard/login', { key: m.publicKey });
    expect(pub.status).toBe(401);
    expect(pub.html).toContain('public key');
    const wrong = await browser.post('/dashboard/login', { key: 'sk_test_nothingnothing' });
    expect(wrong.status).toBe(401);
    expect(browser.cookies.has('sandbank_session')).toBe(false);
    const away = await browser.post('/dashboard/login', { key: m.secretKey, next: '//evil.example/x' });
    expect(away.location).toBe('/dashboard');
  });

  it('a one-time link signs in once', async () => {
    const m = await app().merchant('Linked');
    const token = await createSignInLink(app().database.db, systemClock, m.id);
    const first = dashboardBrowser(app);
    const res = await first.get(`/dashboard/login/${token}`);
    expect(res.status).toBe(303);
    expect((await first.get('/dashboard')).html).toContain('Linked');
    const second = dashboardBrowser(app);
    const again = await second.get(`/dashboard/login/${token}`);
    expect(again.status).toBe(401);
    expect(second.cookies.has('sandbank_session')).toBe(false);
  });

  it('signing out ends the session: the old cookie no longer opens a page', async () => {
    const m = await app().merchant();
    const browser = await signedIn(app, m);
    const session = browser.cookies.get('sandbank_session');
    expect((await browser.post('/dashboard/logout')).location).toBe('/dashboard/login');
    const replay = dashboardBrowser(app);
    replay.cookies.set('sandbank_session', session ?? '');
    expect((await replay.get('/dashboard')).status).toBe(303);
  });

  it('signing in again in the same browser ends its previous session', async () => {
    const m = await app().merchant();
    const browser = await signedIn(app, m);
    const first = browser.cookies.get('sandbank_session') ?? '';
    await browser.post('/dashboard/login', { key: m.secretKey });
    expect(browser.cookies.get('sandbank_session')).not.toBe(first);
    const old = dashboardBrowser(app);
    old.cookies.set('sandbank_session', first);
    expect((await old.get('/dashboard')).status).toBe(303);
    expect((await browser.get('/dashboard')).status).toBe(200);
  });

  it('a form over 64 KiB is a page of its own, with the dashboard headers', async () => {
    const m = await app().merchant();
    const browser = await signedIn(app, m);
    const res = await browser.post('/dashboard/clock', { seconds: '3600', padding: 'x'.repeat(70_000) });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.html).toContain('64 KiB');
  });

  it('sign-up creates a merchant, signs in and shows its keys once', async () => {
    const browser = dashboardBrowser(app);
    await browser.get('/dashboard/signup');
    const res = await browser.post('/dashboard/signup', { name: 'Fresh <b>Shop</b>' });
    expect(res.location).toBe('/dashboard/keys');
    const keys = await browser.get('/dashboard/keys');
    const secret = /data-testid="secret-key">(sk_test_\w+)</.exec(keys.html)?.[1];
    expect(secret).toBeDefined();
    expect(keys.html).toContain('Fresh &lt;b&gt;Shop&lt;/b&gt;');
    const api = await app().rest('GET', '/v1/balances', { key: secret ?? '' });
    expect(api.status).toBe(200);
    const later = await browser.get('/dashboard/keys');
    expect(later.html).not.toContain(secret);
    const revealed = await browser.post('/dashboard/keys/reveal');
    expect(revealed.html).toContain(secret);
  });
});

describe('forms and headers', () => {
  it('every POST needs the CSRF token of its session', async () => {
    const m = await app().merchant();
    const browser = await signedIn(app, m);
    const missing = await browser.post('/dashboard/clock', { seconds: '3600', _csrf: '' });
    expect(missing.status).toBe(403);
    const wrong = await browser.post('/dashboard/clock', { seconds: '3600', _csrf: 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    const before = await app().rest('GET', '/v1/clock', { key: m.secretKey });
    const ok = await browser.post('/dashboard/clock', { seconds: '3600', back: '/dashboard' });
    expect(ok.status).toBe(303);
    const after = await app().rest('GET', '/v1/clock', { key: m.secretKey });
    const moved = Date.parse(String(after.body.now)) - Date.parse(String(before.body.now));
    expect(moved).toBeGreaterThanOrEqual(3_600_000);
  });

  it('pages forbid inline script and framing', async () => {
    const m = await app().merchant();
    const browser = await signedIn(app, m);
    const page = await browser.get('/dashboard');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    expect(page.html).not.toMatch(/ style="/);
  });

  it('the clock panel moves the clock and the next page lists what ran', async () => {
    const m = await app().merchant();
    const browser = await signedIn(app, m);
    await app().rest('POST', '/v1/clock/freeze', { key: m.secretKey });
    await app().rest('POST', '/v1/clock/advance', { key: m.secretKey, body: { to: '2031-12-02T14:00:00Z' } });
    const col = await app().rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: 5, currency: 'USD', expires_in: 1800 },
    });
    await browser.post('/dashboard/clock', { to: '2031-12-02T15:00', back: '/dashboard' });
    const page = await browser.get('/dashboard');
    expect(page.html).toContain('data-testid="clock-moved"');
    expect(page.html).toContain('collection.expire');
    expect(page.html).toContain(String(col.body.id));
    expect(page.html).toContain('2031-12-02 15:00:00Z');
    await browser.post('/dashboard/clock', { next: 'settlement', back: '/dashboard' });
    // Nothing in flight, Tuesday 10:00 ET → the next Same-Day settlement, 13:00 ET (18:00Z).
    expect((await app().rest('GET', '/v1/clock', { key: m.secretKey })).body.now).toBe(
      '2031-12-02T18:00:00.000Z',
    );
  });

  it('"Next settlement" settles every ACH entry in flight in one click: standard and Same-Day, credits and debits', async () => {
    // Wednesday 2031-12-03 10:00 ET: every entry goes in the 10:30 ET window; Same-Day settles at
    // 13:00 ET (18:00Z), standard ACH (the checkout's bank payment, the payout) Thursday 08:30 ET.
    const m = await app().merchant();
    const post = (path: string, body: unknown) => app().rest<Json>('POST', path, { key: m.secretKey, body });
    await app().rest('POST', '/v1/clock/freeze', { key: m.secretKey });
    await post('/v1/clock/advance', { to: '2031-12-03T15:00:00Z' });
    await post('/v1/simulate/balance/top_up', { amount: '1000.00', currency: 'USD' });
    const account = (number: string) => ({
      name: 'Acme Supplies',
      routing_number: '021000021',
      account_number: number,
      account_type: 'checking',
    });
    await post('/v1/collect', { amount: 120, currency: 'USD', reference: 'bank-checkout' });
    const paid = await post('/v1/simulate/collections/bank-checkout/pay', {
      method: 'bank_account',
      bank_account: { name: 'Ada Lovelace', routing_number: '110000000', account_number: '000123456789' },
    });
    expect(paid.status).toBe(200);
    const entries = [
      (paid.body.payment as Json).id,
      ...(await Promise.all([
        post('/v1/transfers', {
          amount: '10.00',
          currency: 'USD',
          rail: 'same_day_ach',
          direction: 'credit',
          counterparty: account('000123456789'),
        }),
        post('/v1/transfers', {
          amount: '11.00',
          currency: 'USD',
          rail: 'same_day_ach',
          direction: 'debit',
          counterparty: account('000123456789'),
        }),
        post('/v1/transfers', {
          amount: '12.00',
          currency: 'USD',
          rail: 'ach',
          direction: 'debit',
          counterparty: account('000123456789'),
        }),
        post('/v1/payouts', {
          amount: '13.00',
          currency: 'USD',
          method: 'ach',
          destination: account('000123456789'),
        }),
      ]).then((created) => created.map((res) => res.body.id))),
    ];
    // An entry that stays submitted until a simulate step moves it has no settlement to wait for.
    const stuck = await post('/v1/transfers', {
      amount: '14.00',
      currency: 'USD',
      rail: 'ach',
      direction: 'credit',
      counterparty: account('000000000009'),
    });
    const browser = await signedIn(app, m);
    const before = await browser.get('/dashboard');
    expect(before.html).toContain('data-testid="clock-next_settlement"');
    expect(before.html).toContain(
      'Advance to 2031-12-04 08:30 ET · 13:30 UTC, when the 5 ACH entries in flight',
    );
    // Times the banking rules set in Eastern Time are shown in ET, UTC beside them.
    expect(before.html).toContain(
      '<span class="muted" data-testid="clock-now-et">2031-12-03 10:00 ET</span>',
    );
    const achDebit = await browser.get(`/dashboard/transactions/${entries[3]}`);
    expect(achDebit.html).toMatch(/Expected submission<\/dt><dd><time[^>]*>2031-12-03 10:30 ET · 15:30 UTC</);
    expect(achDebit.html).toMatch(/Expected settlement<\/dt><dd><time[^>]*>2031-12-04 08:30 ET · 13:30 UTC</);
    const sameDay = await browser.get(`/dashboard/transactions/${entries[1]}`);
    expect(sameDay.html).toMatch(/Expected settlement<\/dt><dd><time[^>]*>2031-12-03 13:00 ET · 18:00 UTC</);
    const payout = await browser.get(`/dashboard/transactions/${entries[4]}`);
    expect(payout.html).toMatch(/Arrival<\/dt><dd><time[^>]*>2031-12-04 08:30 ET · 13:30 UTC</);
    const collectionId = (
      await app().rest<Json>('GET', '/v1/collections/bank-checkout', { key: m.secretKey })
    ).body.id;
    const checkout = await browser.get(`/dashboard/transactions/${collectionId}`);
    expect(checkout.html).toContain(
      'settles <time datetime="2031-12-04T13:30:00.000Z" title="2031-12-04T13:30:00.000Z">2031-12-04 08:30 ET · 13:30 UTC</time>',
    );
    await browser.post('/dashboard/clock', { next: 'settlement', back: '/dashboard' });
    expect((await app().rest<Json>('GET', '/v1/clock', { key: m.secretKey })).body.now).toBe(
      '2031-12-04T13:30:00.000Z',
    );
    const states = await Promise.all(
      entries.map(async (id) => {
        const path = String(id).startsWith('po_') ? '/v1/payouts' : '/v1/transfers';
        return (await app().rest<Json>('GET', `${path}/${id}`, { key: m.secretKey })).body.state;
      }),
    );
    expect(states).toEqual(['settled', 'settled', 'settled', 'settled', 'paid']);
    const collection = await app().rest<Json>('GET', '/v1/collections/bank-checkout', { key: m.secretKey });
    expect(collection.body.state).toBe('succeeded');
    expect(
      (await app().rest<Json>('GET', `/v1/transfers/${stuck.body.id}`, { key: m.secretKey })).body.state,
    ).toBe('submitted');
    // Now nothing is in flight: the button says so and goes to the next Same-Day settlement.
    const after = await browser.get('/dashboard');
    expect(after.html).toContain(
      'No ACH entry is in flight: advance to the next Same-Day ACH settlement, 2031-12-04 13:00 ET · 18:00 UTC',
    );
    const settledCheckout = await browser.get(`/dashboard/transactions/${collectionId}`);
    expect(settledCheckout.html).toContain('settled <time datetime="2031-12-04T13:30:00.000Z"');
  });

  it('bank times read Eastern Time first, UTC beside it with its own date when the day differs, across DST', () => {
    expect(bankTime(new Date('2031-12-04T13:30:00Z'))).toBe('2031-12-04 08:30 ET · 13:30 UTC');
    expect(bankTime(new Date('2031-12-05T02:00:00Z'))).toBe('2031-12-04 21:00 ET · 2031-12-05 02:00 UTC');
    // Summer time: 10:30 ET is 14:30 UTC.
    expect(bankTime(new Date('2031-07-01T14:30:00Z'))).toBe('2031-07-01 10:30 ET · 14:30 UTC');
  });

  it('merchant-supplied text is escaped on the home page', async () => {
    const m = await app().merchant();
    const browser = await signedIn(app, m);
    await app().rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: 5, currency: 'USD', reference: 'x-1', description: '<img src=x onerror=alert(1)>' },
    });
    const page = await browser.get('/dashboard');
    expect(page.html).not.toContain('<img src=x');
  });
});
