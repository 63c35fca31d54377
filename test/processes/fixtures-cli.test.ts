// biome-ignore-all lint/suspicious/noTemplateCurlyInString: fixture references are written ${step:field} in plain strings.
/**
 * `sandbank fixtures apply` against a real server process: it applies a shipped fixture by name or a
 * document from a file as the merchant of its key (POST /v1/simulate/fixtures), prints the steps,
 * and says which step failed when one does.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { sandbank, useCliServer } from './cli.ts';

vi.setConfig({ testTimeout: 90_000 });

const server = useCliServer();
const signUp = server.signUp;
const get = (key: string, path: string) => server.call(key, 'GET', path);
const folder = mkdtempSync(join(tmpdir(), 'sandbank-fixtures-'));
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

describe('sandbank fixtures apply', () => {
  it('--help describes it', async () => {
    const help = await sandbank(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('sandbank fixtures apply <file.json|name> [--api http://localhost:4242]');
    expect(help.stdout).toContain('POST /v1/simulate/fixtures');
  });

  it('applies a shipped fixture by name, as the merchant of the key', async () => {
    const key = await signUp('CLI Fixtures');
    const other = await signUp('CLI Fixtures Bystander');
    const result = await sandbank(['fixtures', 'apply', 'decline-mix', '--api', server.url], {
      SANDBANK_SECRET_KEY: key,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Applied decline-mix: 12 steps ran\.\n/);
    expect(result.stdout).toMatch(/fraudulent\s+402 {2}POST \/v1\/card_payments/);
    expect(((await get(key, '/v1/card_payments?limit=100')).body.data as unknown[]).length).toBe(10);
    expect((await get(other, '/v1/card_payments')).body.data).toEqual([]);
  });

  it('applies a document from a file (--json prints the answer), and names the step that failed', async () => {
    const key = await signUp('CLI Fixture File');
    const file = join(folder, 'mine.json');
    writeFileSync(
      file,
      JSON.stringify({
        steps: [
          {
            id: 'c',
            method: 'POST',
            path: '/v1/collect',
            body: { amount: 4, currency: 'USD', reference: 'cli-fx' },
          },
          { clock: { advance: 'P1D' } },
          { id: 'read', method: 'GET', path: '/v1/collections/${c:reference}' },
        ],
      }),
    );
    const json = await sandbank(['fixtures', 'apply', file, '--api', server.url, '--key', key, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const answer = JSON.parse(json.stdout) as { steps: { id: string; object: { state?: string } }[] };
    expect(answer).toMatchObject({ object: 'fixture_run', name: null });
    expect(answer.steps[2]).toMatchObject({ id: 'read', object: { state: 'expired' } });

    // The same document again: its reference is taken, so the first step fails (409).
    const again = await sandbank(['fixtures', 'apply', file, '--api', server.url, '--key', key]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /the server refused the fixture \(422\): Fixture steps\[0\] \(c\) failed: POST \/v1\/collect answered 409/,
    );

    const bad = join(folder, 'bad.json');
    writeFileSync(bad, JSON.stringify({ steps: [{ method: 'POST', path: '/v1/simulate/reset' }] }));
    const refused = await sandbank(['fixtures', 'apply', bad, '--api', server.url, '--key', key]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /\(400\): Invalid fixture step steps\[0\], field path: a fixture cannot reset the sandbox/,
    );
  });

  it('says why it could not: no key, an unknown name, a missing file, no server', async () => {
    const noKey = await sandbank(['fixtures', 'apply', 'decline-mix', '--api', server.url]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('fixtures apply needs --key sk_test_... (or SANDBANK_SECRET_KEY)');
    const key = await signUp('CLI Fixture Errors');
    const unknown = await sandbank(['fixtures', 'apply', 'nope', '--api', server.url, '--key', key]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No shipped fixture is named "nope"');
    const missing = await sandbank(['fixtures', 'apply', join(folder, 'none.json'), '--key', key]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no fixture file');
    const nowhere = await sandbank([
      'fixtures',
      'apply',
      'decline-mix',
      '--api',
      'http://127.0.0.1:9',
      '--key',
      key,
    ]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('no Sandbank server answered at http://127.0.0.1:9');
  });
});
