/**
 * The last line of defence behind the lock order: a transaction that Postgres aborts as the loser
 * of a deadlock (40P01) or a serialization failure (40001) is run again, at most three times, and
 * the run that commits is the only one that leaves anything — one set of rows, one event per change,
 * one webhook delivery per event, one stored idempotent response. A request that keeps losing gets
 * 409 transaction_conflict with nothing written, never a 500.
 *
 * The losses are real database errors raised by the real database: a trigger on the tables a
 * request writes last raises the SQLSTATE for a planned number of times (counted with a sequence,
 * which a rollback does not undo), only for the merchant the plan names.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/client.ts';
import { events } from '../../../src/db/events.table.ts';
import { scheduledJobs } from '../../../src/db/scheduled-jobs.table.ts';
import { transactionConflicts } from '../../../src/db/tx.ts';
import { idempotencyKeys } from '../../../src/modules/idempotency/idempotency.table.ts';
import { verifyLedger } from '../../../src/modules/ledger/ledger.queries.ts';
import { ledgerPostings } from '../../../src/modules/ledger/ledger.table.ts';
import { webhookDeliveries } from '../../../src/modules/webhooks/webhooks.table.ts';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
const { post, get, usd, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

/** Wednesday 10:00 ET: an ACH payout made now is submitted at the 10:30 ET cut-off. */
const WEDNESDAY = '2031-12-03T15:00:00.000Z';

beforeAll(async () => {
  t = await createTestApp();
  await t.database.db.execute(sql`
    CREATE TABLE retry_test_plan (
      merchant_id text PRIMARY KEY, table_name text NOT NULL, counter text NOT NULL,
      losses int NOT NULL, sqlstate text NOT NULL
    )`);
  await t.database.db.execute(sql`
    CREATE FUNCTION retry_test_lose() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE plan retry_test_plan;
    BEGIN
      SELECT * INTO plan FROM retry_test_plan
        WHERE merchant_id = NEW.merchant_id AND table_name = TG_TABLE_NAME;
      IF FOUND AND nextval(plan.counter::regclass) <= plan.losses THEN
        RAISE EXCEPTION 'lost a race (planned by the test)' USING ERRCODE = plan.sqlstate;
      END IF;
      RETURN NEW;
    END $$`);
  for (const table of ['ledger_postings', 'scheduled_jobs'])
    await t.database.db.execute(
      sql.raw(`CREATE TRIGGER retry_test_lose AFTER INSERT ON ${table}
        FOR EACH ROW EXECUTE FUNCTION retry_test_lose()`),
    );
});
afterAll(async () => {
  for (const table of ['ledger_postings', 'scheduled_jobs'])
    await t.database.db.execute(sql.raw(`DROP TRIGGER IF EXISTS retry_test_lose ON ${table}`));
  await t.database.db.execute(sql`DROP FUNCTION IF EXISTS retry_test_lose()`);
  await t.database.db.execute(sql`DROP TABLE IF EXISTS retry_test_plan`);
  await t.close();
});

let plans = 0;

/**
 * From now on, the merchant's next `losses` inserts into `table` fail with `sqlstate`, the way
 * Postgres aborts the loser of a race (the rest of the transaction's writes roll back with it).
 */
async function plan(m: TestMerchant, table: string, losses: number, sqlstate = '40P01'): Promise<void> {
  const counter = `retry_test_counter_${++plans}`;
  await t.database.db.execute(sql.raw(`CREATE SEQUENCE ${counter}`));
  await t.database.db.execute(sql`
    INSERT INTO retry_test_plan VALUES (${m.id}, ${table}, ${counter}, ${losses}, ${sqlstate})
    ON CONFLICT (merchant_id) DO UPDATE SET table_name = EXCLUDED.table_name,
      counter = EXCLUDED.counter, losses = EXCLUDED.losses, sqlstate = EXCLUDED.sqlstate`);
}

