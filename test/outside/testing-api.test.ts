import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbank, startSandbank, type WebhookReceiver } from '../../src/testing.ts';
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

describe('the sandbank package', () => {
  let packed: PackedInstall;
  let consumer: string;
  let files: string[];

  beforeAll(async () => {
    // One pack and one empty project for every check below, with the examples' test runners.
    packed = await installPackedPackage({ tools: ['vitest', 'jest'] });
    consumer = packed.consumer;
    files = packed.files;
    for (const example of ['vitest.test.ts', 'jest.test.mjs', 'node-test.test.mjs']) {
      cpSync(join(ROOT, 'examples', 'testing', example), join(consumer, example));
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

  // Each example as a user runs it in a project that installed the package, its runner given the
  // file (the three sit side by side, and a runner left to find its own would take the others').
  it('runs the node:test example from an empty folder against the packed package (node --test)', async () => {
    const result = await run(process.execPath, ['--test', 'node-test.test.mjs'], consumer);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/# pass 2\b/);
    expect(result.output).toMatch(/# fail 0\b/);
  }, 120_000);

  it('runs the vitest example from an empty folder against the packed package (npx vitest run)', async () => {
    const result = await run('npx', ['vitest', 'run', 'vitest.test.ts'], consumer);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Tests\s+3 passed \(3\)/);
  }, 120_000);

  it('runs the Jest example from an empty folder against the packed package (npx jest)', async () => {
    const result = await run('npx', ['jest', 'jest.test.mjs'], consumer, {
      NODE_OPTIONS: '--experimental-vm-modules',
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Tests:\s+3 passed, 3 total/);
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
    expect(resolved).toContain(join(consumer, 'node_modules', 'sandbank', 'dist', 'testing.d.ts'));
  });

  it('runs the node:test example in this clone too (sandbank/testing resolves to the build)', async () => {
    expect(existsSync(join(ROOT, 'dist', 'testing.js'))).toBe(true);
    const result = await run(
      process.execPath,
      ['--test', join('examples', 'testing', 'node-test.test.mjs')],
      ROOT,
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/# pass 2\b/);
  }, 120_000);
});
