/**
 * `sandbank reset` against a real server process: it resets the merchant of the key it is given
 * (over POST /v1/simulate/reset), prints what it deleted, and says why when it cannot.
 */
import { describe, expect, it, vi } from 'vitest';
import { sandbank, useCliServer } from './cli.ts';

vi.setConfig({ testTimeout: 90_000 });

const server = useCliServer();
const signUp = server.signUp;
const call = server.call;

describe('sandbank reset', () => {
  it('--help describes it', async () => {
    const help = await sandbank(['reset', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/sandbank reset \[--api .*\] \[--key sk_test_\.\.\.\]/);
    expect(help.stdout).toContain('POST /v1/simulate/reset');
  });

  it("resets the key's merchant only, and prints what it deleted", async () => {
    const key = await signUp('CLI Reset');
    const other = await signUp('CLI Bystander');
    for (const k of [key, other]) {
      expect(
        (await call(k, 'POST', '/v1/collect', { amount: 3, currency: 'USD', reference: 'cli' })).status,
      ).toBe(200);
      expect((await call(k, 'POST', '/v1/clock/advance', { seconds: 3600 })).status).toBe(200);
    }
    const result = await sandbank(['reset', '--api', server.url], { SANDBANK_SECRET_KEY: key });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Reset mch_\w+: the clock is back to real time/);
    expect(result.stdout).toMatch(/collections\s+1\n/);
    expect(result.stdout).toContain('Kept: the merchant, its API keys and its webhook endpoints.');
    expect((await call(key, 'GET', '/v1/collections/cli')).status).toBe(404);
    expect((await call(key, 'GET', '/v1/clock')).body).toMatchObject({ offset_ms: 0, frozen: false });
    expect((await call(other, 'GET', '/v1/collections/cli')).status).toBe(200);

    // --json prints the answer itself; --key wins over the environment.
    const json = await sandbank(['reset', '--api', `${server.url}/`, '--key', key, '--json'], {
      SANDBANK_SECRET_KEY: other,
    });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ object: 'reset', deleted: { collections: 0 } });
    expect((await call(other, 'GET', '/v1/collections/cli')).status).toBe(200);
  });

  it('says why it could not: no key, a wrong key, no server', async () => {
    const noKey = await sandbank(['reset', '--api', server.url]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('reset needs --key sk_test_... (or SANDBANK_SECRET_KEY)');
    const wrong = await sandbank(['reset', '--api', server.url, '--key', 'sk_test_nobody00000000000000']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/the server refused the reset \(401\)/);
    const nowhere = await sandbank(['reset', '--api', 'http://127.0.0.1:9', '--key', 'sk_test_x0000000']);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('no Sandbank server answered at http://127.0.0.1:9');
  });

  it('runs the command when its options come first (never the server in its place)', async () => {
    const key = await signUp('CLI Options First');
    const reset = await sandbank(['--api', server.url, '--key', key, 'reset']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/^Reset mch_\w+: the clock is back to real time/);
  });
});
