/**
 * Races on one card payment. With TEST_DATABASE_URL the requests run on a
 * pool of 24 connections, so their transactions really overlap; on PGlite they serialize, and the
 * same outcomes must hold.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Change, commit, groupCommitStats } from '../../../src/db/commit.ts';
import { events } from '../../../src/db/events.table.ts';
import { scheduledJobs } from '../../../src/db/scheduled-jobs.table.ts';
import { systemClock } from '../../../src/kernel/clock.ts';
import { newId } from '../../../src/kernel/ids.ts';
import { newPaymentChange } from '../../../src/modules/card-payments/card-payments.authorize.ts';
import type { CardPaymentRow } from '../../../src/modules/card-payments/card-payments.resource.ts';
import { cardPayments } from '../../../src/modules/card-payments/card-payments.table.ts';
import type { ServiceContext } from '../../../src/modules/context.ts';
import { FUNDS_AVAILABLE_JOB } from '../../../src/modules/ledger/ledger.funds.ts';
import { verifyLedger } from '../../../src/modules/ledger/ledger.queries.ts';
import { ledgerPostings } from '../../../src/modules/ledger/ledger.table.ts';
import {
  createTestApp,
  openTestDatabase,
  TEST_SERVICES,
  type TestApp,
  type TestMerchant,
} from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ database: await openTestDatabase({ connections: 24 }) });
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, unknown>;
/** A payment captured at once, written as the API writes it: one change through commit(). */
const writeCaptured = (ctx: ServiceContext, row: CardPaymentRow) =>
  commit(ctx, newPaymentChange(ctx, row) as Change);

const visa = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };

async function authorization(m: TestMerchant, amount = '100.00'): Promise<string> {
  const res = await t.post(m, '/v1/card_payments', { amount, currency: 'USD', card: visa, capture: false });
  expect(res.body.state).toBe('authorized');
  return String(res.body.id);
}

async function usd(m: TestMerchant) {
  const res = await t.rest<{ data: Json[] }>('GET', '/v1/balances', { key: m.secretKey });
  const row = res.body.data.find((b) => b.currency === 'USD') ?? {};
  return { available: Number(row.available ?? 0), pending: Number(row.pending ?? 0) };
}

async function countEvents(m: TestMerchant, objectId: string, type: string): Promise<number> {
  const res = await t.rest<{ data: Json[] }>(
    'GET',
    `/v1/events?object_id=${objectId}&type=${type}&limit=100`,
    {
      key: m.secretKey,
    },
  );
  return res.body.data.length;
}

async function postingsOf(m: TestMerchant, sourceId: string): Promise<Json[]> {
  const res = await t.rest<{ data: Json[] }>('GET', '/v1/balance_transactions?limit=100', {
    key: m.secretKey,
  });
  return res.body.data.filter((b) => (b.source as Json).id === sourceId);
}

