import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/kernel/clock.ts';
import { createSignInLink } from '../../../src/modules/dashboard/dashboard.service.ts';
import { rollKeys } from '../../../src/modules/merchants/merchants.service.ts';
import { type DashboardBrowser, dashboardBrowser, signedIn } from '../../support/dashboard.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

/**
 * A leaked secret key must not keep access once the owner rolls the keys: rolling (dashboard, API,
 * GraphQL or the CLI's function) signs out every other dashboard session of the merchant and voids
 * its unused sign-in links; the dashboard's roll is a signed-in session's form (CSRF-checked).
 */

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

/** Whether the browser's session still opens dashboard pages. */
async function signedInStill(browser: DashboardBrowser): Promise<boolean> {
  const page = await browser.get('/dashboard');
  return page.status === 200;
}

async function viaLink(m: TestMerchant): Promise<DashboardBrowser> {
  const browser = dashboardBrowser(() => t);
  const token = await createSignInLink(t.database.db, systemClock, m.id);
  expect((await browser.get(`/dashboard/login/${token}`)).status).toBe(303);
  expect(await signedInStill(browser)).toBe(true);
  return browser;
}

describe('rolling keys ends the other dashboard sessions', () => {
  it('over REST: every session and unused sign-in link of the merchant ends, another merchant is untouched', async () => {
    const m = await t.merchant('Leaked');
    const bystander = await t.merchant('Bystander');
    const owner = await signedIn(() => t, m);
    const intruder = await signedIn(() => t, m);
    const other = await signedIn(() => t, bystander);
    const link = await createSignInLink(t.database.db, systemClock, m.id);

    const rolled = await t.rest('POST', '/v1/keys/roll', { key: m.secretKey });
    expect(rolled.status).toBe(200);
    expect(rolled.body).toMatchObject({ object: 'api_keys' });
    expect(rolled.body.secret_key).toMatch(/^sk_test_/);

    expect(await signedInStill(owner)).toBe(false);
    expect(await signedInStill(intruder)).toBe(false);
    expect(await signedInStill(other)).toBe(true);
    expect((await dashboardBrowser(() => t).get(`/dashboard/login/${link}`)).status).toBe(401);
    expect((await t.rest('GET', '/v1/collections', { key: m.secretKey })).status).toBe(401);
    expect((await t.rest('GET', '/v1/collections', { key: String(rolled.body.secret_key) })).status).toBe(
      200,
    );
  });

  it('over GraphQL, and through the function the CLI calls', async () => {
    const m = await t.merchant('GraphQL roll');
    const session = await signedIn(() => t, m);
    const res = await t.gql<{ rollKeys: { __typename: string; data: { secretKey: string } } }>(
      'mutation { rollKeys { __typename ... on MutationRollKeysSuccess { data { secretKey publicKey } } } }',
      {},
      { key: m.secretKey },
    );
    expect(res.data.rollKeys.__typename).toBe('MutationRollKeysSuccess');
    expect(await signedInStill(session)).toBe(false);

    const again = await signedIn(() => t, { ...m, secretKey: res.data.rollKeys.data.secretKey });
    await rollKeys(t.database.db, systemClock, m.id);
    expect(await signedInStill(again)).toBe(false);
  });

  it('is never replayed: an Idempotency-Key is refused and nothing rolls', async () => {
    const m = await t.merchant('Idempotent roll');
    const res = await t.rest('POST', '/v1/keys/roll', {
      key: m.secretKey,
      headers: { 'idempotency-key': 'r-1' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'idempotency_key_invalid' });
    expect((await t.rest('GET', '/v1/collections', { key: m.secretKey })).status).toBe(200);
  });

  it('refuses a key another request already used with the same 400: no stored answer is looked up', async () => {
    const m = await t.merchant('Reused roll key');
    const headers = { 'idempotency-key': 'shared-1' };
    const created = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      headers,
      body: { amount: '5.00', currency: 'USD' },
    });
    expect(created.status).toBe(200);
    const res = await t.rest('POST', '/v1/keys/roll', { key: m.secretKey, headers });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'idempotency_key_invalid' });
    expect((await t.rest('GET', '/v1/collections', { key: m.secretKey })).status).toBe(200);
  });

  it('needs the secret key, not the public one', async () => {
    const m = await t.merchant('Public roll');
    expect((await t.rest('POST', '/v1/keys/roll', { key: m.publicKey })).status).toBe(403);
  });
});

describe('rolling from the dashboard', () => {
  it('a signed-in session rolls with its CSRF token: the old key stops at once, the new one is shown once', async () => {
    const m = await t.merchant('Dashboard roll');
    const browser = await viaLink(m);
    const keysPage = await browser.get('/dashboard/keys');
    expect(keysPage.html).toContain('data-testid="roll-keys"');

    const forged = await browser.post('/dashboard/keys/roll', { _csrf: '' });
    expect(forged.status).toBe(403);
    expect((await t.rest('GET', '/v1/collections', { key: m.secretKey })).status).toBe(200);

    const rolled = await browser.post('/dashboard/keys/roll');
    expect(rolled.status).toBe(303);
    expect((await t.rest('GET', '/v1/collections', { key: m.secretKey })).status).toBe(401);
    // The browser that rolled stays signed in and sees the new pair once.
    const shown = await browser.get('/dashboard/keys');
    expect(shown.html).toContain('data-testid="keys-once"');
    const secret = /data-testid="secret-key">(sk_test_\w+)</.exec(shown.html)?.[1] ?? '';
    expect((await t.rest('GET', '/v1/collections', { key: secret })).status).toBe(200);
  });

  it("the owner's roll signs out a session opened with the leaked key, which cannot roll again", async () => {
    const m = await t.merchant('Owner and intruder');
    const intruder = await signedIn(() => t, m);
    const owner = await signedIn(() => t, m);
    expect((await owner.post('/dashboard/keys/roll')).status).toBe(303);

    expect(await signedInStill(owner)).toBe(true);
    expect(await signedInStill(intruder)).toBe(false);
    const retry = await intruder.post('/dashboard/keys/roll');
    expect(retry.status).not.toBe(200);
    expect(retry.location ?? '').toContain('/dashboard/login');
    expect((await dashboardBrowser(() => t).post('/dashboard/login', { key: m.secretKey })).status).toBe(401);
  });
});
