/**
 * `sandbank trigger` against a real server process: it produces an event of the type it is given
 * on the key's merchant (over POST /v1/simulate/events), with --set overrides, and says why when
 * the server refuses.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT, type ServerProcess, startServerProcess } from '../server-process.ts';

vi.setConfig({ testTimeout: 90_000 });

const run = promisify(execFile);
let server: ServerProcess;

beforeAll(async () => {
  server = await startServerProcess({ args: ['--memory'], postgres: true });
});
afterAll(async () => {
  await server?.stop();
});

async function sandbank(args: string[], env: Record<string, string> = {}) {
  const environment: Record<string, string> = { ...(process.env as Record<string, string>) };
  delete environment.SANDBANK_SECRET_KEY;
  Object.assign(environment, env);
  try {
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'bin', 'sandbank.js'), ...args], {
      cwd: ROOT,
      env: environment,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function signUp(name: string): Promise<string> {
  const response = await fetch(`${server.url}/v1/merchants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(response.status).toBe(201);
  return String(((await response.json()) as { secret_key: string }).secret_key);
}

async function get(key: string, path: string) {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return (await response.json()) as Record<string, unknown>;
}

describe('sandbank trigger', () => {
  it('--help describes it', async () => {
    const help = await sandbank(['trigger', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('sandbank trigger EVENT_TYPE [--set key=value ...]');
    expect(help.stdout).toContain('POST /v1/simulate/events');
  });

  it('triggers the type with its overrides and prints the event and the run', async () => {
    const key = await signUp('CLI Trigger');
    const result = await sandbank(
      [
        'trigger',
        'transfer.returned',
        '--set',
        'amount=12.50',
        '--set',
        'return_code=R02',
        '--api',
        server.url,
      ],
      { SANDBANK_SECRET_KEY: key },
    );
    expect(result.code, result.stderr).toBe(0);
    const [, eventId, transferId] =
      /^Triggered transfer\.returned (evt_\w+) on (tr_\w+)\n/.exec(result.stdout) ?? [];
    expect(eventId, result.stdout).toBeDefined();
    expect(result.stdout).toMatch(/transfer\.created\s+tr_/);
    expect(await get(key, `/v1/transfers/${transferId}`)).toMatchObject({
      amount: 12.5,
      state: 'returned',
      return_code: 'R02',
    });
    expect(await get(key, `/v1/events/${eventId}`)).toMatchObject({ type: 'transfer.returned' });

    const json = await sandbank([
      'trigger',
      'virtual_card.frozen',
      '--api',
      server.url,
      '--key',
      key,
      '--json',
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      object: 'triggered_event',
      event: { type: 'virtual_card.frozen' },
    });

    const list = await sandbank(['trigger', '--list', '--api', server.url, '--key', key]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^payout\.failed\n .*\n {2}--set amount, currency, .*return_code/m);
  });

  it('says why the server refused: an override the type does not take, an unknown type, no key', async () => {
    const key = await signUp('CLI Trigger Refused');
    const inapplicable = await sandbank([
      'trigger',
      'collection.created',
      '--set',
      'return_code=R01',
      '--api',
      server.url,
      '--key',
      key,
    ]);
    expect(inapplicable.code).toBe(1);
    expect(inapplicable.stderr).toMatch(
      /the server refused the trigger \(400\): return_code cannot be set on collection\.created/,
    );
    const unknown = await sandbank(['trigger', 'nothing.happened', '--api', server.url, '--key', key]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('is not an event type this sandbox sends');
    const noKey = await sandbank(['trigger', 'collection.created', '--api', server.url]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('trigger needs --key sk_test_... (or SANDBANK_SECRET_KEY)');
    expect((await get(key, '/v1/collections')).data).toEqual([]);
  });
});