describe('racing operations on one card payment', () => {
  it('20 concurrent captures: exactly one wins, the others get 409, one credit in the ledger', async () => {
    const m = await t.merchant();
    const id = await authorization(m);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.post(m, `/v1/card_payments/${id}/capture`)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(409)]);
    for (const r of results.filter((r) => r.status === 409))
      expect(r.body.error).toMatchObject({ code: 'invalid_state' });
    expect(await countEvents(m, id, 'card_payment.captured')).toBe(1);
    expect(await postingsOf(m, id)).toHaveLength(1);
    expect(await usd(m)).toEqual({ available: 0, pending: 100 });
  });

  it('10 captures racing 10 voids: one operation wins, and the ledger matches it', async () => {
    const m = await t.merchant();
    const id = await authorization(m);
    const calls = Array.from({ length: 20 }, (_, i) =>
      t.post(m, `/v1/card_payments/${id}/${i % 2 ? 'void' : 'capture'}`).then((r) => ({
        op: i % 2 ? 'void' : 'capture',
        status: r.status,
      })),
    );
    const results = await Promise.all(calls);
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
    const state = (await t.rest<Json>('GET', `/v1/card_payments/${id}`, { key: m.secretKey })).body.state;
    expect(state).toBe(winners[0]?.op === 'void' ? 'voided' : 'captured');
    expect(await usd(m)).toEqual({ available: 0, pending: winners[0]?.op === 'void' ? 0 : 100 });
  });

  it('20 concurrent refunds of 10.00 on 100.00 captured: exactly 10 succeed, never over-refunded', async () => {
    const m = await t.merchant();
    const paid = await t.post(m, '/v1/card_payments', { amount: '100.00', currency: 'USD', card: visa });
    const id = String(paid.body.id);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.post(m, `/v1/card_payments/${id}/refunds`, { amount: '10.00' })),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(10);
    // The losers were told why: the amount would exceed what is left, or the payment is refunded.
    for (const r of results.filter((r) => r.status !== 200)) {
      expect([400, 409]).toContain(r.status);
      expect(['amount_invalid', 'invalid_state']).toContain((r.body.error as Json).code);
    }
    const final = await t.rest<Json>('GET', `/v1/card_payments/${id}`, { key: m.secretKey });
    expect(final.body).toMatchObject({ state: 'refunded', amount_refunded: 100 });
    expect(final.body.refunds).toHaveLength(10);
    expect(await countEvents(m, id, 'card_payment.refunded')).toBe(1);
    expect(await usd(m)).toEqual({ available: -100, pending: 100 });
  });

  it('40 concurrent captured payments for two merchants: group-committed, every credit exact, ledger balanced', async () => {
    const a = await t.merchant();
    const b = await t.merchant();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.post(i % 2 ? a : b, '/v1/card_payments', { amount: `${i + 1}.00`, currency: 'USD', card: visa }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    const sumOf = (odd: boolean) =>
      Array.from({ length: 40 }, (_, i) => i + 1)
        .filter((n) => (n % 2 === 0) === odd)
        .reduce((x, y) => x + y, 0);
    expect(await usd(a)).toEqual({ available: 0, pending: sumOf(true) });
    expect(await usd(b)).toEqual({ available: 0, pending: sumOf(false) });
    for (const r of results) {
      const owner = Number(r.body.amount) % 2 === 0 ? a : b; // amount i + 1 went to a when i was odd
      expect(await countEvents(owner, String(r.body.id), 'card_payment.captured')).toBe(1);
    }
    for (const m of [a, b]) {
      const check = await verifyLedger(t.database.db, m.id);
      expect(check.mismatches).toEqual([]);
      for (const sum of Object.values(check.sums)) expect(sum).toBe(0n);
      const list = await t.rest<{ data: Json[] }>('GET', '/v1/balance_transactions?limit=100', {
        key: m.secretKey,
      });
      expect(list.body.data).toHaveLength(20);
    }
  });
});

