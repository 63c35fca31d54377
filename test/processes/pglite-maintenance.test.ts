import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, ne } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import {
  CHECKPOINT_AFTER_WAL_BYTES,
  checkpointIfWalGrew,
  walSinceCheckpoint,
} from '../../src/db/maintenance.ts';
import { scheduledJobs } from '../../src/db/scheduled-jobs.table.ts';
import { runMaintenance } from '../../src/maintenance.ts';
import { idempotencyKeys } from '../../src/modules/idempotency/idempotency.table.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../support/harness.ts';

// PGlite's own housekeeping, whatever TEST_DATABASE_URL says: a data folder on disk, as `npm start`
// keeps in .sandbank/.
const MiB = 1024 * 1024;
let dir: string;
let t: TestApp;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbank-soak-'));
  const snapshot = process.env.SANDBANK_TEST_SNAPSHOT;
  const loadDataDir = snapshot ? new Blob([readFileSync(snapshot)]) : undefined;
  t = await createTestApp({
    database: await openDatabase({ driver: 'pglite', dataDir: dir, ...(loadDataDir ? { loadDataDir } : {}) }),
  });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Bytes under a folder, as the disk holds them. */
function sizeOf(path: string): number {
  return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
}

async function query<T>(text: string): Promise<T> {
  const result = await t.database.pglite?.query<T>(text);
  return result?.rows[0] as T;
}

/** The WAL position, in bytes since the database began. */
async function walPosition(): Promise<bigint> {
  const { lsn } = await query<{ lsn: string }>(
    "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text AS lsn",
  );
  return BigInt(lsn);
}

/** On-disk bytes of a table with its indexes. */
async function tableSize(table: string): Promise<number> {
  const { bytes } = await query<{ bytes: string }>(
    `SELECT pg_total_relation_size('${table}')::text AS bytes`,
  );
  return Number(bytes);
}

/** Metadata of 50 keys of 500 random characters each (~25 KiB that compression cannot shrink). */
function bulkyMetadata(): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: 50 }, (_, i) => [`k${i}`, randomBytes(375).toString('base64')]),
  );
}

/** Sends `count` requests made by `request(i)` from 16 concurrent clients; each must answer 200. */
async function load(count: number, request: (i: number) => Promise<{ status: number }>) {
  let next = 0;
  const client = async () => {
    while (next < count) expect((await request(next++)).status).toBe(200);
  };
  await Promise.all(Array.from({ length: 16 }, client));
}

const KEYED_PER_ROUND = 40;

/**
 * One round of steady load: a busy merchant creates collections with bulky metadata (the WAL
 * volume); another sends keyed requests (stored responses, expiry jobs) and moves its clock a month,
 * so that its keys expire and its jobs run and age past their retention.
 */
async function round(busy: TestMerchant, keyed: TestMerchant, n: number) {
  await load(330, () =>
    t.rest('POST', '/v1/collect', {
      key: busy.secretKey,
      body: { amount: 1, currency: 'USD', metadata: bulkyMetadata() },
    }),
  );
  await load(KEYED_PER_ROUND, (i) =>
    t.rest('POST', '/v1/collect', {
      key: keyed.secretKey,
      body: { amount: 1, currency: 'USD' },
      headers: { 'idempotency-key': `soak-${n}-${i}` },
    }),
  );
  const advanced = await t.rest('POST', '/v1/clock/advance', {
    key: keyed.secretKey,
    body: { seconds: 31 * 86_400 },
  });
  expect(advanced.status).toBe(200);
}

/** The WAL segments in pg_wal (16 MiB files named by 24 hex digits), in bytes. */
function walSegmentBytes(): number {
  return readdirSync(join(dir, 'pg_wal'))
    .filter((name) => /^[0-9A-F]{24}$/.test(name))
    .reduce((sum, name) => sum + statSync(join(dir, 'pg_wal', name)).size, 0);
}

describe('PGlite maintenance under a steady load', () => {
  it('keeps pg_wal at two segments and the purged tables from growing, round after round', async () => {
    const busy = await t.merchant();
    const keyed = await t.merchant();
    for (const m of [busy, keyed]) await t.rest('POST', '/v1/clock/freeze', { key: m.secretKey });
    const start = await walPosition();
    const rounds: { wal: number; folder: number; keysTable: number; keys: number; finishedJobs: number }[] =
      [];
    for (let n = 0; n < 3; n++) {
      await round(busy, keyed, n);
      await runMaintenance(t.database, new Date());
      rounds.push({
        wal: walSegmentBytes(),
        folder: sizeOf(dir),
        keysTable: await tableSize('idempotency_keys'),
        keys: await t.countRows(idempotencyKeys, keyed.id),
        finishedJobs: (
          await t.database.db
            .select()
            .from(scheduledJobs)
            .where(and(eq(scheduledJobs.merchantId, keyed.id), ne(scheduledJobs.state, 'pending')))
        ).length,
      });
    }
    const written = Number((await walPosition()) - start);
    console.log(
      `WAL written: ${(written / MiB).toFixed(1)} MiB; after each pass:`,
      rounds.map((r) => ({ ...r, wal: `${r.wal / MiB} MiB`, folder: `${(r.folder / MiB).toFixed(1)} MiB` })),
    );
    // The load wrote more WAL than pg_wal holds: without checkpoints all of it would be there.
    expect(written).toBeGreaterThan(48 * MiB);
    for (const r of rounds) expect(r.wal).toBeLessThanOrEqual(32 * MiB);
    // Expired keys and old jobs are deleted, and VACUUM lets their space be reused.
    for (const r of rounds) expect(r.keys).toBe(0);
    for (const r of rounds) expect(r.finishedJobs).toBeLessThanOrEqual(KEYED_PER_ROUND);
    expect(rounds.at(-1)?.keysTable).toBeLessThanOrEqual((rounds[0]?.keysTable ?? 0) * 1.5);
  }, 60_000);

  it('checkpoints as soon as 16 MiB of WAL were written since the last checkpoint', async () => {
    const busy = await t.merchant();
    await runMaintenance(t.database, new Date());
    expect(await checkpointIfWalGrew(t.database)).toBe(false);
    await load(330, () =>
      t.rest('POST', '/v1/collect', {
        key: busy.secretKey,
        body: { amount: 1, currency: 'USD', metadata: bulkyMetadata() },
      }),
    );
    expect(await walSinceCheckpoint(t.database)).toBeGreaterThanOrEqual(CHECKPOINT_AFTER_WAL_BYTES);
    expect(await checkpointIfWalGrew(t.database)).toBe(true);
    expect(await walSinceCheckpoint(t.database)).toBeLessThan(MiB);
    expect(walSegmentBytes()).toBeLessThanOrEqual(32 * MiB);
  });
});
