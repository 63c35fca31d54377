/**
 * A clock advance runs its window's due work in short transactions, a batch at a time, so that
 * another merchant's requests run while it is still going, and the advancing merchant never reads
 * its clock ahead of work that fell due before it. Mechanisms, not timings: the tests look at what
 * can be seen while the advance runs.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/client.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

type Json = Record<string, unknown>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** Work several batches long (a batch is at most 50 jobs: JOB_BATCH in the scheduler). */
const JOBS = 400;
const BATCH = 50;

/** `count` collections that expire 30 min from the merchant's clock: one expiry job each. */
async function collections(m: TestMerchant, count: number, tag: string): Promise<void> {
  const lanes = 4;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = lane; i < count; i += lanes) {
        const res = await t.rest('POST', '/v1/collect', {
          key: m.secretKey,
          body: { amount: '1.00', currency: 'USD', reference: `${tag}-${i}`, expires_in: 1800 },
        });
        expect(res.status, res.text).toBe(200);
      }
    }),
  );
}

interface Seen {
  done: number;
  pending: number;
  /** Pending work due before the instant the merchant's clock reads, in the same snapshot. */
  pendingBehindClock: number;
}

/** The merchant's due work and clock in one statement (one snapshot on Postgres). */
async function look(merchantId: string): Promise<Seen> {
  const [row] = await queryRows<{ done: number; pending: number; behind: number }>(
    t.database.db,
    sql`SELECT
        count(*) FILTER (WHERE j.state = 'done')::int AS done,
        count(*) FILTER (WHERE j.state = 'pending')::int AS pending,
        count(*) FILTER (WHERE j.state = 'pending' AND j.due_at < c.frozen_at)::int AS behind
      FROM scheduled_jobs j JOIN merchant_clocks c ON c.merchant_id = j.merchant_id
      WHERE j.merchant_id = ${merchantId} AND j.kind = 'collection.expire'`,
  );
  return { done: row?.done ?? 0, pending: row?.pending ?? 0, pendingBehindClock: row?.behind ?? 0 };
}

describe('a clock advance in batches', () => {
  it("commits its window batch by batch: mid-advance, another merchant's create and read complete and the advancing clock is never ahead of its work", async () => {
    const advancing = await t.merchant('Long Advance');
    const neighbour = await t.merchant('Neighbour');
    expect((await t.rest('POST', '/v1/clock/freeze', { key: advancing.secretKey })).status).toBe(200);
    await collections(advancing, JOBS, 'due');

    let finished = false;
    const advance = t
      .rest<Json>('POST', '/v1/clock/advance', { key: advancing.secretKey, body: { seconds: 3600 } })
      .finally(() => {
        finished = true;
      });

    // Look until a state is seen with part of the window done and part still to do.
    let partial: Seen | null = null;
    let neighbourRead: number | null = null;
    let neighbourDuringAdvance = false;
    while (!finished) {
      const seen = await look(advancing.id);
      if (seen.done > 0 && seen.pending > 0) {
        partial = seen;
        const created = await t.rest<Json>('POST', '/v1/collect', {
          key: neighbour.secretKey,
          body: { amount: '2.00', currency: 'USD' },
        });
        expect(created.status, created.text).toBe(200);
        const read = await t.rest<Json>('GET', `/v1/collections/${created.body.id}`, {
          key: neighbour.secretKey,
        });
        neighbourRead = read.status;
        // Still part of the window left once the neighbour has its answers.
        neighbourDuringAdvance = (await look(advancing.id)).pending > 0;
        break;
      }
    }
    const answer = await advance;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.ran).toHaveLength(JOBS);

    expect(partial, 'no state with part of the window done was ever visible').not.toBeNull();
    expect(partial?.pendingBehindClock).toBe(0);
    expect(neighbourRead).toBe(200);
    expect(neighbourDuringAdvance).toBe(true);
    const after = await look(advancing.id);
    expect(after).toEqual({ done: JOBS, pending: 0, pendingBehindClock: 0 });
  });

  it('a second advance of the same merchant waits for the first and starts where it ended', async () => {
    const m = await t.merchant('Two Advances');
    const frozen = await t.rest<Json>('POST', '/v1/clock/freeze', { key: m.secretKey });
    const start = Date.parse(String(frozen.body.now));
    await collections(m, BATCH * 3, 'twice');
    const [first, second] = await Promise.all([
      t.rest<Json>('POST', '/v1/clock/advance', { key: m.secretKey, body: { seconds: 3600 } }),
      t.rest<Json>('POST', '/v1/clock/advance', { key: m.secretKey, body: { seconds: 60 } }),
    ]);
    expect(first.status, first.text).toBe(200);
    expect(second.status, second.text).toBe(200);
    expect(Date.parse(String(first.body.now))).toBe(start + 3600_000);
    expect(Date.parse(String(second.body.now))).toBe(start + 3660_000);
    expect(first.body.ran).toHaveLength(BATCH * 3);
    expect(second.body.ran).toHaveLength(0);
  });

  it('a keyed advance runs in batches too, and its answer is replayed without running again', async () => {
    const m = await t.merchant('Keyed Advance');
    const frozen = await t.rest<Json>('POST', '/v1/clock/freeze', { key: m.secretKey });
    const start = Date.parse(String(frozen.body.now));
    await collections(m, BATCH * 2 + 1, 'keyed');
    const send = () =>
      t.rest<Json>('POST', '/v1/clock/advance', {
        key: m.secretKey,
        body: { seconds: 3600 },
        headers: { 'idempotency-key': 'advance-once' },
      });
    const first = await send();
    expect(first.status, first.text).toBe(200);
    expect(first.body.ran).toHaveLength(BATCH * 2 + 1);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const clock = await t.rest<Json>('GET', '/v1/clock', { key: m.secretKey });
    expect(Date.parse(String(clock.body.now))).toBe(start + 3600_000);
  });
});
