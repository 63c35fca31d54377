/**
 * A restore puts back only what changed since the snapshot was saved or last restored: rows nobody
 * touched stay as they are (the same row versions), changed, new and deleted rows are made the
 * snapshot's again; across restores of two snapshots, after a reset, and for a snapshot without a
 * baseline (saved by an older version), the merchant's rows always equal the snapshot's.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/client.ts';
import { keptWindow } from '../../../src/modules/sandbox/sandbox.restore.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { merchantRows } from '../../support/merchant-rows.ts';
import { CARD, form, ok, populate } from '../../support/populate.ts';

type Json = Record<string, unknown>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const state = (merchantId: string) => merchantRows(t, merchantId);

/** The transaction that wrote a collection's current row version. */
async function writtenBy(id: string): Promise<string> {
  const [row] = await queryRows<{ xmin: string }>(
    t.database.db,
    sql`SELECT xmin::text AS xmin FROM collections WHERE id = ${id}`,
  );
  if (!row) throw new Error(`no collection ${id}`);
  return row.xmin;
}

async function restore(m: TestMerchant, name: string): Promise<void> {
  const res = await t.post<Json>(m, `/v1/sandbox/snapshots/${name}/restore`);
  expect(res.status, res.text).toBe(200);
}

describe('restoring by difference', () => {
  let a: TestMerchant;
  let b: TestMerchant;
  let seeded: Record<string, string[]>;
  let other: Record<string, string[]>;
  const untouched: string[] = [];

  beforeAll(async () => {
    a = await t.merchant('Differences');
    b = await t.merchant('Bystander');
    await populate(t, a, 'a');
    await populate(t, b, 'b');
    for (let i = 0; i < 5; i++) {
      const made = await ok(form(t, a, '/v1/collect', `amount=${10 + i}&currency=usd&reference=keep-${i}`));
      untouched.push(String(made.id));
    }
    await ok(form(t, a, '/v1/collect', 'amount=40&currency=usd&reference=to-pay'));
    await ok(form(t, a, '/v1/clock/freeze'));
    expect((await t.post(a, '/v1/sandbox/snapshots', { name: 'seeded' })).status).toBe(200);
    seeded = await state(a.id);
    other = await state(b.id);
  }, 120_000);

  it('keeps the rows nobody touched and puts back the changed, new and deleted ones', async () => {
    const before = await Promise.all(untouched.map(writtenBy));
    // A change of a saved object, a new one, a deleted endpoint, the clock moved.
    await ok(form(t, a, '/v1/simulate/collections/to-pay/pay', `method=card&${CARD}`));
    await ok(form(t, a, '/v1/collect', 'amount=9&currency=usd&reference=after-save'));
    const endpoints = await t.get<{ data: Json[] }>(a, '/v1/webhook_endpoints');
    const endpoint = endpoints.body.data[0];
    expect(endpoint).toBeDefined();
    expect((await t.delete(a, `/v1/webhook_endpoints/${endpoint?.id}`)).status).toBe(200);
    await ok(form(t, a, '/v1/clock/advance', 'seconds=3600'));
    expect(await state(a.id)).not.toEqual(seeded);

    await restore(a, 'seeded');
    expect(await state(a.id)).toEqual(seeded);
    expect((await t.get<Json>(a, '/v1/collections/to-pay')).body.state).toBe('pending');
    expect((await t.get(a, '/v1/collections/after-save')).status).toBe(404);
    // The untouched collections are the very row versions written before the snapshot.
    expect(await Promise.all(untouched.map(writtenBy))).toEqual(before);
    expect(await state(b.id)).toEqual(other);
  });

  it('restores again and again from the last restore, and across two snapshots', async () => {
    await ok(form(t, a, '/v1/simulate/collections/to-pay/pay', `method=card&${CARD}`));
    expect((await t.post(a, '/v1/sandbox/snapshots', { name: 'paid' })).status).toBe(200);
    const paid = await state(a.id);
    for (let round = 0; round < 3; round++) {
      await ok(form(t, a, '/v1/collect', `amount=1&currency=usd&reference=round-${round}`));
      await restore(a, 'seeded');
      expect(await state(a.id), `seeded, round ${round}`).toEqual(seeded);
      await ok(form(t, a, '/v1/collect', `amount=2&currency=usd&reference=round-${round}`));
      await restore(a, 'paid');
      expect(await state(a.id), `paid, round ${round}`).toEqual(paid);
    }
    expect(await state(b.id)).toEqual(other);
  });

  it('restores everything after a reset, and a snapshot without a baseline', async () => {
    expect((await t.post(a, '/v1/simulate/reset')).status).toBe(200);
    await restore(a, 'seeded');
    expect(await state(a.id)).toEqual(seeded);

    await t.database.db.execute(
      sql`UPDATE sandbox_snapshots SET base_xmin = NULL, base_xid = NULL WHERE merchant_id = ${a.id} AND name = 'seeded'`,
    );
    await ok(form(t, a, '/v1/collect', 'amount=3&currency=usd&reference=no-baseline'));
    const before = await Promise.all(untouched.map(writtenBy));
    await restore(a, 'seeded');
    expect(await state(a.id)).toEqual(seeded);
    // Without a baseline every row was written again.
    const after = await Promise.all(untouched.map(writtenBy));
    for (const [i, xmin] of after.entries()) expect(xmin).not.toBe(before[i]);
    // …and the restore left one behind: the next keeps them.
    await restore(a, 'seeded');
    expect(await Promise.all(untouched.map(writtenBy))).toEqual(after);
    expect(await state(b.id)).toEqual(other);
  });
});

describe('the baseline window', () => {
  const epoch = (n: bigint) => n << 32n;

  it('compares the 32-bit ids of the same epoch', () => {
    expect(keptWindow({ xmin: epoch(3n) + 100n, xid: epoch(3n) + 120n }, epoch(3n) + 500n)).toEqual({
      lo: 100n,
      own: 120n,
    });
  });

  it('keeps nothing across an epoch, or without a baseline', () => {
    expect(keptWindow({ xmin: epoch(2n) + 100n, xid: epoch(2n) + 120n }, epoch(3n) + 5n)).toBeNull();
    expect(
      keptWindow({ xmin: epoch(2n) + 4_294_967_000n, xid: epoch(3n) + 10n }, epoch(3n) + 50n),
    ).toBeNull();
    expect(keptWindow({ xmin: null, xid: null }, 500n)).toBeNull();
  });
});
