import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ROOT, startServerProcess } from './server-process.ts';

// Each test starts one to three real servers (PGlite initdb on a fresh folder takes seconds).
vi.setConfig({ testTimeout: 120_000 });

const SECRET = 'sk_test_startup000000000000000000000000';
const dirs: string[] = [];

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbank-data-'));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function collect(url: string, key: string, reference: string) {
  const res = await fetch(`${url}/v1/collect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 10, currency: 'USD', reference }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function getCollection(url: string, key: string, reference: string) {
  const res = await fetch(`${url}/v1/collections/${reference}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('npm start on the embedded database', () => {
  it('prints the keys on first start, the printed key works on POST /v1/collect, and after a restart the banner prints the same keys and the dashboard reveals it', async () => {
    const dir = dataDir();
    let key = '';
    let publicKey = '';
    const server = await startServerProcess({ env: { SANDBANK_DATA_DIR: dir } });
    try {
      key = /Secret key (sk_test_\w+)/.exec(server.output())?.[1] ?? '';
      expect(key).toMatch(/^sk_test_/);
      publicKey = /Public key (pk_test_\w+)/.exec(server.output())?.[1] ?? '';
      expect(publicKey).toMatch(/^pk_test_/);
      expect(server.output()).toMatch(/ — created now/);
      expect(server.output()).toContain('/checkout/');
      // Before the banner, a line per step of the start, in order, so a slow start shows where it is.
      const steps = [
        /^Sandbank: starting on PGlite, persisted in .+\/…$/m,
        /^Sandbank: opening the PGlite database and applying migrations…$/m,
        /^Sandbank: database ready \(\d+\.\d s\); preparing the default merchant…$/m,
        /^Sandbank: listening on http:\/\/127\.0\.0\.1:\d+$/m,
        /^ {2}Sandbank — payment simulation sandbox/m,
      ].map((step) => server.output().search(step));
      expect(
        steps.every((at) => at >= 0),
        JSON.stringify(steps),
      ).toBe(true);
      expect([...steps].sort((a, b) => a - b)).toEqual(steps);
      const res = await collect(server.url, key, 'first-start');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'success', reference: 'first-start' });
      expect(String(res.body.checkout_url)).toMatch(/\/checkout\/col_/);
    } finally {
      expect(await server.stop('SIGINT')).toBe(0);
    }
    const again = await startServerProcess({ env: { SANDBANK_DATA_DIR: dir } });
    try {
      // The restart's banner shows the keys as the first one did, in full (never a masked key).
      const banner = again.output().slice(again.output().indexOf('  Sandbank — payment'));
      expect(banner).toContain(`Secret key ${key}\n`);
      expect(banner).toContain(`Public key ${publicKey}\n`);
      expect(banner).toContain(`-H "Authorization: Bearer ${key}"`);
      expect(banner).not.toMatch(/[sp]k_test_…/);
      expect(banner).not.toMatch(/ created now/);
      // What the banner says is above or below is there: the dashboard link's merchant is below it.
      expect(banner.indexOf('Dashboard ')).toBeLessThan(banner.indexOf('Merchant '));
      expect(banner).toMatch(/one-time sign-in link for the merchant below/);
      expect(banner).not.toMatch(/link below/);
      // After the restart the dashboard, signed in by the banner's one-time link, reveals that key.
      const link = /Dashboard {2}(http\S+)/.exec(again.output())?.[1] ?? '';
      const signIn = await fetch(link, { redirect: 'manual' });
      expect(signIn.status).toBe(303);
      const cookie = (
        signIn.headers.getSetCookie().find((c) => c.startsWith('sandbank_session=')) ?? ''
      ).split(';')[0] as string;
      expect(cookie).toMatch(/^sandbank_session=./);
      const page = await (await fetch(`${again.url}/dashboard/keys`, { headers: { cookie } })).text();
      expect(page).not.toContain(key);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
      const revealed = await fetch(`${again.url}/dashboard/keys/reveal`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf }).toString(),
      });
      expect(revealed.headers.get('cache-control')).toBe('no-store');
      expect(await revealed.text()).toContain(`data-testid="secret-key-revealed">${key}<`);
    } finally {
      await again.stop();
    }
  });

  it('keeps acknowledged collections across Ctrl-C and across a crash (SIGKILL)', async () => {
    const dir = dataDir();
    const env = { SANDBANK_DATA_DIR: dir, SANDBANK_SECRET_KEY: SECRET };
    const first = await startServerProcess({ env });
    expect((await collect(first.url, SECRET, 'before-sigint')).status).toBe(200);
    expect(await first.stop('SIGINT')).toBe(0);

    const second = await startServerProcess({ env });
    expect((await getCollection(second.url, SECRET, 'before-sigint')).body.state).toBe('pending');
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await collect(second.url, SECRET, `before-kill-${i}`);
      if (res.status === 200) acknowledged.push(`before-kill-${i}`);
    }
    expect(acknowledged).toHaveLength(20);
    await second.stop('SIGKILL');

    const third = await startServerProcess({ env });
    try {
      for (const reference of ['before-sigint', ...acknowledged]) {
        const res = await getCollection(third.url, SECRET, reference);
        expect(res.status, reference).toBe(200);
      }
    } finally {
      expect(await third.stop('SIGTERM')).toBe(0);
    }
  });

  it('refuses a second process on the same data directory with a clear message', async () => {
    const dir = dataDir();
    const first = await startServerProcess({ env: { SANDBANK_DATA_DIR: dir } });
    try {
      await expect(startServerProcess({ env: { SANDBANK_DATA_DIR: dir } })).rejects.toThrow(
        /is in use by process \d+/,
      );
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    } finally {
      await first.stop();
    }
  });

  it('fails fast when the port is taken', async () => {
    const first = await startServerProcess({ args: ['--memory'] });
    try {
      const result = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'src/main.ts', '--memory', '--port', String(first.port)],
        {
          cwd: ROOT,
          env: { ...process.env, HOST: '127.0.0.1', DATABASE_URL: '' },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/already in use/);
    } finally {
      await first.stop();
    }
  });

  it('refuses a setting it cannot read before it touches any data folder', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'sandbank-badconfig-')), 'data');
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', '--port', '0'], {
      cwd: ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        DATABASE_URL: '',
        SANDBANK_DATA_DIR: dataDir,
        SANDBANK_MEMORY: 'yes',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/SANDBANK_MEMORY/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('never waits silently for a database that does not answer: progress lines, then a clear error', async () => {
    // A "Postgres" on loopback that accepts connections and never says a word.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--port', '0'], {
          cwd: ROOT,
          env: {
            ...process.env,
            HOST: '127.0.0.1',
            DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/nothing`,
            STARTUP_TIMEOUT_MS: '6000',
          },
        });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.once('exit', (code) => {
          clearTimeout(killer);
          resolve({ code, output });
        });
      });
      expect(result.code).toBe(1);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(result.output).toMatch(/starting on PostgreSQL/);
      expect(result.output).toMatch(/still opening PostgreSQL \(DATABASE_URL\) \(5 s\)/);
      expect(result.output).toMatch(/did not open within 6 s \(STARTUP_TIMEOUT_MS\)/);
    } finally {
      silent.close();
    }
  });

  it('the CLI creates a merchant whose keys work once the server starts', async () => {
    const dir = dataDir();
    const run = spawnSync(
      process.execPath,
      ['bin/sandbank.js', 'merchants', 'create', '--name', 'CLI Shop'],
      {
        cwd: ROOT,
        env: { ...process.env, SANDBANK_DATA_DIR: dir, DATABASE_URL: '' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const key = /Secret key\s+(sk_test_\w+)/.exec(run.stdout)?.[1];
    expect(key).toBeDefined();
    expect(existsSync(join(dir, 'sandbank.lock'))).toBe(false);
    const server = await startServerProcess({ env: { SANDBANK_DATA_DIR: dir } });
    try {
      expect((await collect(server.url, key ?? '', 'from-cli')).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

// Registered only when the suite runs against Postgres (CI does both runs).
const onPostgres = process.env.TEST_DATABASE_URL ? describe : () => undefined;
onPostgres('npm start on Postgres', () => {
  it('starts with DATABASE_URL, pins keys, and serves collections', async () => {
    const server = await startServerProcess({ postgres: true, env: { SANDBANK_SECRET_KEY: SECRET } });
    try {
      expect(server.output()).toContain('PostgreSQL');
      const reference = `pg-${server.port}-${Date.now()}`;
      expect((await collect(server.url, SECRET, reference)).status).toBe(200);
      expect((await getCollection(server.url, SECRET, reference)).body.state).toBe('pending');
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
    }
  }, 90_000);
});