/** What the transaction helper saw during `run`. */
async function conflictsDuring(run: () => Promise<void>): Promise<Record<string, number>> {
  const before = { ...transactionConflicts };
  await run();
  return Object.fromEntries(
    Object.entries(transactionConflicts).map(([name, n]) => [name, n - before[name as never]]),
  );
}

const payoutBody = {
  amount: '30.00',
  currency: 'USD',
  destination: {
    name: 'Our operating account',
    routing_number: '021000021',
    account_number: '000123456789',
    account_type: 'checking',
  },
};

const payout = (m: TestMerchant, key?: string) =>
  t.rest<Json>('POST', '/v1/payouts', {
    key: m.secretKey,
    body: payoutBody,
    ...(key ? { headers: { 'Idempotency-Key': key } } : {}),
  });

const rows = (table: typeof idempotencyKeys | typeof ledgerPostings, m: TestMerchant) =>
  t.countRows(table, m.id);

/** Each of the merchant's events, oldest first, with how many webhook deliveries it has. */
async function eventsWithDeliveries(m: TestMerchant): Promise<[string, number][]> {
  const found = await queryRows<{ type: string; deliveries: number }>(
    t.database.db,
    sql`SELECT e.type, count(d.id)::int AS deliveries FROM ${events} e
      LEFT JOIN ${webhookDeliveries} d ON d.event_id = e.id
      WHERE e.merchant_id = ${m.id} GROUP BY e.id, e.type ORDER BY e.id`,
  );
  return found.map((row) => [row.type, row.deliveries]);
}

/** A merchant with 100.00 and a webhook endpoint for every event (deliveries are rows, nothing is sent). */
async function merchantWithEndpoint(): Promise<TestMerchant> {
  const m = await merchantAt(WEDNESDAY, '100.00');
  const endpoint = await post(m, '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks' });
  expect(endpoint.status).toBe(200);
  return m;
}

/**
 * One payout of 30.00 on the merchant's books, each write once: its hold (a posting) and the two
 * events, each with its one webhook delivery (the top-up came before the endpoint: none).
 */
async function expectOnePayout(m: TestMerchant): Promise<string> {
  const listed = (await get(m, '/v1/payouts')).body.data as Json[];
  expect(listed).toHaveLength(1);
  const id = String(listed[0]?.id);
  expect(await eventTypes(m, id)).toEqual(['payout.created']);
  expect(await usd(m)).toEqual({ available: 70, pending: 0, reserved: 30 });
  expect(await rows(ledgerPostings, m)).toBe(2);
  expect(await eventsWithDeliveries(m)).toEqual([
    ['balance_transaction.created', 0],
    ['balance_transaction.created', 1],
    ['payout.created', 1],
  ]);
  const check = await verifyLedger(t.database.db, m.id);
  expect(check.mismatches).toEqual([]);
  for (const sum of Object.values(check.sums)) expect(sum).toBe(0n);
  return id;
}