describe('the group commit of payments captured at once', () => {
  async function rowsOf(merchantId: string) {
    const db = t.database.db;
    const where = <T extends { merchantId: Parameters<typeof eq>[0] }>(table: T) =>
      eq(table.merchantId, merchantId);
    return {
      payments: await db.select().from(cardPayments).where(where(cardPayments)),
      events: await db
        .select({ type: events.type, objectId: events.objectId })
        .from(events)
        .where(where(events))
        // Ids increase in the order events are made; the heap's order is not promised.
        .orderBy(events.id),
      postings: await db.select().from(ledgerPostings).where(where(ledgerPostings)),
      releaseJobs: await db
        .select()
        .from(scheduledJobs)
        .where(and(where(scheduledJobs), eq(scheduledJobs.kind, FUNDS_AVAILABLE_JOB))),
    };
  }

  it('once the accounts exist, a batch is one statement: rows, events, postings and jobs all written', async () => {
    const m = await t.merchant();
    // The first payment creates the merchant's ledger accounts (the transactional path).
    expect(
      (await t.post(m, '/v1/card_payments', { amount: '1.00', currency: 'USD', card: visa })).status,
    ).toBe(200);
    const before = { ...groupCommitStats(t.database.db) };
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.post(m, '/v1/card_payments', { amount: `${i + 1}.25`, currency: 'USD', card: visa }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    const after = groupCommitStats(t.database.db);
    expect(after.statements).toBeGreaterThan(before.statements);
    expect(after.transactions).toBe(before.transactions);
    expect(after.retriedAlone).toBe(before.retriedAlone);

    const { payments, events: written, postings, releaseJobs } = await rowsOf(m.id);
    expect(payments).toHaveLength(31);
    for (const r of results) {
      const id = String(r.body.id);
      const stored = payments.find((p) => p.id === id);
      // The response is the row as stored, every column included.
      expect(stored?.state).toBe('captured');
      expect(r.body.amount_captured).toBe(r.body.amount);
      expect(String(stored?.amountCaptured)).toBe(String(Math.round(Number(r.body.amount) * 100)));
      expect(written.filter((e) => e.objectId === id).map((e) => e.type)).toEqual([
        'card_payment.authorized',
        'card_payment.captured',
      ]);
      const posting = postings.find((p) => p.sourceId === id);
      expect(posting?.pendingDelta).toBe(stored?.amountCaptured);
      expect(written.filter((e) => e.objectId === posting?.id).map((e) => e.type)).toEqual([
        'balance_transaction.created',
      ]);
      expect(releaseJobs.filter((j) => j.objectId === posting?.id)).toHaveLength(1);
    }
    const pending = 100 + Array.from({ length: 30 }, (_, i) => (i + 1) * 100 + 25).reduce((x, y) => x + y, 0);
    expect(await usd(m)).toEqual({ available: 0, pending: pending / 100 });
    const check = await verifyLedger(t.database.db, m.id);
    expect(check.mismatches).toEqual([]);
  });

  it('a batch that fails is retried one payment at a time: only the bad payment fails', async () => {
    const m = await t.merchant();
    const first = await t.post(m, '/v1/card_payments', { amount: '5.00', currency: 'USD', card: visa });
    expect(first.status).toBe(200);
    const [stored] = await t.database.db
      .select()
      .from(cardPayments)
      .where(eq(cardPayments.id, String(first.body.id)));
    if (!stored) throw new Error('the first payment was not stored');
    const ctx = {
      db: t.database.db,
      clock: systemClock,
      merchant: { id: m.id, name: m.name },
      publicUrl: 'http://sandbank.test',
      ...TEST_SERVICES,
    };
    const before = { ...groupCommitStats(t.database.db) };
    const fresh = (amount: bigint) => ({
      ...stored,
      id: newId('cardPayment'),
      amount,
      amountCaptured: amount,
    });
    // Queued in one tick, so they share a batch; the middle one reuses a stored id.
    const outcomes = await Promise.allSettled([
      writeCaptured(ctx, fresh(100n)),
      writeCaptured(ctx, { ...stored }),
      writeCaptured(ctx, fresh(200n)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const after = groupCommitStats(t.database.db);
    expect(after.retriedAlone).toBe(before.retriedAlone + 1);
    expect(after.statements).toBe(before.statements);

    const { payments, postings } = await rowsOf(m.id);
    expect(payments).toHaveLength(3);
    expect(postings.map((p) => p.pendingDelta).sort()).toEqual([100n, 200n, 500n]);
    expect(await usd(m)).toEqual({ available: 0, pending: 8 });
    expect((await verifyLedger(t.database.db, m.id)).mismatches).toEqual([]);
  });
  it("two batches creating the same merchants' first accounts in opposite orders do not deadlock", async () => {
    const template = await t.post(await t.merchant(), '/v1/card_payments', {
      amount: '1.00',
      currency: 'USD',
      card: visa,
    });
    const [stored] = await t.database.db
      .select()
      .from(cardPayments)
      .where(eq(cardPayments.id, String(template.body.id)));
    if (!stored) throw new Error('the template payment was not stored');
    const fresh = await Promise.all(Array.from({ length: 6 }, () => t.merchant()));
    const payFor = (m: TestMerchant) =>
      writeCaptured(
        {
          db: t.database.db,
          clock: systemClock,
          merchant: { id: m.id, name: m.name },
          publicUrl: 'http://sandbank.test',
          ...TEST_SERVICES,
        },
        { ...stored, id: newId('cardPayment'), merchantId: m.id },
      );
    const before = { ...groupCommitStats(t.database.db) };
    // One batch with the new merchants in one order, the next (queued a tick later, so both are in
    // flight) in the reverse order: both take the path that creates the accounts.
    const first = fresh.map(payFor);
    await new Promise((resolve) => setImmediate(resolve));
    const second = [...fresh].reverse().map(payFor);
    const outcomes = await Promise.allSettled([...first, ...second]);
    expect(outcomes.map((o) => o.status)).toEqual(Array(12).fill('fulfilled'));
    const after = groupCommitStats(t.database.db);
    expect(after.retriedAlone).toBe(before.retriedAlone); // a deadlock would have failed a batch
    for (const m of fresh) {
      expect(await usd(m)).toEqual({ available: 0, pending: 2 });
      expect((await verifyLedger(t.database.db, m.id)).mismatches).toEqual([]);
    }
  });
});
