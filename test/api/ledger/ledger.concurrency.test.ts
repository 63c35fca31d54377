/**
 * Concurrency of the ledger: many transactions against one merchant's
 * balance at once leave exact balances, with no lost update and no double spend.
 *
 * Locking approach under test (ledger.post.ts `post`): every entry is applied with
 * `UPDATE ledger_accounts SET balance = balance + $amount WHERE id = $id [AND balance + $amount >= 0]`,
 * in account-id order. The UPDATE's row lock serialises writers of one account until commit (no
 * lost update); a guarded debit re-checks its condition against the committed balance after
 * waiting (no double spend), and locking in one global order rules out deadlocks. A hold moves
 * pending → posted | voided with a compare-and-set on its state, so exactly one settle wins.
 *
 * On PGlite every transaction runs alone; with TEST_DATABASE_URL the transactions really overlap
 * (a pool of 24 connections), and a deadlock or serialization failure would fail these tests.
 */
import { and, eq, ne, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, queryRows, type Tx } from '../../../src/db/client.ts';
import { events } from '../../../src/db/events.table.ts';
import type { CurrencyCode } from '../../../src/kernel/currency.ts';
import { isSandbankError } from '../../../src/kernel/errors.ts';
import type { MerchantRef } from '../../../src/modules/context.ts';
import { placeHold, postHold, voidHold } from '../../../src/modules/ledger/ledger.holds.ts';
import { postTopUp } from '../../../src/modules/ledger/ledger.post.ts';
import { verifyLedger } from '../../../src/modules/ledger/ledger.queries.ts';
import { reversePosting } from '../../../src/modules/ledger/ledger.reverse.ts';
import { ledgerAccounts, ledgerEntries } from '../../../src/modules/ledger/ledger.table.ts';
import { createTestApp, shuffle, type TestApp } from '../../support/harness.ts';

let t: TestApp;
/** The database the races run on: the app's PGlite, or a roomier pool on real Postgres. */
let database: Database;

beforeAll(async () => {
  t = await createTestApp();
  const url = process.env.TEST_DATABASE_URL;
  database = url ? await openDatabase({ driver: 'postgres', url, maxConnections: 24 }) : t.database;
});
afterAll(async () => {
  if (database !== t.database) await database.close();
  await t.close();
});

const at = () => new Date();

async function newMerchant(name: string): Promise<MerchantRef> {
  const created = await t.merchant(name);
  return { id: created.id, name: created.name };
}

function inTx<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  return database.db.transaction(work);
}

const topUp = (merchantId: string, amount: bigint, currency: CurrencyCode = 'USD') =>
  inTx((tx) =>
    postTopUp(tx, { merchantId, currency, amount, at: at(), source: { type: 'top_up', id: merchantId } }),
  );

const hold = (merchantId: string, amount: bigint, currency: CurrencyCode = 'USD') =>
  inTx((tx) =>
    placeHold(tx, {
      merchantId,
      currency,
      amount,
      at: at(),
      source: { type: 'payout', id: `po_${merchantId}` },
    }),
  );

/** Balances straight from the account rows (not through a possibly stale cache). */
async function balances(merchantId: string, currency: CurrencyCode = 'USD') {
  const rows = await database.db
    .select({ kind: ledgerAccounts.kind, balance: ledgerAccounts.balance })
    .from(ledgerAccounts)
    .where(and(eq(ledgerAccounts.merchantId, merchantId), eq(ledgerAccounts.currency, currency)));
  const of = (kind: string) => rows.find((row) => row.kind === kind)?.balance ?? 0n;
  return { available: of('available'), pending: of('pending'), reserved: of('reserved') };
}

async function expectCleanLedger(merchantId: string): Promise<void> {
  const check = await verifyLedger(database.db, merchantId);
  expect(check.mismatches).toEqual([]);
  for (const sum of Object.values(check.sums)) expect(sum).toBe(0n);
  // Every entry of the merchant sits on one of the merchant's own accounts.
  const foreign = await database.db
    .select({ id: ledgerEntries.id })
    .from(ledgerEntries)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, ledgerEntries.accountId))
    .where(and(eq(ledgerEntries.merchantId, merchantId), ne(ledgerAccounts.merchantId, merchantId)));
  expect(foreign).toEqual([]);
}

/** The types of the events recorded for one object, oldest first (committed rows only). */
async function eventTypesOf(objectId: string): Promise<string[]> {
  const rows = await database.db
    .select({ type: events.type })
    .from(events)
    .where(eq(events.objectId, objectId))
    .orderBy(events.id);
  return rows.map((row) => row.type);
}

/** Splits settled results; any rejection that is not one of `expected` codes is rethrown. */
function outcomes<T>(results: PromiseSettledResult<T>[], expected: readonly string[]) {
  const ok: T[] = [];
  const failed: string[] = [];
  for (const result of results) {
    if (result.status === 'fulfilled') ok.push(result.value);
    else if (isSandbankError(result.reason) && expected.includes(result.reason.code))
      failed.push(result.reason.code);
    else throw result.reason;
  }
  return { ok, failed };
}

