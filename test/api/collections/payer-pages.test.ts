import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/client.ts';
import { brandSpec } from '../../../src/modules/cards/card-numbers.ts';
import { MAGIC_ACCOUNTS } from '../../../src/modules/transfers/transfers.rails.ts';
import { MAGIC_ACCOUNT_CHOICES } from '../../../src/web/magic-accounts.ts';
import { createTestApp, PUBLIC_URL, type TestApp, type TestMerchant } from '../../support/harness.ts';

/**
 * The pages a payer opens from a link (the hosted checkout and the 3-D Secure page): the link's
 * secret opens them and nothing else does, and every rendered page (those two, /docs, GraphiQL)
 * carries the security headers and no inline script or style.
 */

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant('Payer Pages Shop');
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, unknown>;

const cardBody = (number: string) => ({
  method: 'card',
  card: { number, exp_month: 12, exp_year: 2099, cvc: '123' },
});

async function collect(extra: Json = {}): Promise<Json> {
  const res = await t.rest('POST', '/v1/collect', {
    key: m.secretKey,
    body: { amount: 12.5, currency: 'USD', ...extra },
  });
  expect(res.status).toBe(200);
  return res.body;
}

async function collection(reference: string): Promise<Json> {
  return (await t.rest('GET', `/v1/collections/${reference}`, { key: m.secretKey })).body;
}

/** The path and query of a link the API handed out (what a browser requests). */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** The same link with its secret changed (`null`: taken out). */
function withSecret(path: string, secret: string | null): string {
  const url = new URL(path, PUBLIC_URL);
  if (secret === null) url.searchParams.delete('secret');
  else url.searchParams.set('secret', secret);
  return `${url.pathname}${url.search}`;
}

/** A path under a link (`/card`, `/bank`), its query kept. */
function under(path: string, rest: string): string {
  const url = new URL(path, PUBLIC_URL);
  return `${url.pathname}${rest}${url.search}`;
}

const secretOf = (url: string) => new URL(url).searchParams.get('secret') ?? '';

/** The other links a payer might try: no secret, an empty one, a wrong one of the right length, one off by a character. */
function forgeries(path: string): string[] {
  const secret = secretOf(new URL(path, PUBLIC_URL).toString());
  const flipped = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
  return [
    withSecret(path, null),
    withSecret(path, ''),
    withSecret(path, 'x'.repeat(secret.length)),
    withSecret(path, flipped),
  ];
}

function form(fields: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}

const cardForm = (number: string) =>
  form({ number, exp_month: '12', exp_year: '2099', cvc: '123', name: 'Ada Lovelace' });

