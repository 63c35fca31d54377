/**
 * Snapshots: a merchant's whole sandbox saved under a name and put back exactly (every row a reset
 * deletes, its webhook endpoints and its clock), over REST and GraphQL; never another merchant's;
 * 404 for a name it has none of, 409 while its clock is being advanced, 400 for a bad name.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedIn } from '../../support/dashboard.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { merchantRows } from '../../support/merchant-rows.ts';
import { form, ok, populate } from '../../support/populate.ts';

type Json = Record<string, unknown>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const state = (merchantId: string) => merchantRows(t, merchantId);

describe('snapshots', () => {
  let a: TestMerchant;
  let b: TestMerchant;
  let seeded: Record<string, string[]>;
  let other: Record<string, string[]>;

  beforeAll(async () => {
    a = await t.merchant('Seeded');
    b = await t.merchant('Bystander');
    await populate(t, a, 'a');
    await populate(t, b, 'b');
    await ok(form(t, a, '/v1/clock/freeze'));
    seeded = await state(a.id);
    other = await state(b.id);
  }, 120_000);

  it('saves every kind of row, and restores them exactly after changes of every kind', async () => {
    const saved = await t.post<Json>(a, '/v1/sandbox/snapshots', { name: 'seeded' });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ object: 'snapshot', name: 'seeded' });
    const counts = saved.body.counts as Record<string, number>;
    for (const table of ['collections', 'card_payments', 'ledger_entries', 'events', 'webhook_endpoints'])
      expect(counts[table], table).toBeGreaterThan(0);
    expect(saved.body.objects).toBe(Object.values(counts).reduce((sum, n) => sum + n, 0));
    expect(await state(a.id)).toEqual(seeded);

    // Changes after the save: new objects, a payment, a new endpoint, a deleted one, the clock moved.
    await ok(form(t, a, '/v1/collect', 'amount=9&currency=usd&reference=after-save'));
    await ok(
      form(
        t,
        a,
        '/v1/card_payments',
        'amount=3&currency=usd&card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2099&card[cvc]=123',
      ),
    );
    await ok(form(t, a, '/v1/webhook_endpoints', 'url=http://127.0.0.1:9/other&enabled_events[]=*'));
    await ok(form(t, a, '/v1/clock/advance', 'seconds=90000'));
    expect(await state(a.id)).not.toEqual(seeded);

    const restored = await t.post<Json>(a, '/v1/sandbox/snapshots/seeded/restore');
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ object: 'snapshot', name: 'seeded', id: saved.body.id });
    expect(await state(a.id)).toEqual(seeded);
    expect((await t.get(a, '/v1/collections/after-save')).status).toBe(404);
    // The clock is the saved one, through the API too (frozen where it was).
    const clock = await t.get<Json>(a, '/v1/clock');
    expect(clock.body.frozen).toBe(true);
    // Restoring again gives the same state; the other merchant never moved.
    await t.post(a, '/v1/sandbox/snapshots/seeded/restore');
    expect(await state(a.id)).toEqual(seeded);
    expect(await state(b.id)).toEqual(other);
  });

  it('keeps each merchant to its own snapshots', async () => {
    expect((await t.post(a, '/v1/sandbox/snapshots', { name: 'mine' })).status).toBe(200);
    const theirs = await t.post<Json>(b, '/v1/sandbox/snapshots/mine/restore');
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ error: { code: 'resource_not_found' } });
    expect((await t.delete(b, '/v1/sandbox/snapshots/mine')).status).toBe(404);
    const listed = await t.get<{ data: Json[] }>(b, '/v1/sandbox/snapshots');
    expect(listed.body.data.map((s) => s.name)).not.toContain('mine');
    // The same name saved by the other merchant is its own.
    expect((await t.post(b, '/v1/sandbox/snapshots', { name: 'mine' })).status).toBe(200);
    await t.post(b, '/v1/sandbox/snapshots/mine/restore');
    expect(await state(b.id)).toEqual(other);
    expect(await state(a.id)).toEqual(seeded);
  });

  it('lists, replaces and deletes by name; a reset keeps them', async () => {
    const first = await t.post<Json>(a, '/v1/sandbox/snapshots', { name: 'again' });
    const second = await t.post<Json>(a, '/v1/sandbox/snapshots', { name: 'again' });
    expect(second.body.id).not.toBe(first.body.id);
    const listed = await t.get<{ data: Json[] }>(a, '/v1/sandbox/snapshots');
    const names = listed.body.data.map((s) => s.name);
    expect(names.filter((name) => name === 'again')).toHaveLength(1);
    expect(names).toEqual([...names].sort());
    expect((await t.post(a, '/v1/simulate/reset')).status).toBe(200);
    expect((await t.get<{ data: Json[] }>(a, '/v1/sandbox/snapshots')).body.data.length).toBe(
      listed.body.data.length,
    );
    expect((await t.post(a, '/v1/sandbox/snapshots/seeded/restore')).status).toBe(200);
    expect(await state(a.id)).toEqual(seeded);
    expect((await t.delete(a, '/v1/sandbox/snapshots/again')).status).toBe(200);
    expect((await t.post(a, '/v1/sandbox/snapshots/again/restore')).status).toBe(404);
  });

  it('refuses bad names and an Idempotency-Key with a 400, changing nothing', async () => {
    for (const name of ['', 'has space', '-leading', 'x'.repeat(65), 'semi;colon']) {
      const res = await t.post<Json>(a, '/v1/sandbox/snapshots', { name });
      expect(res.status, name).toBe(400);
    }
    expect((await t.post(a, '/v1/sandbox/snapshots', {})).status).toBe(400);
    expect((await t.post(a, '/v1/sandbox/snapshots/bad%20name/restore')).status).toBe(400);
    const keyed = await t.post<Json>(a, '/v1/sandbox/snapshots/seeded/restore', undefined, {
      'idempotency-key': 'k1',
    });
    expect(keyed.status).toBe(400);
    expect(keyed.body).toMatchObject({ error: { code: 'idempotency_key_invalid' } });
    expect(await state(a.id)).toEqual(seeded);
  });

  it('answers 409 while the clock is being advanced, and restores once it is not', async () => {
    // An advance holding the clock (another instance's, as its row records it).
    await t.database.db.execute(
      sql`UPDATE merchant_clocks SET advancing_id = 'adv_elsewhere', advancing_until = now() + interval '1 minute', advancing_to = now() + interval '1 day' WHERE merchant_id = ${a.id}`,
    );
    try {
      for (const [path, body] of [
        ['/v1/sandbox/snapshots/seeded/restore', undefined],
        ['/v1/sandbox/snapshots', { name: 'seeded' }],
      ] as const) {
        const res = await t.post<Json>(a, path, body);
        expect(res.status, path).toBe(409);
        expect(res.body).toMatchObject({ error: { code: 'clock_advancing' } });
      }
    } finally {
      await t.database.db.execute(
        sql`UPDATE merchant_clocks SET advancing_id = NULL, advancing_until = NULL, advancing_to = NULL WHERE merchant_id = ${a.id}`,
      );
    }
    expect((await t.post(a, '/v1/sandbox/snapshots/seeded/restore')).status).toBe(200);
    expect(await state(a.id)).toEqual(seeded);
  });

  it('answers 409 for a snapshot whose rows no longer fit the tables, changing nothing', async () => {
    expect((await t.post(a, '/v1/sandbox/snapshots', { name: 'old-version' })).status).toBe(200);
    // As a version whose collections had no amount (and which kept no restore baseline, so that
    // every row is reinserted) would have saved it.
    await t.database.db.execute(
      sql`UPDATE sandbox_snapshots SET rows = jsonb_set(rows, '{collections,0,amount}', 'null'), base_xmin = NULL, base_xid = NULL WHERE merchant_id = ${a.id} AND name = 'old-version'`,
    );
    await ok(form(t, a, '/v1/collect', 'amount=9&currency=usd&reference=kept-through-409'));
    const before = await state(a.id);
    const res = await t.post<Json>(a, '/v1/sandbox/snapshots/old-version/restore');
    expect(res.status, res.text).toBe(409);
    expect(res.body).toMatchObject({ error: { code: 'invalid_state' } });
    expect(await state(a.id)).toEqual(before);
    expect((await t.post(a, '/v1/sandbox/snapshots/seeded/restore')).status).toBe(200);
  });

  it('works the same over GraphQL', async () => {
    const run = (query: string) => t.gql<Json>(query, {}, { key: a.secretKey });
    const saved = await run(
      'mutation { saveSnapshot(name: "gql") { ... on MutationSaveSnapshotSuccess { data { name objects counts } } } }',
    );
    expect(saved.errors).toBeUndefined();
    expect(saved.data.saveSnapshot).toMatchObject({ data: { name: 'gql' } });
    const listed = await run('{ snapshots { name } }');
    expect((listed.data.snapshots as Json[]).map((s) => s.name)).toContain('gql');
    await ok(form(t, a, '/v1/collect', 'amount=9&currency=usd&reference=gql-after'));
    const restored = await run(
      'mutation { restoreSnapshot(name: "gql") { ... on MutationRestoreSnapshotSuccess { data { name } } ... on SandbankError { code } } }',
    );
    expect(restored.data.restoreSnapshot).toMatchObject({ data: { name: 'gql' } });
    expect(await state(a.id)).toEqual(seeded);
    const missing = await run('mutation { restoreSnapshot(name: "nope") { ... on SandbankError { code } } }');
    expect(missing.data.restoreSnapshot).toMatchObject({ code: 'resource_not_found' });
    const deleted = await run(
      'mutation { deleteSnapshot(name: "gql") { ... on MutationDeleteSnapshotSuccess { data { name } } } }',
    );
    expect(deleted.data.deleteSnapshot).toMatchObject({ data: { name: 'gql' } });
  });

  it('saves and restores from the dashboard’s keys page', async () => {
    const browser = await signedIn(() => t, a);
    const page = await browser.get('/dashboard/keys');
    expect(page.html).toMatch(
      /<form method="post" action="\/dashboard\/snapshots"><input type="hidden" name="_csrf"/,
    );
    expect((await browser.post('/dashboard/snapshots', { _csrf: 'forged', name: 'dash' })).status).toBe(403);
    const bad = await browser.post('/dashboard/snapshots', { name: 'bad name' });
    expect(bad.status).toBe(303);
    expect((await browser.get('/dashboard/keys')).html).toContain('A snapshot name is 1 to 64');
    const saved = await browser.post('/dashboard/snapshots', { name: 'dash' });
    expect(saved.location).toBe('/dashboard/keys#snapshots');
    const listed = await browser.get('/dashboard/keys');
    expect(listed.html).toContain('Snapshot dash saved');
    expect(listed.html).toContain('data-testid="restore-snapshot-dash"');
    await ok(form(t, a, '/v1/collect', 'amount=9&currency=usd&reference=dash-after'));
    const restored = await browser.post('/dashboard/snapshots/restore', { name: 'dash' });
    expect(restored.status).toBe(303);
    expect((await browser.get('/dashboard/keys')).html).toContain('Snapshot dash restored');
    expect((await t.get(a, '/v1/collections/dash-after')).status).toBe(404);
  });
});
