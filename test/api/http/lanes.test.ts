/**
 * A merchant's heavy requests (clock advances, fixtures, trigger recipes, resets) and a credential's
 * GraphQL requests wait in a lane of their own: a few run at once, the rest queue behind each other,
 * and past the queue's bound the answer is 429 with Retry-After. Another merchant never waits in it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_PER_CREDENTIAL, GRAPHQL_WAITING_PER_CREDENTIAL } from '../../../src/api/graphql/lanes.ts';
import { HEAVY_PER_MERCHANT, HEAVY_WAITING_PER_MERCHANT } from '../../../src/api/rest/middleware/lanes.ts';
import { LaneFull, Lanes } from '../../../src/kernel/lanes.ts';
import { createTestApp, type TestApp } from '../../support/harness.ts';

type Json = Record<string, unknown>;

describe('Lanes', () => {
  it('runs at most `concurrency` of a key at once, the rest in arrival order; other keys never wait', async () => {
    const lanes = new Lanes(2, 10);
    const started: string[] = [];
    const gates = new Map<string, () => void>();
    const task = (name: string) => () =>
      new Promise<string>((resolve) => {
        started.push(name);
        gates.set(name, () => resolve(name));
      });
    const runs = ['a1', 'a2', 'a3', 'a4'].map((name) => lanes.run('a', task(name)));
    const other = lanes.run('b', task('b1'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['a1', 'a2', 'b1']);
    expect(lanes.load('a')).toEqual({ running: 2, waiting: 2 });
    gates.get('a2')?.();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    gates.get('b1')?.();
    expect(await other).toBe('b1');
    for (const name of ['a1', 'a3']) gates.get(name)?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started.at(-1)).toBe('a4');
    gates.get('a4')?.();
    expect(await Promise.all(runs)).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(lanes.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses one more than `maxWaiting` waiting with LaneFull, and frees the slot of work that failed', async () => {
    const lanes = new Lanes(1, 1);
    let open!: () => void;
    const first = lanes.run('k', () => new Promise<void>((resolve) => (open = resolve)));
    const second = lanes.run('k', async () => 'second');
    await expect(lanes.run('k', async () => 'third')).rejects.toBeInstanceOf(LaneFull);
    open();
    await first;
    expect(await second).toBe('second');
    await expect(lanes.run('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lanes.run('k', async () => 'after')).toBe('after');
  });
});

describe('lanes of the API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers a merchant's heavy request past its lane's queue 429 rate_limited with Retry-After; another merchant's goes through", async () => {
    const busy = await t.merchant('Many Advances');
    const other = await t.merchant('One Advance');
    await t.rest('POST', '/v1/clock/freeze', { key: busy.secretKey });
    const burst = HEAVY_PER_MERCHANT + HEAVY_WAITING_PER_MERCHANT + 3;
    const answers = Array.from({ length: burst }, () =>
      t.rest<Json>('POST', '/v1/clock/advance', { key: busy.secretKey, body: { seconds: 1 } }),
    );
    const alone = await t.rest<Json>('POST', '/v1/clock/advance', {
      key: other.secretKey,
      body: { seconds: 1 },
    });
    expect(alone.status, alone.text).toBe(200);
    const done = await Promise.all(answers);
    const refused = done.filter((answer) => answer.status === 429);
    expect(done.filter((answer) => answer.status === 200)).toHaveLength(
      HEAVY_PER_MERCHANT + HEAVY_WAITING_PER_MERCHANT,
    );
    expect(refused).toHaveLength(3);
    for (const answer of refused) {
      expect(answer.headers.get('retry-after')).toBe('1');
      expect((answer.body.error as Json).code).toBe('rate_limited');
    }
    // Every advance that ran moved the clock one second: they queued, none was lost or doubled.
    const clock = await t.rest<Json>('GET', '/v1/clock', { key: busy.secretKey });
    const frozenAt = Date.parse(String(clock.body.now));
    const first = Date.parse(String(done.find((answer) => answer.status === 200)?.body.now));
    expect(frozenAt - first).toBe((HEAVY_PER_MERCHANT + HEAVY_WAITING_PER_MERCHANT - 1) * 1000);
  });

  it("answers a credential's GraphQL request past its lane's queue 429 rate_limited in GraphQL's shape", async () => {
    const busy = await t.merchant('Many Queries');
    const burst = GRAPHQL_PER_CREDENTIAL + GRAPHQL_WAITING_PER_CREDENTIAL + 2;
    const answers = await Promise.all(
      Array.from({ length: burst }, () =>
        t.app.request('/graphql', {
          method: 'POST',
          headers: { authorization: `Bearer ${busy.secretKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ clock { now } }' }),
        }),
      ),
    );
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(2);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(burst - 2);
    const body = (await refused[0]?.json()) as { errors: { extensions: Json }[] };
    expect(refused[0]?.headers.get('retry-after')).toBe('1');
    expect(body.errors[0]?.extensions).toMatchObject({ code: 'rate_limited', status: 429 });
  });
});
