/**
 * A clean slate: POST /v1/simulate/reset (and GraphQL resetMerchant, the dashboard's button) deletes
 * every object of the calling merchant and puts its clock back to real time, keeping the merchant,
 * its keys and its webhook endpoints — and never touches another merchant's rows. Two merchants hold
 * objects of every kind; one is reset, the other is compared row for row.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/client.ts';
import { flushRequestLog } from '../../../src/modules/request-log/request-log.writer.ts';
import { KEPT_TABLES, resetKinds, resetTables } from '../../../src/modules/sandbox/sandbox.reset.ts';
import { signedIn } from '../../support/dashboard.ts';
import {
  createTestApp,
  debugLogCapture,
  type TestApp,
  type TestMerchant,
  type TestResponse,
} from '../../support/harness.ts';
import { CARD, form, ok, populate } from '../../support/populate.ts';
import { Receiver } from '../../support/receiver.ts';

type Json = Record<string, unknown>;

let t: TestApp;
/** What the server logged as errors (an unhandled error behind a 500), to name it when one happens. */
const errors = debugLogCapture('error');
beforeAll(async () => {
  t = await createTestApp({ logger: errors.logger });
});
afterAll(async () => {
  await t?.close();
});

/** Every table with a merchant_id column (and merchants itself), as the database has them. */
async function merchantTables(): Promise<string[]> {
  const rows = await queryRows<{ table_name: string }>(
    t.database.db,
    sql`SELECT DISTINCT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'merchant_id' ORDER BY table_name`,
  );
  return rows.map((row) => row.table_name);
}

/**
 * A merchant's rows in every table, each as JSON text, so that two snapshots compare exactly; but
 * the request log's, which records the very requests a test makes (the reset's own, a failed one):
 * loggedRequests counts them.
 */
async function snapshot(merchantId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of [...(await merchantTables()), 'merchants']) {
    if (table === 'request_logs') continue;
    const column = table === 'merchants' ? 'id' : 'merchant_id';
    const rows = await queryRows<{ row: string }>(
      t.database.db,
      sql.raw(`SELECT row_to_json(x)::text AS row FROM "${table}" x WHERE ${column} = '${merchantId}'`),
    );
    out[table] = rows.map((row) => row.row).sort();
  }
  return out;
}

const count = (snap: Record<string, string[]>, table: string) => snap[table]?.length ?? 0;

/** The merchant's requests in the log, once this process has written what it buffered. */
async function loggedRequests(merchantId: string): Promise<string[]> {
  await flushRequestLog(t.database.db);
  const rows = await queryRows<{ id: string }>(
    t.database.db,
    sql`SELECT id FROM request_logs WHERE merchant_id = ${merchantId} ORDER BY id`,
  );
  return rows.map((row) => row.id);
}

