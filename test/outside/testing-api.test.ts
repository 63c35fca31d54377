import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHandler as startBuggy } from '../../examples/webhook-handlers/buggy.mjs';
import { startHandler as startCorrect } from '../../examples/webhook-handlers/correct.mjs';
import {
  type Sandbank,
  sandbankGlobalSetup,
  sandbankMerchant,
  startSandbank,
  type WebhookReceiver,
} from '../../src/testing.ts';
import { installPackedPackage, type PackedInstall, run } from '../processes/packed.ts';
import { ROOT } from '../processes/server-process.ts';
import { ownPostgresDatabase } from '../support/harness.ts';

/**
 * sandbank/testing: the API developers import in their own suites (src/testing.ts), then the
 * package as npm would ship it: packed, laid out in an empty folder with nothing of this clone but
 * its declared dependencies (test/processes/packed.ts), and the node:test, vitest and Jest examples run there
 * with their own runners.
 */

async function rest<T>(sandbank: { url: string }, key: string, path: string): Promise<T> {
  const response = await fetch(`${sandbank.url}/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

async function collect(url: string, key: string, amount: number) {
  const response = await fetch(`${url}/v1/collect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, currency: 'USD' }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string; checkout_url: string };
}

describe('startSandbank', () => {
  let sandbank: Sandbank;
  let webhooks: WebhookReceiver;
  let startMs = 0;

  beforeAll(async () => {
    const started = Date.now();
    sandbank = await startSandbank();
    startMs = Date.now() - started;
    webhooks = await sandbank.webhookReceiver();
  });
  afterAll(() => sandbank.close());

  it('serves in memory on a free loopback port, with the default merchant’s keys', async () => {
    expect(sandbank.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbank.secretKey).toMatch(/^sk_test_/);
    expect(sandbank.publicKey).toMatch(/^pk_test_/);
    expect(sandbank.id).toMatch(/^mch_/);
    const clock = await rest<{ object: string }>(sandbank, sandbank.secretKey, '/clock');
    expect(clock.object).toBe('clock');
    // The links it hands out lead back to it.
    const collection = await collect(sandbank.url, sandbank.secretKey, 3);
    expect(collection.checkout_url.startsWith(`${sandbank.url}/checkout/`)).toBe(true);
    expect((await fetch(collection.checkout_url)).status).toBe(200);
    // The Stripe dialect, on a free port of its own: Stripe's form body, Stripe's answer.
    expect(sandbank.stripeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const intent = await fetch(`${sandbank.stripeUrl}/v1/payment_intents`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${sandbank.secretKey}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'amount=2000&currency=usd&payment_method=pm_card_visa&confirm=true',
    });
    expect(await intent.json()).toMatchObject({
      object: 'payment_intent',
      status: 'succeeded',
      amount: 2000,
    });
    console.info(`startSandbank() took ${startMs} ms`);
  });

  it('receives webhooks signed with the endpoint’s secret, and refuses a forged one', async () => {
    const forged = await fetch(webhooks.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
      },
      body: JSON.stringify({ id: 'evt_forged', object: 'event', type: 'collection.created', data: {} }),
    });
    expect(forged.status).toBe(400);
    expect(webhooks.rejected).toEqual(['no valid signature for evt_forged']);
    expect(webhooks.events.some((event) => event.id === 'evt_forged')).toBe(false);

    const collection = await collect(sandbank.url, sandbank.secretKey, 7.25);
    const event = await webhooks.waitFor('collection.created', (e) => e.data.object.id === collection.id);
    expect(event.id).toMatch(/^evt_/);
    expect(event.data.object).toMatchObject({ id: collection.id, amount: 7.25 });
    webhooks.clear();
    expect(webhooks.events).toEqual([]);
  });

  it('waitFor gives up after its timeout, naming what did arrive', async () => {
    await expect(webhooks.waitFor('payout.paid', undefined, { timeoutMs: 200 })).rejects.toThrow(
      /No payout\.paid event within 200 ms \(received: /,
    );
  });

  it('moves the clock of one merchant only, and runs what falls due on the way', async () => {
    const other = await sandbank.newMerchant('Another shop');
    expect(other.secretKey).toMatch(/^sk_test_/);
    expect(other.id).not.toBe(sandbank.id);
    const collection = await collect(sandbank.url, sandbank.secretKey, 9);
    const target = new Date(Date.now() + 2 * 24 * 3600 * 1000);
    const clock = await sandbank.advanceClock({ to: target });
    expect(new Date(clock.now).getTime()).toBeGreaterThanOrEqual(target.getTime());
    expect(clock.ran.some((job) => job.object_id === collection.id)).toBe(true);
    await webhooks.waitFor('collection.expired', (e) => e.data.object.id === collection.id);
    const theirs = await rest<{ offset_ms: number }>(sandbank, other.secretKey, '/clock');
    expect(theirs.offset_ms).toBe(0);
    const moved = await other.advanceClock({ seconds: 60 });
    expect(moved.offset_ms).toBeGreaterThanOrEqual(60_000);
  });

  it('reset deletes the merchant’s objects and keeps its webhook endpoint', async () => {
    await collect(sandbank.url, sandbank.secretKey, 1);
    const result = (await sandbank.reset()) as { deleted: { collections: number } };
    expect(result.deleted.collections).toBeGreaterThan(0);
    const left = await rest<{ data: unknown[] }>(sandbank, sandbank.secretKey, '/collections');
    expect(left.data).toEqual([]);
    webhooks.clear();
    const collection = await collect(sandbank.url, sandbank.secretKey, 2);
    await webhooks.waitFor('collection.created', (e) => e.data.object.id === collection.id);
  });

  it('a receiver of another merchant gets only that merchant’s events; close() deletes its endpoint', async () => {
    const other = await sandbank.newMerchant();
    const theirs = await other.webhookReceiver({ events: ['collection.created'] });
    const mine = await collect(sandbank.url, sandbank.secretKey, 4);
    const collection = await collect(sandbank.url, other.secretKey, 5);
    await theirs.waitFor('collection.created', (e) => e.data.object.id === collection.id);
    await webhooks.waitFor('collection.created', (e) => e.data.object.id === mine.id);
    expect(theirs.events.map((event) => event.data.object.id)).toEqual([collection.id]);
    await theirs.close();
    const endpoints = await rest<{ data: unknown[] }>(sandbank, other.secretKey, '/webhook_endpoints');
    expect(endpoints.data).toEqual([]);
  });

  it('requests() and expectRequest(): the request log, the helpers’ own requests left out', async () => {
    const shop = await sandbank.newMerchant('Logged shop');
    const since = new Date();
    await collect(sandbank.url, shop.secretKey, 4);
    const declined = await fetch(`${sandbank.url}/v1/card_payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        amount: 5,
        currency: 'USD',
        card: { number: '4000000000000002', exp_month: 12, exp_year: 2099, cvc: '123' },
      }),
    });
    expect(declined.status).toBe(402);
    await shop.advanceClock({ seconds: 60 });
    const seen = await shop.requests({ since });
    expect(seen.map((r) => `${r.method} ${r.path} → ${r.status_code} ${r.operation}`)).toEqual([
      'POST /v1/collect → 200 createCollection',
      'POST /v1/card_payments → 402 createCardPayment',
    ]);
    const all = await shop.requests({ includeTesting: true });
    expect(all.map((r) => [r.operation, r.source])).toContainEqual(['advanceClock', 'testing']);
    expect((await shop.requests({ status: '4xx' })).map((r) => r.error_code)).toEqual(['card_declined']);

    const paid = await shop.expectRequest({ operation: 'createCardPayment', status: 402, since });
    expect(paid).toMatchObject({ id: declined.headers.get('request-id'), error_code: 'card_declined' });
    expect(paid.request_body).toContain('"number":"****0002"');
    expect(paid.request_body).not.toContain('4000000000000002');
    await expect(shop.expectRequest({ operation: 'createPayout', status: 200 })).rejects.toThrow(
      'Sandbank: expected a request with operation createPayout, status 200; 2 were made (oldest first):\n' +
        '  POST /v1/collect → 200 (createCollection)\n' +
        '  POST /v1/card_payments → 402 card_declined (createCardPayment)',
    );
  });
});

describe('checkWebhooks', () => {
  it('passes the correct sample handler and lists what the buggy one gets wrong', async () => {
    const sandbank = await startSandbank();
    const secret = `whsec_${Buffer.from('a conformance secret of 32 bytes').toString('base64')}`;
    const correct = await startCorrect({ api: sandbank.url, key: sandbank.secretKey, secret });
    const buggy = await startBuggy({ api: sandbank.url, key: sandbank.secretKey });
    try {
      const good = await sandbank.checkWebhooks({ url: correct.url, secret, timeoutMs: 3000 });
      expect(good.failures.map((f) => `${f.id}: ${f.explanation}`)).toEqual([]);
      expect(good).toMatchObject({ state: 'passed', summary: { total: 13, passed: 13 } });
      const bad = await sandbank.checkWebhooks({ url: buggy.url, timeoutMs: 2000, seed: 3 });
      expect(bad.seed).toBe(3);
      expect(bad.failures.map((f) => f.id)).toEqual([
        'signature_invalid',
        'signature_wrong_secret',
        'timestamp_stale',
        'signature_missing',
        'duplicate_sequential',
        'duplicate_concurrent',
        'out_of_order',
        'slow_acknowledgement',
        'unknown_event_type',
      ]);
    } finally {
      await correct.close();
      await buggy.close();
      await sandbank.close();
    }
  });
});

describe('startSandbank on a database that outlives it', () => {
  it('signs up a merchant of its own when the default merchant’s key was issued by an earlier start', async () => {
    const own = await ownPostgresDatabase('sandbank_testing');
    const dir = own ? null : mkdtempSync(join(tmpdir(), 'sandbank-testing-'));
    const storage = own ? { databaseUrl: own.url } : { dataDir: join(dir as string, 'data') };
    try {
      const first = await startSandbank(storage);
      await first.close();
      const second = await startSandbank(storage);
      try {
        expect(second.id).not.toBe(first.id);
        expect(second.secretKey).not.toBe(first.secretKey);
        const clock = await rest<{ object: string }>(second, second.secretKey, '/clock');
        expect(clock.object).toBe('clock');
      } finally {
        await second.close();
      }
    } finally {
      await own?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A loopback port nothing listens on (taken, then let go). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('sandbankMerchant: one server for the run, a merchant per file', () => {
  let stop: () => Promise<void>;
  const before = process.env.SANDBANK_URL;

  beforeAll(async () => {
    delete process.env.SANDBANK_URL;
    stop = await sandbankGlobalSetup();
  });
  afterAll(async () => {
    await stop?.();
    if (before === undefined) delete process.env.SANDBANK_URL;
    else process.env.SANDBANK_URL = before;
  });

  it('publishes the server in SANDBANK_URL, where merchants of their own sign up in milliseconds', async () => {
    const url = process.env.SANDBANK_URL as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const first = await sandbankMerchant({ name: 'First file' });
    expect(first).toMatchObject({ url, name: 'First file' });
    expect(first.id).toMatch(/^mch_/);
    expect(first.secretKey).toMatch(/^sk_test_/);
    expect(first.publicKey).toMatch(/^pk_test_/);
    // What a test file pays for its merchant (the sign-up; printed, not a timing target here).
    const took: number[] = [];
    const ids = new Set<string>([first.id]);
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      const merchant = await sandbankMerchant({ name: `File ${i}` });
      took.push(performance.now() - started);
      ids.add(merchant.id);
    }
    expect(ids.size).toBe(51);
    took.sort((a, b) => a - b);
    console.info(
      `sandbankMerchant(): median ${took[25]?.toFixed(1)} ms, slowest ${took[49]?.toFixed(1)} ms over 50 sign-ups`,
    );
  });

  it('keeps each merchant’s objects, clock and webhooks its own', async () => {
    const [mine, theirs] = await Promise.all([sandbankMerchant(), sandbankMerchant()]);
    const [myHooks, theirHooks] = await Promise.all([mine.webhookReceiver(), theirs.webhookReceiver()]);
    const collection = await collect(mine.url, mine.secretKey, 6);
    await myHooks.waitFor('collection.created', (e) => e.data.object.id === collection.id);
    expect((await rest<{ data: unknown[] }>(theirs, theirs.secretKey, '/collections')).data).toEqual([]);
    const clock = await mine.advanceClock({ seconds: 25 * 3600 });
    expect(clock.ran.some((job) => job.object_id === collection.id)).toBe(true);
    await myHooks.waitFor('collection.expired', (e) => e.data.object.id === collection.id);
    expect((await rest<{ offset_ms: number }>(theirs, theirs.secretKey, '/clock')).offset_ms).toBe(0);
    expect(theirHooks.events).toEqual([]);
    const reset = (await mine.reset()) as { deleted: { collections: number } };
    expect(reset.deleted.collections).toBe(1);
    // close() stops the merchant's receivers and deletes their endpoints; the server runs on.
    await Promise.all([mine.close(), theirs.close()]);
    expect((await rest<{ data: unknown[] }>(mine, mine.secretKey, '/webhook_endpoints')).data).toEqual([]);
  });

  it('seeds once and starts each test from the seed: snapshot() and restore()', async () => {
    const shop = await sandbankMerchant();
    const hooks = await shop.webhookReceiver(); // before the save: restores keep its endpoint
    const seed = await collect(shop.url, shop.secretKey, 12);
    await shop.advanceClock({ seconds: 3600 });
    const saved = await shop.snapshot('seeded');
    expect(saved).toMatchObject({ object: 'snapshot', name: 'seeded' });
    expect(saved.counts.collections).toBe(1);
    for (let test = 0; test < 2; test++) {
      const made = await collect(shop.url, shop.secretKey, 30 + test);
      await shop.advanceClock({ seconds: 25 * 3600 });
      const restored = await shop.restore('seeded');
      expect(restored.id).toBe(saved.id);
      const list = await rest<{ data: Array<{ id: string; state: string }> }>(
        shop,
        shop.secretKey,
        '/collections',
      );
      expect(list.data.map((c) => [c.id, c.state])).toEqual([[seed.id, 'pending']]);
      expect(list.data.map((c) => c.id)).not.toContain(made.id);
      const clock = await rest<{ offset_ms: number }>(shop, shop.secretKey, '/clock');
      expect(clock.offset_ms).toBeGreaterThanOrEqual(3600_000);
      expect(clock.offset_ms).toBeLessThan(25 * 3600_000);
    }
    // The receiver still gets the merchant's events after the restores.
    const after = await collect(shop.url, shop.secretKey, 5);
    await hooks.waitFor('collection.created', (e) => e.data.object.id === after.id);
    await expect(shop.restore('no-such-snapshot')).rejects.toThrow(/404|No snapshot/);
    await shop.close();
  });

  it('a second global setup uses the server SANDBANK_URL names, and its stop leaves it running', async () => {
    const url = process.env.SANDBANK_URL;
    const again = await sandbankGlobalSetup();
    expect(process.env.SANDBANK_URL).toBe(url);
    await again();
    expect(process.env.SANDBANK_URL).toBe(url);
    expect((await sandbankMerchant()).url).toBe(url);
  });

  it('fails saying how to start a server when no global setup ran, or naming the url nothing answers at', async () => {
    const url = process.env.SANDBANK_URL;
    delete process.env.SANDBANK_URL;
    try {
      await expect(sandbankMerchant()).rejects.toThrow(
        /no Sandbank server for this test run \(SANDBANK_URL is not set\)[\s\S]*sandbank\/testing\/vitest-setup[\s\S]*sandbank\/testing\/jest-setup[\s\S]*npx sandbank test -- /,
      );
      const nowhere = `http://127.0.0.1:${await closedPort()}`;
      process.env.SANDBANK_URL = nowhere;
      await expect(sandbankMerchant()).rejects.toThrow(
        `the Sandbank server at ${nowhere} does not answer (connect ECONNREFUSED`,
      );
    } finally {
      process.env.SANDBANK_URL = url;
    }
  });
});

