/**
 * What bounds the request log: its cap per merchant (the oldest go first, another merchant's are
 * untouched), its window (retention, on real time), the cap on a body's length, a sandbox reset and
 * a snapshot's restore (the log is part of both), and REQUEST_LOG=off.
 */
import { eq } from 'drizzle-orm';
import { encodeTime } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeOldRequests } from '../../../src/modules/request-log/request-log.retention.ts';
import { requestLogs } from '../../../src/modules/request-log/request-log.table.ts';
import { RETENTION_RULES } from '../../../src/modules/retention.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

type Json = Record<string, unknown>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ requestLog: { maxPerMerchant: 5, retentionHours: 2 } });
});
afterAll(() => t.close());

const clock = (m: TestMerchant) => t.get(m, '/v1/clock');

async function logged(m: TestMerchant): Promise<Json[]> {
  return (await t.get(m, '/v1/requests?limit=100')).body.data as Json[];
}

describe('the cap per merchant', () => {
  it('keeps each merchant’s newest requests up to the cap; another merchant’s stay', async () => {
    const busy = await t.merchant('Busy');
    const quiet = await t.merchant('Quiet');
    const sent: string[] = [];
    await clock(quiet);
    await clock(quiet);
    for (let i = 0; i < 12; i++) sent.push(String((await clock(busy)).headers.get('request-id')));
    expect((await logged(busy)).map((row) => row.id)).toEqual(sent.slice(-5).reverse());
    expect(await logged(quiet)).toHaveLength(2);
    // Kept: at most the cap and half of it again, until the next trim.
    expect(await t.countRows(requestLogs, busy.id)).toBeLessThanOrEqual(5 + 2);
  });
});

describe('the window', () => {
  it('purges what is older than REQUEST_LOG_RETENTION_HOURS (real time), and keeps the rest', async () => {
    expect(RETENTION_RULES.map((rule) => rule.name)).toContain('request log');
    const m = await t.merchant('Old requests');
    await clock(m);
    const [recent] = await logged(m);
    const row = (id: string, hoursAgo: number) => ({
      id,
      merchantId: m.id,
      method: 'GET',
      path: '/v1/clock',
      operation: 'getClock',
      status: 200,
      latencyMs: 1,
      source: 'api',
      createdAt: new Date(Date.now() - hoursAgo * 3_600_000),
    });
    const at = (hoursAgo: number) => encodeTime(Date.now() - hoursAgo * 3_600_000, 10);
    const old = `req_${at(3)}0000000000000000`;
    const young = `req_${at(1)}0000000000000000`;
    await t.database.db.insert(requestLogs).values([row(old, 3), row(young, 1)]);
    expect(await purgeOldRequests(t.database.db, new Date(), 100)).toBeGreaterThanOrEqual(1);
    const left = await t.database.db.select().from(requestLogs).where(eq(requestLogs.merchantId, m.id));
    expect(left.map((r) => r.id).sort()).toEqual([young, recent?.id].sort());
  });
});

describe('bodies', () => {
  it('are cut at 8,192 characters, marked with the length they had', async () => {
    const m = await t.merchant('Big bodies');
    // Refused (an unknown field) and logged all the same, with its body.
    const res = await t.post(m, '/v1/collect', {
      amount: '1.00',
      currency: 'USD',
      notes: 'x'.repeat(10_000),
    });
    expect(res.status).toBe(400);
    const [row] = await logged(m);
    const body = String((await t.get(m, `/v1/requests/${row?.id}`)).body.request_body);
    expect(body).toMatch(
      /^\{"amount":"1\.00","currency":"USD","notes":"x{8100,}… \[cut: 10045 characters in all\]$/,
    );
    expect(body.length).toBe(8192 + '… [cut: 10045 characters in all]'.length);
  });
});

describe('a reset and a snapshot', () => {
  it('a reset deletes the log (its own request is logged after it)', async () => {
    const m = await t.merchant('Reset log');
    await clock(m);
    await clock(m);
    const reset = await t.post(m, '/v1/simulate/reset');
    expect((reset.body.deleted as Json).request_logs).toBe(2);
    expect((await logged(m)).map((row) => row.id)).toEqual([reset.headers.get('request-id')]);
  });

  it('a restore puts the log back as saved (the restore’s own request is logged after it)', async () => {
    const m = await t.merchant('Snapshot log');
    await clock(m);
    const saved = (await logged(m)).map((row) => row.id);
    const snapshot = await t.post(m, '/v1/sandbox/snapshots', { name: 'logged' });
    expect((snapshot.body.counts as Json).request_logs).toBe(1);
    await clock(m);
    const restored = await t.post(m, '/v1/sandbox/snapshots/logged/restore');
    expect(restored.status).toBe(200);
    expect((await logged(m)).map((row) => row.id)).toEqual([restored.headers.get('request-id'), ...saved]);
  });
});

describe('REQUEST_LOG=off', () => {
  it('logs nothing; the reads still answer', async () => {
    const off = await createTestApp({ requestLog: { enabled: false } });
    try {
      const m = await off.merchant('Unlogged');
      expect((await off.get(m, '/v1/clock')).status).toBe(200);
      const res = await off.get(m, '/v1/requests');
      expect(res.body).toMatchObject({ data: [], has_more: false });
    } finally {
      await off.close();
    }
  });
});
