/**
 * `sandbank test -- COMMAND`: one Sandbank for a test run whose runner has no global setup. The
 * command gets the server's url in SANDBANK_URL (its own, over any the caller had), the wrapper
 * exits with the command's exit code, passes a SIGTERM on to it and stops the server after.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { sandbank } from './cli.ts';
import { ROOT } from './server-process.ts';

vi.setConfig({ testTimeout: 90_000 });

/** A command (node -e) that signs up a merchant on SANDBANK_URL and prints the url and the answer. */
const SIGN_UP = `
const url = process.env.SANDBANK_URL;
const response = await fetch(url + '/v1/merchants', {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Wrapped"}',
});
console.log(JSON.stringify({ url, status: response.status, key: (await response.json()).secret_key }));
process.exit(7);
`;

describe('sandbank test', () => {
  it('--help describes it; without a command it prints the usage and exits 2', async () => {
    const help = await sandbank(['test', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: sandbank test [--port N] -- COMMAND [ARGS...]');
    expect(help.stdout).toContain('npx sandbank test -- node --test');
    const bare = await sandbank(['test']);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toContain('Usage: sandbank test');
    expect((await sandbank(['--help'])).stdout).toContain('sandbank test [--port N] -- COMMAND [ARGS...]');
  });

  it('runs the command against a server of its own, exits with its code and stops the server', async () => {
    const result = await sandbank(['test', '--', process.execPath, '--input-type=module', '-e', SIGN_UP], {
      SANDBANK_URL: 'http://127.0.0.1:1',
    });
    expect(result.code, result.stderr).toBe(7);
    const printed = JSON.parse(result.stdout) as { url: string; status: number; key: string };
    expect(printed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(printed).toMatchObject({ status: 201, key: expect.stringMatching(/^sk_test_/) });
    expect(result.stderr).toContain(`sandbank test: a Sandbank at ${printed.url} (SANDBANK_URL)`);
    await expect(fetch(`${printed.url}/healthz`)).rejects.toThrow();
  });

  it('says so, and exits 127, when the command cannot be run', async () => {
    const result = await sandbank(['test', '--', 'sandbank-no-such-command']);
    expect(result.code).toBe(127);
    expect(result.stderr).toContain('sandbank test: could not run sandbank-no-such-command');
  });

  it('passes a SIGTERM on to the command and stops the server once it has ended', async () => {
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'bin', 'sandbank.js'),
        'test',
        '--',
        process.execPath,
        '-e',
        "process.on('SIGTERM', () => { console.log('command got SIGTERM'); process.exit(5); }); console.log('ready ' + process.env.SANDBANK_URL); setInterval(() => {}, 1000);",
      ],
      // A group of its own, killed whole should the test fail half-way (the SIGTERM below goes to the
      // wrapper alone: passing it on is what is tested).
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    let output = '';
    let stdout = '';
    const ready = new Promise<string>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        stdout += chunk.toString();
        const match = /^ready (\S+)/m.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await ready;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited, output).toBe(5);
      expect(output).toContain('command got SIGTERM');
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }
  });
});