describe('sandbankGlobalSetup’s stop', () => {
  it('stops the server and takes SANDBANK_URL back', async () => {
    const before = process.env.SANDBANK_URL;
    delete process.env.SANDBANK_URL;
    try {
      const stop = await sandbankGlobalSetup();
      const url = String(process.env.SANDBANK_URL);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await sandbankMerchant()).url).toBe(url);
      await stop();
      expect(process.env.SANDBANK_URL).toBeUndefined();
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      if (before !== undefined) process.env.SANDBANK_URL = before;
    }
  });
});

describe('the sandbank package', () => {
  let packed: PackedInstall;
  let consumer: string;
  let files: string[];

  beforeAll(async () => {
    // One pack and one empty project for every check below, with the examples' test runners.
    packed = await installPackedPackage({ tools: ['vitest', 'jest'] });
    consumer = packed.consumer;
    files = packed.files;
    // Each runner's example as a project of its own (its test files and its runner's configuration),
    // in a folder of the consumer project, which has the package installed.
    for (const example of ['vitest', 'jest', 'node-test']) {
      cpSync(join(ROOT, 'examples', 'testing', example), join(consumer, example), { recursive: true });
    }
  }, 180_000);
  afterAll(() => packed?.remove());

  it('ships the build, the migrations and the web assets, and none of the sources or tests', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'bin/sandbank.js',
        'dist/testing.js',
        'dist/testing.d.ts',
        'dist/testing-vitest-setup.js',
        'dist/testing-vitest-setup.d.ts',
        'dist/testing-jest-setup.js',
        'dist/testing-jest-setup.d.ts',
        'dist/testing-jest-teardown.js',
        'dist/testing-jest-teardown.d.ts',
        'dist/main.js',
        'dist/cli.js',
        'dist/pglite-worker.js',
        'dist/pglite/data.tar',
        'migrations/meta/_journal.json',
        'src/web/assets/page.css',
        'docs/guide/testing.md',
        'docs/guide/fixtures.md',
        'docs/reference/configuration.md',
        'docs/README.md',
        'fixtures/month-of-history.json',
        'fixtures/returned-ach.json',
        'fixtures/decline-mix.json',
        'fixtures/bank-rails.json',
        // The snapshot whole: Postgres does not start without its relation maps.
        'dist/pglite/data/global/pg_filenode.map',
        'dist/pglite/data/base/5/pg_filenode.map',
        'dist/pglite/folders.json',
      ]),
    );
    const stray = files.filter(
      (path) =>
        path.startsWith('test/') ||
        path.endsWith('.js.map') ||
        path.startsWith('node_modules/') ||
        // Users' docs only: the maintainers' notes and decision records stay in the clone.
        path.startsWith('docs/internals/') ||
        path.startsWith('docs/decisions/') ||
        (path.startsWith('src/') && !path.includes('/assets/')),
    );
    expect(stray).toEqual([]);
  });

  it('loads the server’s code only when startSandbank() is called, not on import', () => {
    // The modules importing sandbank/testing loads: dist/testing.js and its static imports, transitively.
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const source = readFileSync(file, 'utf8');
      for (const [, path] of source.matchAll(/^(?:import|export)\s[^;]*?["'](\.{1,2}\/[^"']+)["']/gm))
        visit(join(dirname(file), path as string));
    };
    visit(join(consumer, 'node_modules', 'sandbank', 'dist', 'testing.js'));
    const bytes = [...loaded].reduce((sum, file) => sum + statSync(file).size, 0);
    // About 20 kB today; the server is megabytes.
    expect(bytes).toBeLessThan(200_000);
  });

  // Each example as a user runs it, from its folder, with its runner's own configuration: one server
  // for the run (the runner's global setup, or the sandbank test wrapper), a merchant per file.
  it('runs the node:test example against the packed package (npx sandbank test -- node --test)', async () => {
    const result = await run(
      'npx',
      ['sandbank', 'test', '--', 'node', '--test'],
      join(consumer, 'node-test'),
      {
        SANDBANK_URL: '',
      },
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/sandbank test: a Sandbank at http:\/\/127\.0\.0\.1:\d+ \(SANDBANK_URL\)/);
    expect(result.output).toMatch(/# pass 4\b/);
    expect(result.output).toMatch(/# fail 0\b/);
  }, 120_000);

  it('passes on the exit code of the command it wraps, and without it the example fails saying why', async () => {
    const failing = await run(
      'npx',
      ['sandbank', 'test', '--', 'node', '-e', 'process.exit(process.env.SANDBANK_URL ? 3 : 4)'],
      consumer,
    );
    expect(failing.code, failing.output).toBe(3);
    const bare = await run(process.execPath, ['--test'], join(consumer, 'node-test'), { SANDBANK_URL: '' });
    expect(bare.code).not.toBe(0);
    expect(bare.output).toContain('no Sandbank server for this test run (SANDBANK_URL is not set)');
    expect(bare.output).toContain('npx sandbank test -- <command>');
  }, 120_000);

  it('runs the vitest example against the packed package (npx vitest run, its globalSetup)', async () => {
    // SANDBANK_URL empty: the global setup starts a server of its own (a set one would be used).
    const result = await run('npx', ['vitest', 'run'], join(consumer, 'vitest'), { SANDBANK_URL: '' });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Test Files\s+2 passed \(2\)/);
    expect(result.output).toMatch(/Tests\s+4 passed \(4\)/);
  }, 120_000);

  it('runs the Jest example against the packed package (npx jest, its globalSetup and globalTeardown)', async () => {
    const result = await run('npx', ['jest'], join(consumer, 'jest'), {
      NODE_OPTIONS: '--experimental-vm-modules',
      SANDBANK_URL: '',
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Test Suites:\s+2 passed, 2 total/);
    expect(result.output).toMatch(/Tests:\s+4 passed, 4 total/);
  }, 120_000);

  it('gives TypeScript users the types of sandbank/testing', () => {
    const file = join(consumer, 'typed.ts');
    writeFileSync(
      file,
      [
        "import { startSandbank, type Sandbank, type SandbankEvent } from 'sandbank/testing';",
        'const sandbank: Sandbank = await startSandbank({ port: 0, logLevel: "silent" });',
        'const hooks = await sandbank.webhookReceiver({ events: ["collection.created"] });',
        'const event: SandbankEvent = await hooks.waitFor("collection.created", (e) => e.data.object.id !== "");',
        'const seconds: number = (await sandbank.advanceClock({ seconds: 60 })).offset_ms;',
        'console.log(event.type, seconds);',
        '// @ts-expect-error advanceClock takes seconds or to, not minutes',
        'await sandbank.advanceClock({ minutes: 1 });',
        'await sandbank.close();',
        "import { sandbankMerchant, type SharedSandbankMerchant } from 'sandbank/testing';",
        "import vitestSetup from 'sandbank/testing/vitest-setup';",
        "import jestSetup from 'sandbank/testing/jest-setup';",
        "import jestTeardown from 'sandbank/testing/jest-teardown';",
        'const stop: () => Promise<void> = await vitestSetup();',
        "const shop: SharedSandbankMerchant = await sandbankMerchant({ name: 'Typed' });",
        'const base: string = shop.url;',
        'const clock = await shop.advanceClock({ to: new Date() });',
        'console.log(base, clock.now);',
        'await shop.close();',
        'await stop();',
        'const nothing: void = await jestSetup();',
        'await jestTeardown();',
        'console.log(nothing);',
        '',
      ].join('\n'),
    );
    const program = ts.createProgram([file], {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      noEmit: true,
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(errors).toEqual([]);
    const resolved = program.getSourceFiles().map((source) => source.fileName);
    for (const name of ['testing', 'testing-vitest-setup', 'testing-jest-setup', 'testing-jest-teardown'])
      expect(resolved).toContain(join(consumer, 'node_modules', 'sandbank', 'dist', `${name}.d.ts`));
  });

  it('runs the node:test example in this clone too (sandbank/testing resolves to the build)', async () => {
    expect(existsSync(join(ROOT, 'dist', 'testing.js'))).toBe(true);
    const folder = join('examples', 'testing', 'node-test');
    const result = await run(
      process.execPath,
      [
        join('bin', 'sandbank.js'),
        'test',
        '--',
        process.execPath,
        '--test',
        join(folder, 'checkout.test.mjs'),
        join(folder, 'orders.test.mjs'),
      ],
      ROOT,
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/# pass 4\b/);
  }, 120_000);
});
