/**
 * `sandbank trigger` against a real server process: it produces an event of the type it is given
 * on the key's merchant (over POST /v1/simulate/events), with --set overrides, and says why when
 * the server refuses.
 */
import { describe, expect, it, vi } from 'vitest';
import { sandbank, useCliServer } from './cli.ts';

vi.setConfig({ testTimeout: 90_000 });

const server = useCliServer();
const signUp = server.signUp;
const get = async (key: string, path: string) => (await server.call(key, 'GET', path)).body;

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