describe('capability links', () => {
  let unknownCheckout = '';
  let unknownChallenge = '';

  beforeAll(async () => {
    unknownCheckout = await (await t.app.request('/checkout/col_00000000000000000000000000')).text();
    unknownChallenge = await (await t.app.request('/3ds/cp_00000000000000000000000000')).text();
  });

  it('checkout_url carries a secret of 256 bits; GET, the list and GraphQL hand out the same link', async () => {
    const created = await collect();
    const url = String(created.checkout_url);
    expect(url).toMatch(new RegExp(`^${PUBLIC_URL}/checkout/${created.id}\\?secret=[A-Za-z0-9_-]{43}$`));
    const other = await collect();
    expect(secretOf(String(other.checkout_url))).not.toBe(secretOf(url));

    expect((await collection(String(created.id))).checkout_url).toBe(url);
    const listed = await t.rest<{ data: Json[] }>('GET', '/v1/collections?limit=5', { key: m.secretKey });
    expect(listed.body.data.find((c) => c.id === created.id)?.checkout_url).toBe(url);
    const gql = await t.gql<{ collection: { checkoutUrl: string } }>(
      'query($r: String!) { collection(reference: $r) { checkoutUrl } }',
      { r: String(created.reference) },
      { key: m.secretKey },
    );
    expect(gql.data.collection.checkoutUrl).toBe(url);

    const page = await t.app.request(pathOf(url));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Payer Pages Shop');
  });

  it('a checkout and each of its forms answer as an unknown id would without the right secret, and change nothing', async () => {
    const created = await collect();
    const path = pathOf(String(created.checkout_url));
    const attempts: [string, (p: string) => string, RequestInit | undefined][] = [
      ['GET page', (p) => p, undefined],
      ['POST card', (p) => under(p, '/card'), cardForm('4242424242424242')],
      [
        'POST bank',
        (p) => under(p, '/bank'),
        form({ routing_number: '110000000', account_number: '000123456789', account_type: 'checking' }),
      ],
    ];
    for (const [what, to, init] of attempts) {
      for (const forged of forgeries(path)) {
        const res = await t.app.request(to(forged), init);
        expect(res.status, `${what} ${forged}`).toBe(404);
        expect(await res.text(), what).toBe(unknownCheckout);
      }
    }
    expect(await collection(String(created.id))).toMatchObject({ state: 'pending', payments: [] });

    const paid = await t.app.request(under(path, '/card'), cardForm('4242424242424242'));
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(path);
    expect((await collection(String(created.id))).state).toBe('succeeded');
  });

  it("a checkout's 3-D Secure step opens with the checkout's secret only", async () => {
    const created = await collect();
    const checkout = pathOf(String(created.checkout_url));
    const submitted = await t.app.request(under(checkout, '/card'), cardForm('4000002500003155'));
    expect(submitted.status).toBe(303);
    const challenge = String(submitted.headers.get('location'));
    expect(challenge).toMatch(new RegExp(`^/checkout/${created.id}/3ds/cp_\\w+\\?secret=`));
    expect(secretOf(`${PUBLIC_URL}${challenge}`)).toBe(secretOf(String(created.checkout_url)));

    // The headless payment's next_action is the same kind of link.
    const other = await collect();
    const headless = await t.rest('POST', `/v1/simulate/collections/${other.id}/pay`, {
      key: m.secretKey,
      body: cardBody('4000002500003155'),
    });
    const nextAction = String((headless.body.next_action as Json).url);
    expect(secretOf(nextAction)).toBe(secretOf(String(other.checkout_url)));
    expect((await t.app.request(pathOf(nextAction))).status).toBe(200);

    for (const forged of forgeries(challenge)) {
      const shown = await t.app.request(forged);
      expect(shown.status).toBe(404);
      expect(await shown.text()).toBe(unknownCheckout);
      const answered = await t.app.request(forged, form({ outcome: 'succeed' }));
      expect(answered.status).toBe(404);
    }
    // Another checkout's secret does not open this one.
    expect((await t.app.request(withSecret(challenge, secretOf(nextAction)))).status).toBe(404);
    const pending = await collection(String(created.id));
    expect(pending.state).toBe('pending');
    expect((pending.payments as Json[])[0]?.state).toBe('requires_action');

    expect((await t.app.request(challenge)).status).toBe(200);
    const done = await t.app.request(challenge, form({ outcome: 'succeed' }));
    expect(done.status).toBe(303);
    expect((await collection(String(created.id))).state).toBe('succeeded');
  });

  it('/3ds/{id} of a direct card payment opens with next_action.url only', async () => {
    const res = await t.rest('POST', '/v1/card_payments', {
      key: m.secretKey,
      body: { amount: 40, currency: 'USD', card: cardBody('4000002500003155').card },
    });
    expect(res.status).toBe(200);
    const url = String((res.body.next_action as Json).url);
    expect(url).toMatch(new RegExp(`^${PUBLIC_URL}/3ds/${res.body.id}\\?secret=[A-Za-z0-9_-]{43}$`));
    const fetched = await t.rest('GET', `/v1/card_payments/${res.body.id}`, { key: m.secretKey });
    expect((fetched.body.next_action as Json).url).toBe(url);
    const gql = await t.gql<{ cardPayment: { threeDSecureUrl: string } }>(
      'query($id: ID!) { cardPayment(id: $id) { threeDSecureUrl } }',
      { id: String(res.body.id) },
      { key: m.secretKey },
    );
    expect(gql.data.cardPayment.threeDSecureUrl).toBe(url);

    const path = pathOf(url);
    for (const forged of forgeries(path)) {
      const shown = await t.app.request(forged);
      expect(shown.status).toBe(404);
      expect(await shown.text()).toBe(unknownChallenge);
      expect((await t.app.request(forged, form({ outcome: 'fail' }))).status).toBe(404);
    }
    const still = await t.rest('GET', `/v1/card_payments/${res.body.id}`, { key: m.secretKey });
    expect(still.body.state).toBe('requires_action');

    const page = await t.app.request(path);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`action="${path}"`);
    const answered = await t.app.request(path, form({ outcome: 'succeed' }));
    expect(answered.status).toBe(303);
    expect(answered.headers.get('location')).toBe(path);
    const done = await t.rest('GET', `/v1/card_payments/${res.body.id}`, { key: m.secretKey });
    expect(done.body.state).toBe('captured');
  });

  it('a row written without a secret (as rows made before the secrets existed) gets a random one of its own', async () => {
    const ids = ['col_LEGACY0000000000000000001', 'col_LEGACY0000000000000000002'];
    for (const id of ids) {
      await queryRows(
        t.database.db,
        sql`INSERT INTO collections (id, merchant_id, reference, amount, currency, metadata, state, expires_at, created_at, updated_at)
            VALUES (${id}, ${m.id}, ${id}, 100, 'USD', '{}'::jsonb, 'pending', now() + interval '1 day', now(), now())`,
      );
    }
    const urls = await Promise.all(ids.map(async (id) => String((await collection(id)).checkout_url)));
    const secrets = urls.map(secretOf);
    for (const secret of secrets) expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(secrets[0]).not.toBe(secrets[1]);
    expect((await t.app.request(pathOf(urls[0] ?? ''))).status).toBe(200);
    expect((await t.app.request(withSecret(pathOf(urls[0] ?? ''), null))).status).toBe(404);
  });
});