describe('a transaction that loses a race is run again', () => {
  it('a request without a key, losing twice to a deadlock, is rerun whole: 200 and everything once', async () => {
    const m = await merchantWithEndpoint();
    await plan(m, 'scheduled_jobs', 2);
    let res: Awaited<ReturnType<typeof payout>> | undefined;
    const seen = await conflictsDuring(async () => {
      res = await payout(m);
    });
    expect(res?.status).toBe(200);
    expect(seen).toEqual({ deadlocks: 2, serializationFailures: 0, retried: 2, gaveUp: 0 });
    expect(await expectOnePayout(m)).toBe(res?.body.id);
  });

  it('a serialization failure is rerun the same way', async () => {
    const m = await merchantWithEndpoint();
    await plan(m, 'ledger_postings', 1, '40001');
    let res: Awaited<ReturnType<typeof payout>> | undefined;
    const seen = await conflictsDuring(async () => {
      res = await payout(m);
    });
    expect(res?.status).toBe(200);
    expect(seen).toEqual({ deadlocks: 0, serializationFailures: 1, retried: 1, gaveUp: 0 });
    await expectOnePayout(m);
  });

  it('a keyed request reruns its work in a savepoint: one stored response, replayed as is', async () => {
    const m = await merchantWithEndpoint();
    await plan(m, 'scheduled_jobs', 2);
    let res: Awaited<ReturnType<typeof payout>> | undefined;
    const seen = await conflictsDuring(async () => {
      res = await payout(m, 'payout-1');
    });
    expect(res?.status).toBe(200);
    expect(seen).toEqual({ deadlocks: 2, serializationFailures: 0, retried: 2, gaveUp: 0 });
    expect(await expectOnePayout(m)).toBe(res?.body.id);
    expect(await rows(idempotencyKeys, m)).toBe(1);
    const replay = await payout(m, 'payout-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(res?.body);
    await expectOnePayout(m);
  });

  it('a request that loses every run gives up after three with 409 transaction_conflict, writing nothing', async () => {
    const m = await merchantWithEndpoint();
    const before = await eventsWithDeliveries(m);
    await plan(m, 'scheduled_jobs', 1000);
    for (const key of [undefined, 'payout-2']) {
      let res: Awaited<ReturnType<typeof payout>> | undefined;
      const seen = await conflictsDuring(async () => {
        res = await payout(m, key);
      });
      expect(res?.status, key).toBe(409);
      expect(res?.body.error).toMatchObject({ type: 'conflict_error', code: 'transaction_conflict' });
      expect(seen, key).toEqual({ deadlocks: 3, serializationFailures: 0, retried: 2, gaveUp: 1 });
    }
    expect((await get(m, '/v1/payouts')).body.data).toEqual([]);
    expect(await usd(m)).toEqual({ available: 100, pending: 0, reserved: 0 });
    expect(await rows(ledgerPostings, m)).toBe(1);
    expect(await eventsWithDeliveries(m)).toEqual(before);
    // Nothing was stored under the key: once the races stop, the same request goes through.
    expect(await rows(idempotencyKeys, m)).toBe(0);
    await plan(m, 'scheduled_jobs', 0);
    expect((await payout(m, 'payout-2')).status).toBe(200);
    await expectOnePayout(m);
  });

  it('due work that loses a race is not failed: the clock advance is rerun and the job runs once', async () => {
    const m = await merchantAt(WEDNESDAY, '100.00');
    const created = await payout(m);
    expect(created.status).toBe(200);
    // The 10:30 ET cut-off submits the payout: its hold leaves for the rails (a posting).
    await plan(m, 'ledger_postings', 1);
    let ran: string[] = [];
    const seen = await conflictsDuring(async () => {
      ran = await advanceTo(m, '2031-12-03T15:30:00.000Z');
    });
    expect(ran).toEqual(['transfer.submit@2031-12-03T15:30:00.000Z']);
    // The submission is done, on its first recorded attempt; it scheduled the settlement once.
    const jobs = await t.database.db
      .select({ kind: scheduledJobs.kind, state: scheduledJobs.state, attempts: scheduledJobs.attempts })
      .from(scheduledJobs)
      .where(and(eq(scheduledJobs.merchantId, m.id), eq(scheduledJobs.objectId, String(created.body.id))))
      .orderBy(scheduledJobs.dueAt);
    expect(jobs).toEqual([
      { kind: 'transfer.submit', state: 'done', attempts: 1 },
      { kind: 'transfer.settle', state: 'pending', attempts: 0 },
    ]);
    expect(await eventTypes(m, String(created.body.id))).toEqual(['payout.created', 'payout.in_transit']);
    expect(await usd(m)).toEqual({ available: 70, pending: 0, reserved: 0 });
    expect(await rows(ledgerPostings, m)).toBe(3); // top-up, hold, hold posted to the rails
    expect(seen).toEqual({ deadlocks: 1, serializationFailures: 0, retried: 1, gaveUp: 0 });
  });
});
