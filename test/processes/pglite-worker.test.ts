/**
 * PGlite in its worker thread, seen through the main thread's client (src/db/pglite-proxy.ts),
 * against PGlite on the calling thread (PGLITE_WORKER=0) as the reference: the same results to the
 * byte, the same errors, the same transactions, LISTEN/NOTIFY, an event loop left free while a
 * query runs, and a loud failure when the thread dies. Always PGlite, whatever TEST_DATABASE_URL
 * says: this is PGlite's own plumbing.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { messages } from '@electric-sql/pglite';
import { eq, sql } from 'drizzle-orm';
import { bigint, jsonb, numeric, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Database,
  isUniqueViolation,
  openDatabase,
  queryRows,
  sqlStateOf,
} from '../../src/db/client.ts';
import { type PgliteClient, PgliteWorkerClient } from '../../src/db/pglite-proxy.ts';
import { isTransactionConflict, runTransaction } from '../../src/db/tx.ts';
import { serveOn } from '../../src/http/node-server.ts';
import { createTestApp } from '../support/harness.ts';
import { ROOT } from './server-process.ts';

function snapshot(): Blob | undefined {
  const path = process.env.SANDBANK_TEST_SNAPSHOT;
  return path ? new Blob([readFileSync(path)]) : undefined;
}

function openPglite(worker: boolean, onWorkerFailure?: (error: Error) => void): Promise<Database> {
  const loadDataDir = snapshot();
  return openDatabase({
    driver: 'pglite',
    worker,
    ...(loadDataDir ? { loadDataDir } : {}),
    ...(onWorkerFailure ? { onWorkerFailure } : {}),
  });
}

/** The raw PGlite client of a database opened here (always PGlite). */
function raw(database: Database): PgliteClient {
  if (!database.pglite) throw new Error('not PGlite');
  return database.pglite;
}

const roundTrip = pgTable('worker_round_trip', {
  id: bigint('id', { mode: 'bigint' }).primaryKey(),
  amount: numeric('amount', { precision: 20, scale: 2 }).notNull(),
  meta: jsonb('meta').$type<Record<string, unknown>>(),
  at: timestamp('at', { withTimezone: true, mode: 'string' }),
  atDate: timestamp('at_date', { withTimezone: true, mode: 'date' }),
  note: text('note'),
});

const CREATE_ROUND_TRIP = sql`
  CREATE TABLE worker_round_trip (
    id int8 PRIMARY KEY, amount numeric(20, 2) NOT NULL, meta jsonb, at timestamptz,
    at_date timestamptz, note text
  )`;

let inWorker: Database;
let inThread: Database;
/** Both databases: every check runs on each and the two must agree. */
let both: [Database, Database];

beforeAll(async () => {
  [inWorker, inThread] = await Promise.all([openPglite(true), openPglite(false)]);
  both = [inWorker, inThread];
  for (const database of both) await database.db.execute(CREATE_ROUND_TRIP);
});

afterAll(async () => {
  await Promise.all([inWorker?.close(), inThread?.close()]);
});

