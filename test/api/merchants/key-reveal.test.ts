/**
 * The dashboard's Reveal: the secret key in use, kept whole beside its hash, shown to a signed-in
 * session of its merchant by a CSRF-checked POST (never cached), on any instance and after a
 * restart; a key stored before keys were kept (hash only) still authenticates and is offered a roll.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrationsFolder, openDatabase } from '../../../src/db/client.ts';
import { systemClock } from '../../../src/kernel/clock.ts';
import { newId } from '../../../src/kernel/ids.ts';
import { createSignInLink } from '../../../src/modules/dashboard/dashboard.service.ts';
import { authenticate } from '../../../src/modules/merchants/authentication.ts';
import { ensureDefaultMerchant } from '../../../src/modules/merchants/default-merchant.ts';
import { generateKey, hashKey } from '../../../src/modules/merchants/keys.ts';
import { type DashboardBrowser, dashboardBrowser, signedIn } from '../../support/dashboard.ts';
import { createTestApp, openTestDatabase, ownPostgresDatabase, type TestApp } from '../../support/harness.ts';

let t: TestApp;
const temporary: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbank-reveal-'));
  temporary.push(dir);
  return dir;
}

async function viaLink(app: TestApp, merchantId: string): Promise<DashboardBrowser> {
  const browser = dashboardBrowser(() => app);
  const token = await createSignInLink(app.database.db, systemClock, merchantId);
  expect((await browser.get(`/dashboard/login/${token}`)).status).toBe(303);
  // A page of the session, as a browser would have open, gives the forms their CSRF token.
  expect((await browser.get('/dashboard/keys')).status).toBe(200);
  return browser;
}

function revealedIn(html: string): string | null {
  return /data-testid="secret-key-revealed">(sk_test_\w+)</.exec(html)?.[1] ?? null;
}

async function reveal(browser: DashboardBrowser): Promise<string | null> {
  const page = await browser.post('/dashboard/keys/reveal');
  expect(page.status).toBe(200);
  expect(page.headers.get('cache-control')).toBe('no-store');
  return revealedIn(page.html);
}

describe('revealing the secret key', () => {
  it('shows a session opened by link (that never saw the key) the key, which then authenticates', async () => {
    const m = await t.merchant('Reveal shop');
    const browser = await viaLink(t, m.id);
    const keys = await browser.get('/dashboard/keys');
    expect(keys.html).toContain('data-testid="reveal-secret"');
    expect(keys.html).not.toContain(m.secretKey);
    const secret = await reveal(browser);
    expect(secret).toBe(m.secretKey);
    expect((await t.rest('GET', '/v1/balances', { key: secret ?? '' })).status).toBe(200);
  });

  it("another merchant's session sees its own key, never this one", async () => {
    const m = await t.merchant('Owner');
    const other = await t.merchant('Other');
    const browser = await signedIn(() => t, other);
    const page = await browser.post('/dashboard/keys/reveal');
    expect(page.html).not.toContain(m.secretKey);
    expect(revealedIn(page.html)).toBe(other.secretKey);
  });

  it('signed out, a reveal goes to sign-in and shows nothing', async () => {
    const m = await t.merchant();
    const browser = dashboardBrowser(() => t);
    const page = await browser.post('/dashboard/keys/reveal');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/dashboard/login');
    expect(page.html).not.toContain('sk_test_');
    // A session that has ended is signed out too.
    const ended = await signedIn(() => t, m);
    const cookie = ended.cookies.get('sandbank_session') ?? '';
    await ended.post('/dashboard/logout');
    const replay = dashboardBrowser(() => t);
    replay.cookies.set('sandbank_session', cookie);
    const again = await replay.post('/dashboard/keys/reveal');
    expect(again.status).toBe(303);
    expect(again.html).not.toContain(m.secretKey);
  });

  it('without the CSRF token, or by GET, nothing is revealed', async () => {
    const m = await t.merchant();
    const browser = await signedIn(() => t, m);
    for (const _csrf of ['', 'x'.repeat(43)]) {
      const page = await browser.post('/dashboard/keys/reveal', { _csrf });
      expect(page.status).toBe(403);
      expect(page.html).not.toContain(m.secretKey);
    }
    const get = await browser.get('/dashboard/keys/reveal');
    expect(get.status).toBe(404);
    expect(get.html).not.toContain(m.secretKey);
  });

  it('after a roll (REST or dashboard) the new key is revealed, and the old one no longer works', async () => {
    const m = await t.merchant('Roller');
    const browser = await viaLink(t, m.id);
    const rolled = await t.rest('POST', '/v1/keys/roll', { key: m.secretKey });
    expect(rolled.status).toBe(200);
    // The REST roll signed the browser out; a new session reveals the new key.
    const again = await viaLink(t, m.id);
    expect(await reveal(again)).toBe(rolled.body.secret_key);
    expect((await browser.post('/dashboard/keys/reveal')).status).toBe(303);

    expect((await again.post('/dashboard/keys/roll')).status).toBe(303);
    const newest = await reveal(again);
    expect(newest).toMatch(/^sk_test_/);
    expect(newest).not.toBe(rolled.body.secret_key);
    expect((await t.rest('GET', '/v1/balances', { key: String(rolled.body.secret_key) })).status).toBe(401);
    expect((await t.rest('GET', '/v1/balances', { key: newest ?? '' })).status).toBe(200);
  });
});

describe('across restarts and instances', () => {
  it('a key made on one start is revealed after a restart on the same database', async () => {
    const dataDir = process.env.TEST_DATABASE_URL ? null : tempDir();
    const open = (): Promise<Database> =>
      dataDir ? openDatabase({ driver: 'pglite', dataDir }) : openTestDatabase();
    const first = await createTestApp({ database: await open() });
    const signup = dashboardBrowser(() => first);
    await signup.get('/dashboard/signup');
    expect((await signup.post('/dashboard/signup', { name: 'Restarted' })).location).toBe('/dashboard/keys');
    const once = await signup.get('/dashboard/keys');
    const secret = /data-testid="secret-key">(sk_test_\w+)</.exec(once.html)?.[1] ?? '';
    expect(secret).toMatch(/^sk_test_/);
    expect((await first.rest('GET', '/v1/balances', { key: secret })).status).toBe(200);
    const { merchant } = await authenticate(first.database.db, `Bearer ${secret}`);
    await first.close();

    const second = await createTestApp({ database: await open() });
    try {
      const browser = await viaLink(second, merchant.id);
      expect(await reveal(browser)).toBe(secret);
      expect((await second.rest('GET', '/v1/balances', { key: secret })).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});

/** The migrations as they were before secret keys were kept: 0000-0009. */
function migrationsBeforeReveal(): string {
  const dir = tempDir();
  cpSync(migrationsFolder(), dir, { recursive: true });
  const journalPath = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as {
    entries: { idx: number; tag: string }[];
  };
  const later = journal.entries.filter((entry) => entry.idx >= 10);
  expect(later.map((entry) => entry.tag)).toContain('0010_revealable_secret_keys');
  for (const entry of later) rmSync(join(dir, `${entry.tag}.sql`));
  journal.entries = journal.entries.filter((entry) => entry.idx < 10);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

async function openWith(migrations: string | null, open: () => Promise<Database>): Promise<Database> {
  const before = process.env.SANDBANK_MIGRATIONS_DIR;
  if (migrations) process.env.SANDBANK_MIGRATIONS_DIR = migrations;
  else delete process.env.SANDBANK_MIGRATIONS_DIR;
  try {
    return await open();
  } finally {
    if (before === undefined) delete process.env.SANDBANK_MIGRATIONS_DIR;
    else process.env.SANDBANK_MIGRATIONS_DIR = before;
  }
}

describe('a database from before keys were kept', () => {
  it('upgrades: the old hash-only key still authenticates, cannot be revealed until pinned or rolled', async () => {
    const own = await ownPostgresDatabase('sandbank_reveal');
    const dataDir = own ? null : tempDir();
    const open = (): Promise<Database> =>
      own
        ? openDatabase({ driver: 'postgres', url: own.url, maxConnections: 2 })
        : openDatabase({ driver: 'pglite', dataDir: dataDir ?? '' });
    try {
      // The old schema, and a merchant whose keys were stored the old way (hash and last 4 only).
      const old = await openWith(migrationsBeforeReveal(), open);
      const merchantId = newId('merchant');
      const secretKey = generateKey('secret');
      const publicKey = generateKey('public');
      await old.db.execute(
        sql`INSERT INTO merchants (id, name, is_default, created_at) VALUES (${merchantId}, 'Old shop', true, now())`,
      );
      for (const [kind, key] of [
        ['secret', secretKey],
        ['public', publicKey],
      ] as const) {
        await old.db.execute(sql`INSERT INTO api_keys (id, merchant_id, kind, key_hash, last4, public_key, created_at)
          VALUES (${newId('apiKey')}, ${merchantId}, ${kind}, ${hashKey(key)}, ${key.slice(-4)},
                  ${kind === 'public' ? key : null}, now())`);
      }
      await old.close();

      const app = await createTestApp({ database: await openWith(null, open) });
      try {
        expect((await app.rest('GET', '/v1/balances', { key: secretKey })).status).toBe(200);
        const browser = await viaLink(app, merchantId);
        const page = await browser.post('/dashboard/keys/reveal');
        expect(page.html).toContain('data-testid="reveal-unavailable"');
        expect(revealedIn(page.html)).toBeNull();
        expect(page.html).toContain(`sk_test_••••••••${secretKey.slice(-4)}`);
        expect(page.html).toContain('data-testid="roll-keys"');

        // Restarting with the key pinned (SANDBANK_SECRET_KEY) keeps it whole from then on.
        await ensureDefaultMerchant(app.database.db, systemClock, { secretKey });
        expect(await reveal(browser)).toBe(secretKey);

        expect((await browser.post('/dashboard/keys/roll')).status).toBe(303);
        const newest = await reveal(browser);
        expect(newest).toMatch(/^sk_test_/);
        expect((await app.rest('GET', '/v1/balances', { key: newest ?? '' })).status).toBe(200);
        expect((await app.rest('GET', '/v1/balances', { key: secretKey })).status).toBe(401);
      } finally {
        await app.close();
      }
    } finally {
      await own?.drop();
    }
  });
});
