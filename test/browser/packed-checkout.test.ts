import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPackedPackage, NPX_LOCAL_ONLY, type PackedInstall, run } from '../processes/packed.ts';
import { freePort } from '../processes/server-process.ts';
import { launchChromium, screenshot, watchProblems } from './chromium.ts';

/**
 * The package as a user gets it: packed, installed in an empty folder, started with `npx sandbank`
 * (in memory, on a free port, with keys pinned through the environment so that the test knows them),
 * and a checkout paid in Debian's Chromium after the merchant's clock was moved five years ahead: the
 * page's test-card picker fills an expiry that is still ahead by the sandbox clock.
 *
 * It runs on PGlite in memory with the suite on either database: the server it starts is the
 * package's own, and a merchant whose clock is five years ahead must not be shared with other files.
 */

const SECRET_KEY = 'sk_test_packed00000000000000000000000000';
const PUBLIC_KEY = 'pk_test_packed00000000000000000000000000';
const FIVE_YEARS = 5 * 365 * 24 * 3600;

let packed: PackedInstall | undefined;
let server: ChildProcess | undefined;
let exited: Promise<number | null> | undefined;
let output = '';
let base = '';
let browser: Browser | undefined;

beforeAll(async () => {
  packed = await installPackedPackage();
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...NPX_LOCAL_ONLY,
    NODE_OPTIONS: '',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SANDBANK_SECRET_KEY: SECRET_KEY,
    SANDBANK_PUBLIC_KEY: PUBLIC_KEY,
  };
  delete env.DATABASE_URL;
  delete env.PUBLIC_URL;
  // Its own process group: npx starts the command under a shell, and the whole group is stopped.
  const child = spawn('npx', ['sandbank', '--memory', '--port', String(port)], {
    cwd: packed.consumer,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = child;
  exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npx sandbank exited with ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${base}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`npx sandbank did not become ready:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (server?.pid !== undefined && server.exitCode === null) {
    process.kill(-server.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (server?.pid !== undefined) process.kill(-server.pid, 'SIGKILL');
    }, 20_000);
    await exited;
    clearTimeout(timer);
  }
  packed?.remove();
}, 60_000);

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${SECRET_KEY}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

describe('the packed package, started with npx sandbank', () => {
  it('prints the pinned keys and serves the storage it was asked for', () => {
    expect(output).toContain('PGlite in memory');
    expect(output).toContain(SECRET_KEY);
  });

  it('takes a card payment in Chromium five years ahead by the merchant’s clock', async () => {
    const moved = await api<{ now: string }>('POST', '/v1/clock/advance', { seconds: FIVE_YEARS });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const clockYear = new Date(moved.body.now).getUTCFullYear();
    expect(clockYear).toBeGreaterThanOrEqual(new Date().getUTCFullYear() + 4);

    const created = await api<{ id: string; checkout_url: string }>('POST', '/v1/collect', {
      amount: 42.5,
      currency: 'USD',
      description: 'Packed package',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    // The link the server hands out names the port it was started on.
    expect(new URL(created.body.checkout_url).port).toBe(new URL(base).port);

    if (!browser) throw new Error('the browser did not launch');
    const context = await browser.newContext({ viewport: { width: 900, height: 1100 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const problems = await watchProblems(page);
      const opened = await page.goto(created.body.checkout_url);
      expect(opened?.status()).toBe(200);
      await expect(page.getByTestId('amount').textContent()).resolves.toBe('$42.50 USD');

      const picker = page.locator('a[data-card="4242424242424242"]');
      await expect(picker.getAttribute('data-exp-year')).resolves.toBe(String(clockYear + 5));
      await picker.click();
      await expect(page.inputValue('#number')).resolves.toBe('4242 4242 4242 4242');
      await expect(page.inputValue('#exp_year')).resolves.toBe(String(clockYear + 5));
      await page.click('[data-testid="pay-card"]');

      const status = page.getByTestId('status');
      await status.waitFor();
      await expect(status.getAttribute('data-state')).resolves.toBe('succeeded');
      await expect(page.getByTestId('status-text').textContent()).resolves.toContain('complete');
      await screenshot(page, 'packed-checkout-succeeded');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }

    const collection = await api<{ state: string; payments: { state: string; last4?: string }[] }>(
      'GET',
      `/v1/collections/${created.body.id}`,
    );
    expect(collection.status).toBe(200);
    expect(collection.body.state).toBe('succeeded');
    expect(collection.body.payments).toMatchObject([{ state: 'captured', last4: '4242' }]);
  });

  it("runs the CLI's commands from the installed package: fixtures, trigger, reset, listen, merchants create", async () => {
    if (!packed) throw new Error('the package was not installed');
    const cli = (args: string[], env: Record<string, string> = {}) =>
      run('npx', ['sandbank', ...args], packed!.consumer, { DATABASE_URL: '', ...env });
    const server = ['--api', base, '--key', SECRET_KEY];

    const fixture = await cli(['fixtures', 'apply', 'decline-mix', ...server]);
    expect(fixture.code, fixture.output).toBe(0);
    expect(fixture.output).toMatch(/Applied decline-mix: \d+ steps ran\./);

    const triggered = await cli(['trigger', 'refund.succeeded', '--set', 'amount=7.25', ...server]);
    expect(triggered.code, triggered.output).toBe(0);
    expect(triggered.output).toMatch(/Triggered refund\.succeeded evt_\w+ on re_\w+/);

    const reset = await cli(['reset', ...server]);
    expect(reset.code, reset.output).toBe(0);
    expect(reset.output).toMatch(/Reset mch_\w+: the clock is back to real time/);
    const events = await api<{ data: unknown[] }>('GET', '/v1/events');
    expect(events.body.data).toEqual([]);

    // listen: connects, prints its signing secret and says it is ready; stopped with its process group.
    const receiverPort = await freePort();
    const listener = spawn(
      'npx',
      ['sandbank', 'listen', ...server, '--forward-to', `http://127.0.0.1:${receiverPort}/hook`],
      { cwd: packed.consumer, env: { ...process.env, ...NPX_LOCAL_ONLY, NODE_OPTIONS: '' }, detached: true },
    );
    let heard = '';
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 60_000);
      const hear = (chunk: Buffer) => {
        heard += chunk.toString();
        if (/Ready: forwarding/.test(heard)) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      listener.stdout?.on('data', hear);
      listener.stderr?.on('data', hear);
      listener.once('exit', () => resolve(false));
    });
    if (listener.pid !== undefined && listener.exitCode === null) process.kill(-listener.pid, 'SIGTERM');
    expect(ready, heard).toBe(true);
    expect(heard).toMatch(/Signing secret whsec_[A-Za-z0-9+/]{43}=/);

    // merchants create works on the package's own storage (a PGlite folder of its own here).
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbank-packed-data-'));
    try {
      const created = await cli(['merchants', 'create', '--name', 'Packed Shop'], {
        SANDBANK_DATA_DIR: dataDir,
      });
      expect(created.code, created.output).toBe(0);
      expect(created.output).toMatch(/Secret key {2}sk_test_\w+/);
      expect(created.output).toMatch(/Public key {2}pk_test_\w+/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