describe('POST /v1/simulate/reset', () => {
  let a: TestMerchant;
  let b: TestMerchant;
  let ids: Awaited<ReturnType<typeof populate>>;
  let before: Record<string, string[]>;
  let otherBefore: Record<string, string[]>;
  let logBefore: string[];
  let reset: Json;
  let resetRequest: string | null;

  beforeAll(async () => {
    a = await t.merchant('Reset Me');
    b = await t.merchant('Leave Me');
    ids = await populate(t, a, 'a');
    await populate(t, b, 'b');
    before = await snapshot(a.id);
    otherBefore = await snapshot(b.id);
    logBefore = await loggedRequests(a.id);
    const answer = form(t, a, '/v1/simulate/reset');
    resetRequest = (await answer).headers.get('request-id');
    reset = await ok(answer);
  });

  it('knows every table: each is either wiped or kept on purpose', async () => {
    const tables = [...(await merchantTables()), 'merchants'].sort();
    expect(tables).toEqual([...new Set([...resetTables(), ...KEPT_TABLES])].sort());
  });

  it('the merchant had rows of every kind, and the answer counts what went', () => {
    const logged = (snap: Record<string, string[]>, table: string) =>
      table === 'request_logs' ? logBefore.length : count(snap, table);
    for (const table of resetTables()) expect(logged(before, table), table).toBeGreaterThan(0);
    const deleted = reset.deleted as Record<string, number>;
    for (const { kind } of resetKinds()) expect(deleted[kind], kind).toBeGreaterThan(0);
    for (const { kind, table } of resetKinds())
      if (table !== 'transfers') expect(deleted[kind], kind).toBe(logged(before, table));
    expect(Number(deleted.transfers) + Number(deleted.payouts)).toBe(count(before, 'transfers'));
    expect(reset).toMatchObject({ object: 'reset', merchant_id: a.id });
  });

  it('deletes every object of the merchant and keeps its merchant, keys, sessions and endpoints', async () => {
    const after = await snapshot(a.id);
    for (const table of resetTables()) expect(count(after, table), table).toBe(0);
    // The log holds only the reset's own request, logged after it.
    expect(await loggedRequests(a.id)).toEqual([resetRequest]);
    expect(after.api_keys).toEqual(before.api_keys);
    expect(after.merchants).toEqual(before.merchants);
    // The endpoint is kept with its URL, events and secret; only its failure streak is forgotten.
    const endpoint = (text: string) => {
      const { failing_since: _f, updated_at: _u, ...rest } = JSON.parse(text) as Json;
      return rest;
    };
    expect(after.webhook_endpoints?.map(endpoint)).toEqual(before.webhook_endpoints?.map(endpoint));
    expect(after.webhook_endpoints?.every((row) => (JSON.parse(row) as Json).failing_since === null)).toBe(
      true,
    );
  });

  it('never touches another merchant', async () => {
    expect(await snapshot(b.id)).toEqual(otherBefore);
  });

  it('puts the clock back to real time, running', async () => {
    const clock = reset.clock as Json;
    expect(clock).toMatchObject({ object: 'clock', frozen: false, offset_ms: 0, ran: [] });
    expect(Math.abs(Date.parse(String(clock.now)) - Date.now())).toBeLessThan(60_000);
    const read = await t.rest<Json>('GET', '/v1/clock', { key: a.secretKey });
    expect(read.body).toMatchObject({ frozen: false, offset_ms: 0 });
  });

  it('the keys still work; objects are gone; the endpoint is still there', async () => {
    expect((await t.rest('GET', '/v1/collections/a-col', { key: a.secretKey })).status).toBe(404);
    expect((await t.rest('GET', `/v1/card_payments/${ids.payment}`, { key: a.secretKey })).status).toBe(404);
    const balances = await t.rest<{ data: Json[] }>('GET', '/v1/balances', { key: a.secretKey });
    expect(balances.status).toBe(200);
    expect(JSON.stringify(balances.body)).not.toMatch(/"available":[1-9]/);
    const endpoint = await t.rest<Json>('GET', `/v1/webhook_endpoints/${ids.endpoint}`, { key: a.secretKey });
    expect(endpoint.status).toBe(200);
    expect((await t.rest('GET', '/v1/collections/b-col', { key: b.secretKey })).status).toBe(200);
  });

  it('forgets the Idempotency-Keys: the same key works again, for another request', async () => {
    // Before a reset, the key of another merchant's first collection is bound to that request.
    const reused = await form(t, b, '/v1/collect', 'amount=1&currency=usd&reference=other', {
      'idempotency-key': 'same-key',
    });
    expect(reused.status).toBe(422);
    const again = await form(t, a, '/v1/collect', 'amount=1&currency=usd&reference=other', {
      'idempotency-key': 'same-key',
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body.reference).toBe('other');
  });

  it('writes no event, and a second reset deletes only what came since', async () => {
    const events = await t.rest<{ data: Json[] }>('GET', '/v1/events', { key: a.secretKey });
    expect(events.body.data.map((e) => e.type)).toEqual(['collection.created']);
    const second = await ok(form(t, a, '/v1/simulate/reset'));
    expect(second.deleted).toMatchObject({ collections: 1, events: 1, card_payments: 0 });
  });

  it('refuses an Idempotency-Key (it would be wiped by the reset itself)', async () => {
    const res = await form(t, a, '/v1/simulate/reset', '', { 'idempotency-key': 'reset-1' });
    expect(res.status).toBe(400);
    expect((res.body.error as Json).code).toBe('idempotency_key_invalid');
  });
});

describe('one transaction', () => {
  it('a reset that fails part-way leaves every row and the clock as they were', async () => {
    const m = await t.merchant('Reset Fails');
    await populate(t, m, 'fails');
    const before = await snapshot(m.id);
    // The database refuses to delete this merchant's idempotency records: the statement that deletes
    // every kind fails after deleting the others, and the transaction rolls back.
    const name = `reset_test_fail_${m.id.toLowerCase()}`;
    await t.database.db.execute(
      sql.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF OLD.merchant_id = '${m.id}' THEN RAISE EXCEPTION 'refused (planned by the test)'; END IF;
          RETURN OLD;
        END $$`),
    );
    await t.database.db.execute(
      sql.raw(
        `CREATE TRIGGER ${name} AFTER DELETE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION ${name}()`,
      ),
    );
    try {
      const failed = await form(t, m, '/v1/simulate/reset');
      expect(failed.status).toBe(500);
      expect(await snapshot(m.id)).toEqual(before);
      expect(
        (await t.rest<Json>('GET', '/v1/clock', { key: m.secretKey })).body.offset_ms,
      ).toBeGreaterThanOrEqual(600_000);
    } finally {
      await t.database.db.execute(sql.raw(`DROP TRIGGER IF EXISTS ${name} ON idempotency_keys`));
      await t.database.db.execute(sql.raw(`DROP FUNCTION IF EXISTS ${name}()`));
    }
    expect((await ok(form(t, m, '/v1/simulate/reset'))).deleted).toMatchObject({ idempotency_keys: 1 });
  });
});

describe('GraphQL resetMerchant', () => {
  it('resets the caller and answers with the clock and the counts', async () => {
    const m = await t.merchant('GraphQL Reset');
    const other = await t.merchant('GraphQL Bystander');
    for (const who of [m, other]) {
      await ok(form(t, who, '/v1/collect', 'amount=3&currency=usd&reference=gql'));
      await ok(form(t, who, '/v1/clock/freeze'));
    }
    const query = `mutation { resetMerchant {
      __typename
      ... on MutationResetMerchantSuccess { data { merchantId clock { frozen offsetMs } deleted { collections events scheduledJobs cardPayments } } }
      ... on SandbankError { code message }
    } }`;
    const res = await t.gql<{ resetMerchant: Json }>(query, {}, { key: m.secretKey });
    expect(res.errors).toBeUndefined();
    expect(res.data.resetMerchant).toEqual({
      __typename: 'MutationResetMerchantSuccess',
      data: {
        merchantId: m.id,
        clock: { frozen: false, offsetMs: 0 },
        deleted: { collections: 1, events: 1, scheduledJobs: 1, cardPayments: 0 },
      },
    });
    expect((await t.rest('GET', '/v1/collections/gql', { key: m.secretKey })).status).toBe(404);
    expect((await t.rest('GET', '/v1/collections/gql', { key: other.secretKey })).status).toBe(200);
    expect((await t.rest<Json>('GET', '/v1/clock', { key: other.secretKey })).body.frozen).toBe(true);
    const keyed = await t.gql<{ resetMerchant: Json }>(
      query,
      {},
      { key: m.secretKey, headers: { 'idempotency-key': 'k' } },
    );
    expect(keyed.data.resetMerchant).toMatchObject({ code: 'idempotency_key_invalid' });
  });
});

describe('the dashboard button', () => {
  it('is a POST form with the CSRF token and a confirmation box; only a confirmed post resets', async () => {
    const m = await t.merchant('Dashboard Reset');
    await ok(form(t, m, '/v1/collect', 'amount=3&currency=usd&reference=dash'));
    const browser = await signedIn(() => t, m);
    const page = await browser.get('/dashboard/keys');
    expect(page.status).toBe(200);
    expect(page.html).toMatch(
      /<form method="post" action="\/dashboard\/reset"><input type="hidden" name="_csrf"/,
    );
    expect(page.html).toContain('data-testid="reset-sandbox"');
    expect(page.html).toMatch(/name="confirm" value="reset" required/);
    const exists = async () => (await t.rest('GET', '/v1/collections/dash', { key: m.secretKey })).status;

    // Not by a GET, not without the CSRF token, not without the box ticked.
    expect((await browser.get('/dashboard/reset')).status).toBe(404);
    expect((await browser.post('/dashboard/reset', { _csrf: 'forged', confirm: 'reset' })).status).toBe(403);
    const unconfirmed = await browser.post('/dashboard/reset', {});
    expect(unconfirmed.status).toBe(303);
    expect((await browser.get('/dashboard/keys')).html).toContain('Nothing was deleted');
    expect(await exists()).toBe(200);

    const done = await browser.post('/dashboard/reset', { confirm: 'reset' });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/dashboard/keys');
    expect(await exists()).toBe(404);
    // The browser is still signed in and says what happened.
    const after = await browser.get('/dashboard/keys');
    expect(after.status).toBe(200);
    expect(after.html).toMatch(/Sandbox reset: \d+ objects deleted/);
  });
});

describe('a reset racing other requests of the same merchant', () => {
  it('a delivery in flight when the reset commits logs no attempt for the deleted delivery', async () => {
    const receiver = await new Receiver().start();
    try {
      receiver.delayMs = 700;
      const m = await t.merchant('Delivery In Flight');
      await ok(
        form(t, m, '/v1/webhook_endpoints', `url=${encodeURIComponent(receiver.url)}&enabled_events[]=*`),
      );
      await ok(form(t, m, '/v1/collect', 'amount=2&currency=usd&reference=in-flight'));
      // The advance sends the pending delivery and waits for the (slow) receiver before it answers.
      const advancing = form(t, m, '/v1/clock/advance', 'seconds=10');
      const deadline = Date.now() + 10_000;
      while (receiver.received.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(receiver.received.length).toBe(1);
      const reset = await ok(form(t, m, '/v1/simulate/reset'));
      expect(reset.deleted).toMatchObject({ webhook_deliveries: 1, webhook_attempts: 0 });
      expect((await advancing).status).toBe(200);
      const after = await snapshot(m.id);
      for (const table of resetTables()) expect(count(after, table), table).toBe(0);
    } finally {
      await receiver.stop();
    }
  });

  it('answers no 5xx and leaves no orphan rows', async () => {
    const m = await t.merchant('Racing Reset');
    await populate(t, m, 'race');
    // Three rounds, each a reset thrown among writes to objects it deletes and to new ones.
    for (let round = 0; round < 3; round++) {
      await ok(form(t, m, '/v1/simulate/balance/top_up', 'amount=100&currency=usd'));
      const card = await ok(form(t, m, '/v1/virtual_cards', 'brand=visa&cardholder_name=Race&currency=usd'));
      const payments: string[] = [];
      for (let i = 0; i < 4; i++)
        payments.push(
          String(
            (await ok(form(t, m, '/v1/card_payments', `amount=10&currency=usd&capture=true&${CARD}`))).id,
          ),
        );
      const work: Promise<TestResponse<Json>>[] = [];
      for (let i = 0; i < 6; i++) {
        work.push(form(t, m, '/v1/collect', `amount=2&currency=usd&reference=race-${round}-${i}`));
        work.push(form(t, m, '/v1/simulate/balance/top_up', 'amount=5&currency=usd'));
        work.push(
          form(
            t,
            m,
            `/v1/simulate/virtual_cards/${card.id}/authorizations`,
            'amount=1&merchant[name]=X&merchant[mcc]=5814',
          ),
        );
        work.push(form(t, m, `/v1/card_payments/${payments[i % payments.length]}/refunds`, 'amount=1'));
        if (i === 2) work.push(form(t, m, '/v1/simulate/reset'));
        if (i === 3) work.push(form(t, m, '/v1/clock/advance', 'seconds=60'));
      }
      const answers = await Promise.all(work);
      for (const answer of answers)
        expect(answer.status, `${answer.text}\n${errors.text()}`).toBeLessThan(500);
    }
    const orphans = await queryRows<{ kind: string; n: number }>(
      t.database.db,
      sql`SELECT 'issuing_authorizations' AS kind, count(*)::int AS n FROM issuing_authorizations a
          WHERE a.merchant_id = ${m.id} AND NOT EXISTS (SELECT 1 FROM virtual_cards c WHERE c.id = a.card_id)
        UNION ALL SELECT 'webhook_attempts', count(*)::int FROM webhook_attempts w
          WHERE w.merchant_id = ${m.id} AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = w.delivery_id)
        UNION ALL SELECT 'webhook_deliveries', count(*)::int FROM webhook_deliveries d
          WHERE d.merchant_id = ${m.id} AND NOT EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)
        UNION ALL SELECT 'ledger_postings', count(*)::int FROM ledger_postings p
          WHERE p.merchant_id = ${m.id} AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.posting_id = p.id)
        UNION ALL SELECT 'fx_conversions', count(*)::int FROM fx_conversions c
          WHERE c.merchant_id = ${m.id} AND NOT EXISTS (SELECT 1 FROM fx_quotes q WHERE q.id = c.quote_id)
        UNION ALL SELECT 'scheduled_jobs', count(*)::int FROM scheduled_jobs j
          WHERE j.merchant_id = ${m.id} AND j.state = 'pending' AND NOT EXISTS (
            SELECT 1 FROM collections WHERE id = j.object_id UNION ALL SELECT 1 FROM card_payments WHERE id = j.object_id
            UNION ALL SELECT 1 FROM card_refunds WHERE id = j.object_id UNION ALL SELECT 1 FROM card_tokens WHERE id = j.object_id
            UNION ALL SELECT 1 FROM transfers WHERE id = j.object_id UNION ALL SELECT 1 FROM inbound_transfers WHERE id = j.object_id
            UNION ALL SELECT 1 FROM issuing_authorizations WHERE id = j.object_id
            UNION ALL SELECT 1 FROM fx_quotes WHERE id = j.object_id UNION ALL SELECT 1 FROM fx_settlements WHERE id = j.object_id
            UNION ALL SELECT 1 FROM ledger_postings WHERE id = j.object_id)`,
    );
    expect(Object.fromEntries(orphans.map((o) => [o.kind, Number(o.n)]))).toEqual({
      issuing_authorizations: 0,
      webhook_attempts: 0,
      webhook_deliveries: 0,
      ledger_postings: 0,
      fx_conversions: 0,
      scheduled_jobs: 0,
    });
    // The ledger's balances still add up to its entries.
    const [drift] = await queryRows<{ n: number }>(
      t.database.db,
      sql`SELECT count(*)::int AS n FROM ledger_accounts a WHERE a.merchant_id = ${m.id}
        AND a.balance <> COALESCE((SELECT sum(e.amount) FROM ledger_entries e WHERE e.account_id = a.id), 0)`,
    );
    expect(Number(drift?.n)).toBe(0);
  });
});