/** The headers every rendered page carries. */
function expectPageHeaders(res: Response, what: string): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, what).toContain("default-src 'none'");
  expect(csp, what).toContain("script-src 'self';");
  // GraphiQL alone lets its editor apply inline styles; no page allows inline script.
  expect(csp, what).toContain(
    what === 'GraphiQL' ? "style-src 'self' 'unsafe-inline';" : "style-src 'self';",
  );
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).not.toMatch(/script-src[^;]*unsafe/);
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(res.headers.get('referrer-policy'), what).toBe('no-referrer');
}

/** No script or style in the page itself: every script and stylesheet is a file the CSP allows. */
function expectNoInlineCode(page: string, what: string): void {
  expect(page, what).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/i);
  expect(page, what).not.toMatch(/<style[\s>]/i);
  expect(page, what).not.toMatch(/\sstyle=/i);
  expect(page, what).not.toMatch(/\son[a-z]+=/i);
}

describe('security headers of the rendered pages', () => {
  it('the checkout, 3-D Secure, /docs and GraphiQL pages: CSP, no framing, nosniff, no-store, no referrer', async () => {
    const created = await collect();
    const checkout = pathOf(String(created.checkout_url));
    const challenged = await t.app.request(under(checkout, '/card'), cardForm('4000002500003155'));
    const direct = await t.rest('POST', '/v1/card_payments', {
      key: m.secretKey,
      body: { amount: 3, currency: 'USD', card: cardBody('4000002500003155').card },
    });
    const pages: [string, string, RequestInit?][] = [
      ['checkout', checkout],
      ['checkout 3-D Secure', String(challenged.headers.get('location'))],
      ['3-D Secure', pathOf(String((direct.body.next_action as Json).url))],
      ['unknown checkout', '/checkout/col_00000000000000000000000000'],
      ['unknown challenge', '/3ds/cp_00000000000000000000000000'],
      ['refused card form', under(checkout, '/card'), cardForm('4242424242424241')],
      ['docs', '/docs'],
      ['GraphiQL', '/graphql', { headers: { accept: 'text/html' } }],
      ['landing page', '/'],
    ];
    for (const [what, path, init] of pages) {
      const res = await t.app.request(path, init);
      expect(res.status, what).toBeLessThan(500);
      expectPageHeaders(res, what);
      expect(res.headers.get('cache-control'), what).toBe('no-store');
      const body = await res.text();
      if (res.status === 200) expect(res.headers.get('content-type'), what).toContain('text/html');
      expectNoInlineCode(body, what);
    }
    // A POST answered by a redirect has them too (the redirect must not leak the link either).
    expectPageHeaders(challenged, 'redirect');
  });

  it('their scripts and stylesheets are served files, cacheable, with nosniff', async () => {
    const pages = [pathOf(String((await collect()).checkout_url)), '/docs', '/graphql', '/'];
    const assets = new Set<string>();
    for (const path of pages) {
      const body = await (await t.app.request(path, { headers: { accept: 'text/html' } })).text();
      for (const [, src] of body.matchAll(/<(?:script|link)[^>]*\s(?:src|href)="([^"]+)"/g))
        if (src?.startsWith('/')) assets.add(src);
    }
    expect(assets.size).toBeGreaterThanOrEqual(6);
    for (const asset of assets) {
      const res = await t.app.request(asset);
      expect(res.status, asset).toBe(200);
      // The pages' icon is the one image among them.
      expect(res.headers.get('content-type'), asset).toMatch(
        asset === '/favicon.svg' ? /^image\/svg\+xml$/ : /^text\/(javascript|css)/,
      );
      expect(res.headers.get('x-content-type-options'), asset).toBe('nosniff');
      expect(res.headers.get('cache-control'), asset).toContain('max-age');
    }
  });

  it('a refused card form comes back without the card number: its last four as a hint, no CVC', async () => {
    const created = await collect();
    const checkout = pathOf(String(created.checkout_url));
    // Fails Luhn: refused before the network, so the form is shown again with the error.
    const refused = await t.app.request(under(checkout, '/card'), cardForm('4242424242424241'));
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toContain('data-testid="card-error"');
    expect(page).not.toContain('4242424242424241');
    expect(page).toMatch(/data-testid="card-hint"[^>]*>[^<]*ending 4241/);
    expect(page).toMatch(/<input id="number"[^>]*value=""/);
    expect(page).toMatch(/<input id="cvc"[^>]*value=""/);
    // What is not secret is kept, so the payer need not type it again.
    expect(page).toMatch(/<input id="name"[^>]*value="Ada Lovelace"/);
    expect(refused.headers.get('cache-control')).toBe('no-store');

    // A valid number (not one of the listed test cards) with a month that is not one: the same.
    const expired = await t.app.request(
      under(checkout, '/card'),
      form({ number: '4111111111111111', exp_month: '13', exp_year: '2099', cvc: '123' }),
    );
    expect(expired.status).toBe(400);
    const expiredPage = await expired.text();
    expect(expiredPage).not.toContain('4111111111111111');
    expect(expiredPage).toContain('ending 1111');
  });

  it("the card form hands its script the server's own brand rules (prefixes and ranges), with each brand's grouping", async () => {
    const created = await collect();
    const page = await (await t.app.request(pathOf(String(created.checkout_url)))).text();
    const attribute = /<form id="card-form"[^>]* data-brands="([^"]*)"/.exec(page)?.[1] ?? '';
    const rules = JSON.parse(attribute.replaceAll('&quot;', '"')) as Json[];
    expect(rules).toEqual(
      (['visa', 'mastercard', 'amex'] as const).map((brand) => ({
        brand,
        label: { visa: 'Visa', mastercard: 'Mastercard', amex: 'Amex' }[brand],
        groups: brand === 'amex' ? [4, 6, 5] : brand === 'visa' ? [4, 4, 4, 4, 3] : [4, 4, 4, 4],
        prefixes: brandSpec(brand).prefixes,
        ranges: brandSpec(brand).ranges,
      })),
    );
    // Each brand's groups cover its longest number.
    for (const rule of rules) {
      const longest = Math.max(...brandSpec(rule.brand as 'visa').lengths);
      expect((rule.groups as number[]).reduce((a, b) => a + b, 0)).toBe(longest);
    }
  });

  it("the bank form offers the rails' magic accounts: each link fills the form without script, and pays as its outcome says", async () => {
    const created = await collect();
    const checkout = pathOf(String(created.checkout_url));
    const page = await (await t.app.request(checkout)).text();
    const links = [
      ...page.matchAll(
        /<a href="([^"]+)" data-routing="(\d+)" data-account="(\d+)" data-testid="test-account">[^<]*<\/a> — ([^<]*)<\/li>/g,
      ),
    ];
    expect(links.map(([, , routing, account, outcome]) => ({ routing, account, outcome }))).toEqual(
      MAGIC_ACCOUNT_CHOICES.map((choice) => ({
        routing: choice.routingNumber,
        account: choice.accountNumber,
        outcome: choice.outcome.replaceAll("'", '&#39;'),
      })),
    );
    // Every magic account of the rails is among them.
    for (const account of MAGIC_ACCOUNTS) expect(page).toContain(`data-account="${account.accountNumber}"`);

    // Without script the link itself pre-fills the routing and account numbers.
    const r01 = links.find(([, , , account]) => account === '000222222227');
    const href = (r01?.[1] ?? '').replaceAll('&amp;', '&');
    expect(href).toBe(`${checkout}&bank=000222222227`);
    const filled = await (await t.app.request(href)).text();
    expect(filled).toMatch(/<input id="routing_number"[^>]*value="110000000"/);
    expect(filled).toMatch(/<input id="account_number"[^>]*value="000222222227"/);
    expect(filled).toMatch(/<input id="number"[^>]*value=""/);
    // An unknown key fills nothing.
    const unknown = await (await t.app.request(`${checkout}&bank=000000000001`)).text();
    expect(unknown).toMatch(/<input id="account_number"[^>]*value=""/);

    const paid = await t.app.request(
      under(checkout, '/bank'),
      form({ name: 'Ada Lovelace', routing_number: '110000000', account_number: '000222222227' }),
    );
    expect(paid.status).toBe(303);
    const after = await collection(String(created.reference));
    expect(after.state).toBe('processing');
    expect((after.payments as Json[])[0]).toMatchObject({ object: 'transfer', direction: 'debit' });
  });

  it('a checkout with a redirect_url lets its forms end at that origin and no other', async () => {
    const created = await collect({ redirect_url: 'https://shop.example.com/thanks?x=1' });
    const res = await t.app.request(pathOf(String(created.checkout_url)));
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/form-action 'self' https:\/\/shop\.example\.com(;|$)/);
    const plain = await t.app.request(pathOf(String((await collect()).checkout_url)));
    expect(plain.headers.get('content-security-policy')).toMatch(/form-action 'self'(;|$)/);
  });
});