describe('ledger under concurrency', () => {
  it('40 holds of 5.00 racing 10 top-ups of 1.00 on 100.00: exact balances, no double spend', async () => {
    const m = await newMerchant('Race One');
    await topUp(m.id, 10_000n);
    const ops = shuffle([
      ...Array.from({ length: 40 }, () => ({ kind: 'hold' as const })),
      ...Array.from({ length: 10 }, () => ({ kind: 'topUp' as const })),
    ]);
    const results = await Promise.allSettled(
      ops.map((op) =>
        op.kind === 'hold'
          ? hold(m.id, 500n).then((posting) => ({ kind: 'hold' as const, id: posting.id }))
          : topUp(m.id, 100n).then((posting) => ({ kind: 'topUp' as const, id: posting.id })),
      ),
    );
    const { ok, failed } = outcomes(results, ['insufficient_balance']);
    const holds = ok.filter((result) => result.kind === 'hold');
    const topUps = ok.filter((result) => result.kind === 'topUp');
    // Top-ups never fail; every failure is a hold that found less than 5.00 available.
    expect(topUps).toHaveLength(10);
    expect(holds.length + failed.length).toBe(40);
    const succeeded = BigInt(holds.length);
    const after = await balances(m.id);
    expect(after.available).toBe(10_000n + 1_000n - 500n * succeeded);
    expect(after.reserved).toBe(500n * succeeded);
    expect(after.available).toBeGreaterThanOrEqual(0n);
    // 110.00 covers at most 22 holds; a hold only fails when less than 5.00 is left, and at most
    // 10.00 of top-ups can land after it, so at least 20 succeed (fewer would be a spurious failure).
    expect(holds.length).toBeGreaterThanOrEqual(20);
    expect(holds.length).toBeLessThanOrEqual(22);
    // Exactly the successful holds are open: each can be voided once.
    const voided = await Promise.all(holds.map((h) => inTx((tx) => voidHold(tx, m.id, h.id, at()))));
    expect(voided).toHaveLength(holds.length);
    expect(await balances(m.id)).toEqual({ available: 11_000n, pending: 0n, reserved: 0n });
    await expectCleanLedger(m.id);
  });

  it('40 holds racing for exactly 100.00: exactly 20 of 5.00 succeed', async () => {
    const m = await newMerchant('Race Exact');
    await topUp(m.id, 10_000n);
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => hold(m.id, 500n)));
    const { ok, failed } = outcomes(results, ['insufficient_balance']);
    expect(ok).toHaveLength(20);
    expect(failed).toHaveLength(20);
    expect(await balances(m.id)).toEqual({ available: 0n, pending: 0n, reserved: 10_000n });
    await expectCleanLedger(m.id);
  });

  it('first postings in a new currency racing each other all succeed', async () => {
    // The accounts do not exist yet: every transaction races to create them.
    const m = await newMerchant('Race New Currency');
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => topUp(m.id, BigInt(i + 1), 'EUR')),
    );
    const { ok } = outcomes(results, []);
    expect(ok).toHaveLength(20);
    expect(await balances(m.id, 'EUR')).toEqual({ available: 210n, pending: 0n, reserved: 0n });
    await expectCleanLedger(m.id);
  });

  it('an account whose creating transaction rolled back, or has not committed, is never used', async () => {
    const m = await newMerchant('Race Creator');
    const credit = (tx: Tx, amount: bigint, currency: CurrencyCode) =>
      postTopUp(tx, { merchantId: m.id, currency, amount, at: at(), source: { type: 'top_up', id: m.id } });
    // The EUR accounts are created, then rolled back with their transaction.
    await expect(
      inTx(async (tx) => {
        await credit(tx, 5n, 'EUR');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await topUp(m.id, 7n, 'EUR');
    expect(await balances(m.id, 'EUR')).toEqual({ available: 7n, pending: 0n, reserved: 0n });
    await expectCleanLedger(m.id);
    if (database.driver !== 'postgres') return; // PGlite runs one transaction at a time
    // A second transaction posts in GBP while the one that created the GBP accounts is still open:
    // it must wait for that one to commit, not fail nor write to rows it cannot see.
    let second: Promise<unknown> = Promise.resolve();
    let settled = false;
    await inTx(async (tx) => {
      await credit(tx, 11n, 'GBP');
      second = topUp(m.id, 13n, 'GBP').finally(() => {
        settled = true;
      });
      second.catch(() => {}); // awaited below
      // Until the second transaction either finishes (the bug) or waits for this one (right).
      for (let polls = 0; polls < 10_000 && !settled; polls++) {
        const [waiting] = await queryRows<{ n: number }>(
          database.db,
          sql`SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'
                AND query ILIKE '%ledger_accounts%'`,
        );
        if ((waiting?.n ?? 0) > 0) break;
      }
    });
    await second;
    expect(await balances(m.id, 'GBP')).toEqual({ available: 24n, pending: 0n, reserved: 0n });
    await expectCleanLedger(m.id);
  });

  it('posting and voiding the same hold at once: exactly one wins, the other gets invalid_state', async () => {
    const m = await newMerchant('Race Settle');
    await topUp(m.id, 100_000n);
    const amounts = Array.from({ length: 12 }, (_, i) => BigInt(100 * (i + 1)));
    const holds = [];
    for (const amount of amounts) holds.push({ id: (await hold(m.id, amount)).id, amount });
    // Each hold gets a post and a void (and a second post for every third one), all at once.
    const attempts = holds.flatMap((h, i) => [
      inTx((tx) => postHold(tx, m.id, h.id, at(), 'bank_rails')).then(() => ({ hold: h, event: 'post' })),
      inTx((tx) => voidHold(tx, m.id, h.id, at())).then(() => ({ hold: h, event: 'void' })),
      ...(i % 3 === 0
        ? [
            inTx((tx) => postHold(tx, m.id, h.id, at(), 'bank_rails')).then(() => ({
              hold: h,
              event: 'post',
            })),
          ]
        : []),
    ]);
    const { ok, failed } = outcomes(await Promise.allSettled(attempts), ['invalid_state']);
    expect(ok).toHaveLength(holds.length);
    expect(failed).toHaveLength(attempts.length - holds.length);
    for (const h of holds) {
      const wins = ok.filter((win) => win.hold === h);
      expect(wins).toHaveLength(1);
      // One event per state change, and only the winner's: the losers rolled back theirs.
      expect(await eventTypesOf(h.id)).toEqual([
        'balance_transaction.created',
        wins[0]?.event === 'post' ? 'balance_transaction.posted' : 'balance_transaction.voided',
      ]);
    }
    const posted = ok.filter((win) => win.event === 'post').reduce((sum, win) => sum + win.hold.amount, 0n);
    expect(await balances(m.id)).toEqual({ available: 100_000n - posted, pending: 0n, reserved: 0n });
    await expectCleanLedger(m.id);
  });

  it('reversing the same top-up from several transactions at once reverses it exactly once', async () => {
    const m = await newMerchant('Reverser');
    const top = await topUp(m.id, 7_00n);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => inTx((tx) => reversePosting(tx, m.id, top.id, at()))),
    );
    const { ok, failed } = outcomes(results, ['invalid_state']);
    expect(ok).toHaveLength(1);
    expect(failed).toHaveLength(5);
    expect(await eventTypesOf(top.id)).toEqual([
      'balance_transaction.created',
      'balance_transaction.reversed',
    ]);
    expect(await eventTypesOf(ok[0]!.id)).toEqual(['balance_transaction.created']);
    expect(await balances(m.id)).toEqual({ available: 0n, pending: 0n, reserved: 0n });
    const settled = await hold(m.id, 1n).catch((error: unknown) => error);
    expect(isSandbankError(settled) && settled.code).toBe('insufficient_balance');
    await expectCleanLedger(m.id);
  });

  it('two merchants hammered at once never affect each other', async () => {
    const a = await newMerchant('Race A');
    const b = await newMerchant('Race B');
    await Promise.all([topUp(a.id, 10_000n), topUp(b.id, 5_000n)]);
    const run = (merchantId: string, holdAmount: bigint, topUpAmount: bigint) =>
      shuffle([
        ...Array.from({ length: 20 }, () =>
          hold(merchantId, holdAmount).then(() => ({ merchantId, kind: 'hold' as const })),
        ),
        ...Array.from({ length: 5 }, () =>
          topUp(merchantId, topUpAmount).then(() => ({ merchantId, kind: 'topUp' as const })),
        ),
      ]);
    const ops = [...run(a.id, 700n, 100n), ...run(b.id, 300n, 50n)];
    const { ok } = outcomes(await Promise.allSettled(ops), ['insufficient_balance']);
    for (const [m, initial, holdAmount, topUpAmount] of [
      [a, 10_000n, 700n, 100n],
      [b, 5_000n, 300n, 50n],
    ] as const) {
      const mine = ok.filter((result) => result.merchantId === m.id);
      const held = BigInt(mine.filter((result) => result.kind === 'hold').length);
      expect(mine.filter((result) => result.kind === 'topUp')).toHaveLength(5);
      const after = await balances(m.id);
      expect(after).toEqual({
        available: initial + 5n * topUpAmount - held * holdAmount,
        pending: 0n,
        reserved: held * holdAmount,
      });
      expect(after.available).toBeGreaterThanOrEqual(0n);
      // Every hold that fits in the merchant's own funds succeeded: fewer than one hold's worth is
      // left, give or take the top-ups that may have landed after the last failure.
      expect(after.available).toBeLessThan(holdAmount + 5n * topUpAmount);
      await expectCleanLedger(m.id);
    }
  });
});
