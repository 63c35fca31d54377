/**
 * `sandbank logs tail` against a real server process: started, it prints each new request of the
 * key's merchant as one line (time, method, path, status, operation, latency, request id) — or as
 * JSON with --json, only the 4xx with --status 4xx — and stops on Ctrl-C. The CLI's own requests
 * are logged with the source cli; the tail's reads are not logged.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sandbank, useCliServer } from './cli.ts';
import { ROOT } from './server-process.ts';

vi.setConfig({ testTimeout: 90_000 });

const server = useCliServer();
const tails = new Set<ChildProcess>();

afterEach(() => {
  for (const child of tails) child.kill('SIGKILL');
  tails.clear();
});

/** Starts `sandbank logs tail …`; resolves once it says it is tailing, with what it prints so far. */
async function tail(args: string[]) {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'sandbank.js'), 'logs', 'tail', ...args], {
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), SANDBANK_SECRET_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  tails.add(child);
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => {
    out.stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await vi.waitFor(() => expect(out.stderr).toContain('Tailing the request log'), { timeout: 60_000 });
  return { child, out, exited };
}

describe('sandbank logs tail', () => {
  it('--help describes it', async () => {
    const help = await sandbank(['logs', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      'sandbank logs tail [--api URL] [--key sk_test_...] [--status 4xx] [--json]',
    );
  });

  it('prints each new request as a line, and stops on Ctrl-C', async () => {
    const key = await server.signUp('CLI tail');
    await server.call(key, 'GET', '/v1/clock');
    const { child, out, exited } = await tail(['--api', server.url, '--key', key]);
    const collected = await fetch(`${server.url}/v1/collect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 5, currency: 'USD', reference: 'tail-1' }),
    });
    const id = collected.headers.get('request-id') as string;
    await server.call(key, 'POST', '/v1/collect', { amount: 'x', currency: 'USD' });
    await vi.waitFor(() => expect(out.stdout.split('\n').length).toBeGreaterThanOrEqual(3), {
      timeout: 30_000,
    });
    const [first, second] = out.stdout.trim().split('\n');
    expect(first).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  POST    /v1/collect  200  createCollection  \\d+ ms  ${id}$`,
      ),
    );
    expect(second).toMatch(
      / {2}POST {4}\/v1\/collect {2}400 amount_invalid {2}createCollection {2}\d+ ms {2}req_\w+$/,
    );
    // The request logged before the tail started is not printed; its own reads are not logged.
    expect(out.stdout).not.toContain('/v1/clock');
    expect(out.stdout).not.toContain('/v1/requests');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('--status 4xx --json: only the refused requests, as JSON; the CLI’s own requests are the cli’s', async () => {
    const key = await server.signUp('CLI tail JSON');
    const { child, out, exited } = await tail([
      '--api',
      server.url,
      '--key',
      key,
      '--status',
      '4xx',
      '--json',
    ]);
    await server.call(key, 'GET', '/v1/clock');
    const reset = await sandbank(['reset', '--api', server.url, '--key', key]);
    expect(reset.code, reset.stderr).toBe(0);
    const trigger = await sandbank(['trigger', 'no.such_type', '--api', server.url, '--key', key]);
    expect(trigger.code).toBe(1);
    await vi.waitFor(() => expect(out.stdout).toContain('\n'), { timeout: 30_000 });
    const [line] = out.stdout.trim().split('\n');
    expect(JSON.parse(line as string)).toMatchObject({
      object: 'request_log',
      method: 'POST',
      path: '/v1/simulate/events',
      operation: 'triggerEvent',
      source: 'cli',
    });
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('says why it cannot: no key, a wrong key, a bad filter', async () => {
    const noKey = await sandbank(['logs', 'tail', '--api', server.url]);
    expect(noKey.stderr).toContain('logs tail needs --key sk_test_... (or SANDBANK_SECRET_KEY)');
    const wrong = await sandbank([
      'logs',
      'tail',
      '--api',
      server.url,
      '--key',
      'sk_test_nobody00000000000000',
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/the server refused to read the request log \(401\)/);
    const key = await server.signUp('CLI tail refused');
    const bad = await sandbank(['logs', 'tail', '--api', server.url, '--key', key, '--status', 'teapot']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/\(400\): Invalid status/);
  });
});
