/**
 * `sandbank check-webhooks` against a real server process and the sample handlers of
 * examples/webhook-handlers: the correct one passes (exit 0), the buggy one fails (exit 1) with each
 * broken scenario named and explained; --junit writes the report CI reads.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { startHandler as startBuggy } from '../../examples/webhook-handlers/buggy.mjs';
import { startHandler as startCorrect } from '../../examples/webhook-handlers/correct.mjs';
import { sandbank, useCliServer } from './cli.ts';

vi.setConfig({ testTimeout: 120_000 });

const server = useCliServer();

describe('sandbank check-webhooks', () => {
  it('--help describes it', async () => {
    const help = await sandbank(['check-webhooks', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('sandbank check-webhooks URL [--secret whsec_...]');
  });

  it('passes the correct handler and fails the buggy one, writing JUnit', async () => {
    const key = await server.signUp('CLI Check');
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const correct = await startCorrect({ api: server.url, key, secret });
    const buggy = await startBuggy({ api: server.url, key });
    const junit = join(mkdtempSync(join(tmpdir(), 'sandbank-check-')), 'report.xml');
    try {
      const pass = await sandbank(
        ['check-webhooks', correct.url, '--secret', secret, '--timeout-ms', '3000', '--api', server.url],
        { SANDBANK_SECRET_KEY: key },
      );
      expect(pass.code, pass.stdout + pass.stderr).toBe(0);
      expect(pass.stdout).toContain(`signing with the given secret`);
      expect(pass.stdout).toMatch(/PASSED: 13 of 13 passed/);

      const fail = await sandbank([
        'check-webhooks',
        buggy.url,
        '--timeout-ms',
        '2000',
        '--junit',
        junit,
        '--api',
        server.url,
        '--key',
        key,
      ]);
      expect(fail.code, fail.stderr).toBe(1);
      expect(fail.stdout).toMatch(/Its signing secret: whsec_/);
      expect(fail.stdout).toMatch(/FAIL signature_missing\s+No signature header/);
      expect(fail.stdout).toMatch(/TIME slow_acknowledgement/);
      expect(fail.stdout).toMatch(/ok {3}valid_delivery/);
      expect(fail.stdout).toMatch(/FAILED: 4 of 13 passed, 8 failed, 1 timed out/);
      const xml = readFileSync(junit, 'utf8');
      expect(xml.match(/<testcase /g)?.length).toBe(13);
      expect(xml).toContain('tests="13" failures="9"');

      // The endpoint is reused by URL (it signs with the secret it was created with).
      const again = await sandbank([
        'check-webhooks',
        correct.url,
        '--json',
        '--api',
        server.url,
        '--key',
        key,
      ]);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ state: 'passed', url: correct.url });
    } finally {
      await correct.close();
      await buggy.close();
    }
  });
});