describe('PGlite in a worker thread', () => {
  it('opens in its worker thread by default, on the calling thread when asked', () => {
    expect(inWorker.pgliteWorker).toBe(true);
    expect(inWorker.pglite).toBeInstanceOf(PgliteWorkerClient);
    expect(inThread.pgliteWorker).toBe(false);
    expect(inThread.pglite).not.toBeInstanceOf(PgliteWorkerClient);
  });

  it('returns raw results structurally identical to PGlite on the calling thread', async () => {
    const statements = [
      `SELECT 1::int2 AS a, 2::int4 AS b, 9007199254740993::int8 AS c,
              123456789012345678.123456789::numeric AS d, 1.5::float8 AS e, true AS f, 'x'::text AS g,
              NULL::text AS h, '{"a":[1,2.50,"3"],"b":null,"c":{"d":"12345678901234567890.01"}}'::jsonb AS i,
              '{"x": 1.10}'::json AS j, '2031-12-03 15:00:00.123456+00'::timestamptz AS k,
              '2031-12-03 15:00:00'::timestamp AS k2, '2031-12-03'::date AS l, '\\xdeadbeef'::bytea AS m,
              ARRAY[1, 9007199254740993]::int8[] AS n, ARRAY['1.10', '2']::numeric[] AS o,
              ARRAY['2031-12-03T15:00:00Z']::timestamptz[] AS p, interval '1 day 2 hours' AS q,
              '00000000-0000-0000-0000-000000000001'::uuid AS r, ARRAY['a', NULL, 'c'] AS s, 'é✓'::text AS t`,
      'SELECT g AS n, g::text AS s FROM generate_series(1, 500) AS g',
      'SELECT 1 AS dup, 2 AS dup',
      'SELECT * FROM worker_round_trip WHERE false',
    ];
    // Drizzle's parsers: the worker leaves these types as text and the client applies them.
    const drizzleParsers = {
      1184: (v: string) => `parsed ${v}`,
      1082: (v: string) => v,
      1185: (v: string) => v,
    };
    for (const statement of statements) {
      for (const options of [
        undefined,
        { rowMode: 'array' as const },
        { parsers: drizzleParsers },
        { rowMode: 'array' as const, parsers: drizzleParsers },
      ]) {
        const [fromWorker, fromThread] = await Promise.all(
          both.map((database) => raw(database).query(statement, [], options)),
        );
        expect(fromWorker).toStrictEqual(fromThread);
      }
    }
    const script = `INSERT INTO worker_round_trip (id, amount) VALUES (900, 1), (901, 2);
      UPDATE worker_round_trip SET note = 'x' WHERE id >= 900; SELECT count(*) FROM worker_round_trip;
      DELETE FROM worker_round_trip WHERE id >= 900`;
    const [execWorker, execThread] = await Promise.all(both.map((database) => raw(database).exec(script)));
    expect(execWorker).toStrictEqual(execThread);
    // PGlite counts affectedRows across the statements of an exec: the worker's client must too.
    expect(execWorker?.map((result) => result.affectedRows)).toEqual([2, 4, 4, 6]);
  });

  it('round-trips bigint, numeric, jsonb and timestamptz columns through Drizzle exactly', async () => {
    const row = {
      id: 9007199254740993n,
      amount: '12345678901234567.89',
      meta: { cents: 1999, price: '19.99', nested: { list: [1, 'two', null] } },
      at: '2031-12-03 15:00:00.123456+00',
      atDate: new Date('2031-12-03T15:00:00.123Z'),
      note: "quote ' and backslash \\ and 𝄞",
    };
    const results = [];
    for (const database of both) {
      const [inserted] = await database.db.insert(roundTrip).values(row).returning();
      const [selected] = await database.db.select().from(roundTrip).where(eq(roundTrip.id, row.id));
      const raw = await queryRows(
        database.db,
        sql`SELECT amount, id FROM worker_round_trip WHERE id = ${row.id}`,
      );
      results.push({ inserted, selected, raw });
    }
    expect(results[0]).toStrictEqual(results[1]);
    const { selected, raw } = results[0] as (typeof results)[number];
    expect(selected?.id).toBe(9007199254740993n);
    expect(selected?.amount).toBe('12345678901234567.89'); // text, never a float
    expect(selected?.meta).toEqual(row.meta);
    expect(selected?.atDate?.toISOString()).toBe('2031-12-03T15:00:00.123Z');
    expect(selected?.note).toBe(row.note);
    expect(raw).toEqual([{ amount: '12345678901234567.89', id: 9007199254740993n }]);
  });

  it('keeps a database error whole: SQLSTATE, message and every field, through Drizzle too', async () => {
    const duplicate = async (database: Database) =>
      database.db
        .insert(roundTrip)
        .values({ id: 1n, amount: '1' })
        .then(() => database.db.insert(roundTrip).values({ id: 1n, amount: '2' }))
        .then(
          () => null,
          (error: unknown) => error as Error,
        );
    const [fromWorker, fromThread] = await Promise.all(both.map(duplicate));
    expect(isUniqueViolation(fromWorker)).toBe(true);
    expect(sqlStateOf(fromWorker)).toBe('23505');
    const cause = fromWorker?.cause as InstanceType<typeof messages.DatabaseError>;
    expect(cause).toBeInstanceOf(messages.DatabaseError);
    const fields = (error: unknown) => {
      const { queryOptions: _ignored, ...rest } = { ...(error as Record<string, unknown>) };
      return { ...rest, message: (error as Error).message };
    };
    expect(fields(cause)).toStrictEqual(fields(fromThread?.cause));
    expect(cause).toMatchObject({
      code: '23505',
      constraint: 'worker_round_trip_pkey',
      table: 'worker_round_trip',
      detail: 'Key (id)=(1) already exists.',
    });
    expect(fromWorker?.message).toBe(fromThread?.message);

    for (const statement of [
      'SELEC 1',
      'SELECT 1/0',
      "DO $$ BEGIN RAISE EXCEPTION 'lost' USING ERRCODE = '40001'; END $$",
    ]) {
      const [a, b] = await Promise.all(
        both.map((database) =>
          raw(database)
            .query(statement)
            .catch((e) => e),
        ),
      );
      expect(a).toBeInstanceOf(messages.DatabaseError);
      expect(fields(a)).toStrictEqual(fields(b));
    }
    const lost = await inWorker.pglite
      ?.exec("DO $$ BEGIN RAISE EXCEPTION 'lost' USING ERRCODE = '40001'; END $$")
      .catch((e) => e);
    expect(isTransactionConflict(lost)).toBe(true);
  });

  it('prepares each query by name in the worker: the same rows as in-thread, one statement per text, errors whole', async () => {
    const client = raw(inWorker);
    const text = `SELECT v.id, v.amount, v.meta, $2::timestamptz AS at, $3::int8 AS big
      FROM jsonb_to_recordset($1::jsonb) AS v(id int8, amount numeric, meta jsonb) ORDER BY v.id`;
    const drizzleParsers = { 1184: (v: string) => `parsed ${v}` };
    for (const round of [1, 2, 3, 7]) {
      const params = [
        // JSON text, so that an int8 beyond 2^53 travels exactly.
        `[{"id": ${round}, "amount": "12345678901234567.10", "meta": {"round": ${round}, "exact": 1.1}},
          {"id": 9007199254740993, "amount": "0.01", "meta": null}]`,
        '2031-12-03T15:00:00.123Z',
        9007199254740993n,
      ];
      for (const options of [undefined, { parsers: drizzleParsers }, { rowMode: 'array' as const }]) {
        const prepared = await client.query(text, params, options);
        const reference = await raw(inThread).query(text, params, options);
        expect(prepared.rows).toStrictEqual(reference.rows);
        expect(prepared.fields).toStrictEqual(reference.fields);
      }
    }
    const statements = await client.query<{ name: string; statement: string }>(
      'SELECT name, statement FROM pg_prepared_statements',
    );
    expect(statements.rows.filter((row) => row.statement === text)).toHaveLength(1);
    // A bounded number of texts stays prepared: the least recently used is closed.
    for (let i = 0; i < 600; i++) {
      const result = await client.query<{ n: number }>(`SELECT ${i}::int4 + $1::int4 AS n`, [1]);
      expect(result.rows).toEqual([{ n: i + 1 }]);
    }
    const held = await client.query<{ count: number }>(
      'SELECT count(*)::int4 AS count FROM pg_prepared_statements',
    );
    expect(held.rows[0]?.count).toBeLessThanOrEqual(512);
    expect(held.rows[0]?.count).toBeGreaterThan(400);
    expect((await client.query<{ n: number }>('SELECT 0::int4 + $1::int4 AS n', [5])).rows).toEqual([
      { n: 5 },
    ]);
    // Its errors are PGlite's, whole; and the statement still runs after one.
    const failing = 'INSERT INTO worker_round_trip (id, amount) VALUES ($1::int8, $2::numeric)';
    await client.query(failing, [77, '1.00']);
    const error = await client.query(failing, [77, '2.00']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(messages.DatabaseError);
    expect(error).toMatchObject({ code: '23505', constraint: 'worker_round_trip_pkey' });
    await client.query(failing, [78, '3.00']);
    const written = await client.query<{ id: string }>(
      'SELECT id::text FROM worker_round_trip WHERE id IN (77, 78)',
    );
    expect(written.rows.map((row) => row.id).sort()).toEqual(['77', '78']);
    await client.query('DELETE FROM worker_round_trip WHERE id IN (77, 78)');
  });

  it('runs one transaction at a time: statements from elsewhere wait for its end, in order', async () => {
    const order: string[] = [];
    let inserted!: () => void;
    const insertedOnce = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const count = async (executor: Pick<Database['db'], 'execute'>) => {
      const rows = await queryRows<{ n: number }>(
        executor as Database['db'],
        sql`SELECT count(*)::int AS n FROM worker_round_trip WHERE id = 100`,
      );
      return rows[0]?.n;
    };
    const first = inWorker.db.transaction(async (tx) => {
      await tx.insert(roundTrip).values({ id: 100n, amount: '1.00' });
      order.push('first: inserted');
      inserted();
      await gate;
      order.push(`first: sees ${await count(tx)}`);
    });
    await insertedOnce;
    const second = inWorker.db.transaction(async (tx) => {
      order.push(`second: sees ${await count(tx)}`);
    });
    const outside = count(inWorker.db).then((n) => order.push(`outside: sees ${n}`));
    // Give the queued work every chance to jump the queue before the first transaction goes on.
    for (let turn = 0; turn < 5; turn++) await raw(inThread).query('SELECT 1');
    order.push('gate opened');
    release();
    await Promise.all([first, second, outside]);
    expect(order).toEqual([
      'first: inserted',
      'gate opened',
      'first: sees 1',
      'second: sees 1',
      'outside: sees 1',
    ]);
  });

  it('rolls back a transaction that throws, and a savepoint that throws, keeping the rest', async () => {
    const ids = async () =>
      (await inWorker.db.select({ id: roundTrip.id }).from(roundTrip))
        .map((row) => row.id)
        .filter((id) => id >= 200n && id < 300n);
    await inWorker.db.transaction(async (tx) => {
      await tx.insert(roundTrip).values({ id: 200n, amount: '1' });
      await expect(
        tx.transaction(async (savepoint) => {
          await savepoint.insert(roundTrip).values({ id: 201n, amount: '1' });
          throw new Error('undo the savepoint');
        }),
      ).rejects.toThrow('undo the savepoint');
      await tx.insert(roundTrip).values({ id: 202n, amount: '1' });
    });
    await expect(
      inWorker.db.transaction(async (tx) => {
        await tx.insert(roundTrip).values({ id: 203n, amount: '1' });
        throw new Error('undo it all');
      }),
    ).rejects.toThrow('undo it all');
    // A statement that fails inside: the whole transaction rolls back with the database's error.
    const failed = await runTransaction(inWorker.db, async (tx) => {
      await tx.insert(roundTrip).values({ id: 204n, amount: '1' });
      await tx.insert(roundTrip).values({ id: 204n, amount: '1' });
    }).catch((error: unknown) => error);
    expect(isUniqueViolation(failed)).toBe(true);
    expect((await ids()).sort()).toEqual([200n, 202n]);
    // The client is free again.
    expect(await raw(inWorker).query('SELECT 1 AS one')).toMatchObject({ rows: [{ one: 1 }] });
  });

  it("sends a transaction's BEGIN with its first statement, and a read-only COMMIT ahead of the next request", async () => {
    const client = raw(inWorker) as PgliteWorkerClient;
    const sent: Array<Record<string, unknown>> = [];
    const post = client.worker.postMessage.bind(client.worker);
    client.worker.postMessage = (message: Record<string, unknown>, transfer?: never) => {
      sent.push(message);
      post(message, transfer);
    };
    const flags = () =>
      sent.map(
        (m) => `${m.commitFirst ? 'COMMIT;' : ''}${m.beginFirst ? 'BEGIN;' : ''}${String(m.sql ?? m.op)}`,
      );
    try {
      // Only reads: two crossings, the COMMIT left to go ahead of the next request.
      const [inside] = await inWorker.db.transaction(async (tx) => {
        const rows = await queryRows<{ at: string }>(tx, sql`SELECT now()::text AS at`);
        await queryRows(tx, sql`SELECT 1 AS one`);
        return rows;
      });
      expect(flags()).toEqual(['BEGIN;SELECT now()::text AS at', 'SELECT 1 AS one']);
      // The next statement runs after that COMMIT, in a transaction of its own: a later now().
      await new Promise((resolve) => setTimeout(resolve, 20));
      const [after] = await queryRows<{ at: string }>(inWorker.db, sql`SELECT now()::text AS at`);
      expect(flags()[2]).toBe('COMMIT;SELECT now()::text AS at');
      expect(after?.at).not.toBe(inside?.at);
      // A transaction that writes: its COMMIT is sent and awaited.
      sent.length = 0;
      await inWorker.db.transaction(async (tx) => {
        await tx.insert(roundTrip).values({ id: 500n, amount: '5.00' });
      });
      expect(flags()).toEqual([expect.stringMatching(/^BEGIN;insert into "worker_round_trip"/), 'COMMIT']);
      // A read that calls a function with a side effect is not read-only; nor is one that failed.
      sent.length = 0;
      await inWorker.db.transaction(async (tx) => {
        await queryRows(tx, sql`SELECT pg_notify('sandbank_test_channel', 'x')`);
      });
      expect(flags().at(-1)).toBe('COMMIT');
      sent.length = 0;
      const aborted = await inWorker.db
        .transaction(async (tx) => {
          await queryRows(tx, sql`SELECT 1 / 0`).catch(() => undefined);
        })
        .catch((error: unknown) => error);
      expect(flags().at(-1)).toBe('COMMIT');
      expect(aborted).toBeInstanceOf(Error);
      // A transaction that ran nothing sends nothing.
      sent.length = 0;
      await inWorker.db.transaction(async () => {});
      expect(sent).toEqual([]);
      // What the write committed is there, on the worker and as seen after every ending above.
      const [row] = await inWorker.db.select().from(roundTrip).where(eq(roundTrip.id, 500n));
      expect(row?.amount).toBe('5.00');
    } finally {
      client.worker.postMessage = post;
    }
  });

  it('delivers NOTIFY to listen() after commit, in order, never from a rollback, and stops on unlisten', async () => {
    const heard: string[] = [];
    const stop = await inWorker.listen('worker_test', (payload) => heard.push(payload));
    await inWorker.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_notify('worker_test', 'one')`);
      await tx.execute(sql`SELECT pg_notify('worker_test', 'two')`);
      await tx.execute(sql`SELECT 1`);
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual(['one', 'two']);
    await inWorker.db
      .transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_notify('worker_test', 'rolled back')`);
        throw new Error('no');
      })
      .catch(() => {});
    await inWorker.db.execute(sql`SELECT pg_notify('worker_test', 'three')`);
    expect(heard).toEqual(['one', 'two', 'three']);
    await stop();
    await inWorker.db.execute(sql`SELECT pg_notify('worker_test', 'four')`);
    await inWorker.db.execute(sql`SELECT 1`);
    expect(heard).toEqual(['one', 'two', 'three']);
  });

  it('dumps the data folder as PGlite does', async () => {
    const dump = await raw(inWorker).dumpDataDir('none');
    const bytes = new Uint8Array(await dump.arrayBuffer());
    // A tar: "ustar" at offset 257 of the first header.
    expect(new TextDecoder().decode(bytes.subarray(257, 262))).toBe('ustar');
  });
});

describe('the event loop while the worker is busy', () => {
  let database: Database;
  const failures: Error[] = [];
  let server: Server;
  let base: string;

  beforeAll(async () => {
    database = await openPglite(true, (error) => failures.push(error));
    const t = await createTestApp({ database });
    await new Promise<void>((resolve) => {
      server = serveOn(t.app.fetch, '127.0.0.1', 0, resolve);
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await database.close();
  });

  it('answers /healthz while a query runs, and fails every call loudly once the thread dies', async () => {
    let settled = false;
    // Runs for days: only stopping the thread ends it.
    const endless = raw(database)
      .query('SELECT pg_sleep(1000000)')
      .then(
        () => null,
        (error: unknown) => error as Error,
      );
    void endless.finally(() => {
      settled = true;
    });
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'success' });
    expect(settled).toBe(false);

    // Statements queue behind it meanwhile (one connection); then the thread dies.
    const queued = raw(database)
      .query('SELECT 1')
      .catch((error: unknown) => error as Error);
    await (raw(database) as PgliteWorkerClient).worker.terminate();
    const error = await endless;
    expect(error?.message).toMatch(/the PGlite worker thread stopped/);
    expect(((await queued) as Error).message).toMatch(/the PGlite worker thread stopped/);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.message).toMatch(/the PGlite worker thread stopped \(exit code \d+/);
    await expect(raw(database).query('SELECT 1')).rejects.toThrow(/the PGlite worker thread stopped/);
  });
});

describe('a process whose PGlite thread dies', () => {
  it('exits with code 1 and says why, instead of hanging', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test', 'processes', 'pglite-worker-dies.ts')],
      {
        cwd: ROOT,
        env: { ...process.env, PGLITE_WORKER: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(output).toContain('opened in a worker thread');
    expect(output).toMatch(/sandbank: fatal: the PGlite worker thread stopped \(exit code \d+\); exiting\./);
    expect(code).toBe(1);
  });
});
