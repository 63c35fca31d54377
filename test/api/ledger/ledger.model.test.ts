/**
 * Model-based test of the ledger: fast-check drives random sequences of
 * top-ups, holds, posts, voids, pending credits and their release, reversals and clock advances
 * against a plain in-memory model, and after every step checks that the database agrees with the
 * model, that every posting balanced (per currency the entries sum to zero), that maintained
 * balances equal balances recomputed from entries, that available never went negative except where
 * a step allowed it, and that a failed operation wrote nothing.
 */
import { and, count, eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tx } from '../../../src/db/client.ts';
import { scheduledJobs } from '../../../src/db/scheduled-jobs.table.ts';
import { CURRENCY_CODES, type CurrencyCode } from '../../../src/kernel/currency.ts';
import { isSandbankError } from '../../../src/kernel/errors.ts';
import { newId } from '../../../src/kernel/ids.ts';
import { advanceClock, freezeClock } from '../../../src/modules/clock/clock.change.ts';
import { clockFor, getClock } from '../../../src/modules/clock/clock.service.ts';
import type { MerchantRef, ServiceContext } from '../../../src/modules/context.ts';
import { creditPendingFunds, fundsAvailableAt } from '../../../src/modules/ledger/ledger.funds.ts';
import { placeHold, postHold, voidHold } from '../../../src/modules/ledger/ledger.holds.ts';
import { postFundsAvailable, postPendingCredit, postTopUp } from '../../../src/modules/ledger/ledger.post.ts';
import { getBalances, verifyLedger } from '../../../src/modules/ledger/ledger.queries.ts';
import { reversePosting } from '../../../src/modules/ledger/ledger.reverse.ts';
import { ledgerAccounts, ledgerEntries, ledgerPostings } from '../../../src/modules/ledger/ledger.table.ts';
import { createTestApp, TEST_SERVICES, type TestApp } from '../../support/harness.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

// ---------------------------------------------------------------------------------------------
// The model

const CURRENCIES = ['USD', 'EUR', 'JPY'] as const satisfies readonly CurrencyCode[];
type Currency = (typeof CURRENCIES)[number];

interface Bal {
  available: bigint;
  pending: bigint;
  reserved: bigint;
}

interface Hold {
  id: string;
  currency: Currency;
  amount: bigint;
}

interface Model {
  now: Date;
  balances: Record<Currency, Bal>;
  openHolds: Hold[];
  settledHolds: Hold[];
  /** Top-ups not yet reversed (a top-up is reversed at most once here). */
  topUps: Hold[];
  /** Pending credits made with postPendingCredit, not yet released by hand. */
  manualPending: Hold[];
  /** Pending credits made with creditPendingFunds: released by the scheduler at dueAt. */
  scheduled: { currency: Currency; amount: bigint; dueAt: Date }[];
}

function emptyModel(now: Date): Model {
  const zero = (): Bal => ({ available: 0n, pending: 0n, reserved: 0n });
  return {
    now,
    balances: { USD: zero(), EUR: zero(), JPY: zero() },
    openHolds: [],
    settledHolds: [],
    topUps: [],
    manualPending: [],
    scheduled: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Commands

type Cmd =
  | { kind: 'topUp'; currency: Currency; amount: bigint }
  | { kind: 'hold'; currency: Currency; amount: bigint }
  | { kind: 'postHold'; pick: number }
  | { kind: 'voidHold'; pick: number }
  | { kind: 'settleSettled'; pick: number; event: 'post' | 'void' }
  | { kind: 'pendingCredit'; currency: Currency; amount: bigint }
  | { kind: 'releasePending'; pick: number }
  | { kind: 'scheduledCredit'; currency: Currency; amount: bigint }
  | { kind: 'reverseTopUp'; pick: number; allowNegative: boolean }
  | { kind: 'reverseOpenHold'; pick: number }
  | { kind: 'advance'; seconds: number };

/**
 * A hold's amount as generated: fixed, a share of the available balance at that moment (per mille,
 * up to 120%), or the available balance itself give or take one minor unit (the exact boundary).
 */
type HoldAmount = { fixed: bigint } | { permille: number } | { edge: -1 | 0 | 1 };
type GenCmd =
  | Exclude<Cmd, { kind: 'hold' }>
  /** 'funded': the currency with the most available funds at that moment. */
  | { kind: 'hold'; currency: Currency | 'funded'; amount: HoldAmount };

function concrete(model: Model, cmd: GenCmd): Cmd {
  if (cmd.kind !== 'hold') return cmd;
  const currency =
    cmd.currency !== 'funded'
      ? cmd.currency
      : CURRENCIES.reduce((best, code) =>
          model.balances[code].available > model.balances[best].available ? code : best,
        );
  const available = model.balances[currency].available;
  const spec = cmd.amount;
  let amount: bigint;
  if ('fixed' in spec) amount = spec.fixed;
  else if ('permille' in spec) amount = (available * BigInt(spec.permille)) / 1000n;
  else amount = available + BigInt(spec.edge);
  return { kind: 'hold', currency, amount: amount > 0n ? amount : 1n };
}

const currencyArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant('USD' as const) },
  fc.constant('EUR' as const),
  fc.constant('JPY' as const),
);
/** 1..10^9 minor units, with a bias to small amounts so holds both fit and fail. */
const amountArb = fc.oneof(fc.bigInt({ min: 1n, max: 1_000_000_000n }), fc.bigInt({ min: 1n, max: 10_000n }));
const pickArb = fc.nat({ max: 1000 });

const holdAmountArb: fc.Arbitrary<HoldAmount> = fc.oneof(
  fc.record({ fixed: amountArb }),
  { weight: 3, arbitrary: fc.record({ permille: fc.integer({ min: 1, max: 1000 }) }) },
  fc.record({ permille: fc.integer({ min: 1, max: 1200 }) }),
  fc.record({ edge: fc.constantFrom(-1 as const, 0 as const, 1 as const) }),
);

const cmdArb: fc.Arbitrary<GenCmd> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('topUp' as const), currency: currencyArb, amount: amountArb }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('hold' as const),
      currency: fc.oneof({ weight: 3, arbitrary: fc.constant('funded' as const) }, currencyArb),
      amount: holdAmountArb,
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('postHold' as const), pick: pickArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('voidHold' as const), pick: pickArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('settleSettled' as const),
      pick: pickArb,
      event: fc.constantFrom('post' as const, 'void' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('pendingCredit' as const),
      currency: currencyArb,
      amount: amountArb,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('releasePending' as const), pick: pickArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('scheduledCredit' as const),
      currency: currencyArb,
      amount: amountArb,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('reverseTopUp' as const),
      pick: pickArb,
      allowNegative: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, fc.constant(true)),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reverseOpenHold' as const), pick: pickArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      // Up to four days: often across the two-banking-day release of a scheduled credit.
      seconds: fc.integer({ min: 60, max: 4 * 86_400 }),
    }),
  },
);

// ---------------------------------------------------------------------------------------------
// Running a command against the database and the model

interface Run {
  merchant: MerchantRef;
  model: Model;
}

async function ctxOf(run: Run): Promise<ServiceContext> {
  return {
    db: t.database.db,
    clock: await clockFor(t.database.db, run.merchant.id),
    merchant: run.merchant,
    publicUrl: 'http://x',
    ...TEST_SERVICES,
  };
}

function tx<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  return t.database.db.transaction(work);
}

const pickFrom = <T>(list: T[], pick: number): T | undefined => list[pick % Math.max(list.length, 1)];

interface Snapshot {
  balances: Awaited<ReturnType<typeof getBalances>>;
  postings: number;
  entries: number;
  jobs: number;
}

async function countWhere(
  table: typeof ledgerPostings | typeof ledgerEntries | typeof scheduledJobs,
  merchantId: string,
): Promise<number> {
  const [row] = await t.database.db
    .select({ n: count() })
    .from(table)
    .where(eq(table.merchantId, merchantId));
  return row?.n ?? 0;
}

async function snapshot(run: Run): Promise<Snapshot> {
  const ctx = await ctxOf(run);
  return {
    balances: await getBalances(ctx),
    postings: await countWhere(ledgerPostings, run.merchant.id),
    entries: await countWhere(ledgerEntries, run.merchant.id),
    jobs: await countWhere(scheduledJobs, run.merchant.id),
  };
}

/** What the model predicts for a step: success (and how it changes the model) or a failure code. */
type Prediction =
  | { outcome: 'skip' }
  | { outcome: 'fail'; code: 'insufficient_balance' | 'invalid_state'; currency?: Currency }
  | { outcome: 'ok'; currency?: Currency; allowsNegative?: boolean; apply: (result: string | null) => void };

function predict(model: Model, cmd: Cmd): Prediction {
  const b = (currency: Currency) => model.balances[currency];
  switch (cmd.kind) {
    case 'topUp':
      return {
        outcome: 'ok',
        currency: cmd.currency,
        apply: (id) => {
          b(cmd.currency).available += cmd.amount;
          model.topUps.push({ id: id!, currency: cmd.currency, amount: cmd.amount });
        },
      };
    case 'hold':
      if (b(cmd.currency).available < cmd.amount)
        return { outcome: 'fail', code: 'insufficient_balance', currency: cmd.currency };
      return {
        outcome: 'ok',
        currency: cmd.currency,
        apply: (id) => {
          b(cmd.currency).available -= cmd.amount;
          b(cmd.currency).reserved += cmd.amount;
          model.openHolds.push({ id: id!, currency: cmd.currency, amount: cmd.amount });
        },
      };
    case 'postHold':
    case 'voidHold': {
      const hold = pickFrom(model.openHolds, cmd.pick);
      if (!hold) return { outcome: 'skip' };
      return {
        outcome: 'ok',
        currency: hold.currency,
        apply: () => {
          b(hold.currency).reserved -= hold.amount;
          if (cmd.kind === 'voidHold') b(hold.currency).available += hold.amount;
          model.openHolds = model.openHolds.filter((open) => open !== hold);
          model.settledHolds.push(hold);
        },
      };
    }
    case 'settleSettled':
      if (model.settledHolds.length === 0) return { outcome: 'skip' };
      return { outcome: 'fail', code: 'invalid_state' };
    case 'pendingCredit':
      return {
        outcome: 'ok',
        currency: cmd.currency,
        apply: (id) => {
          b(cmd.currency).pending += cmd.amount;
          model.manualPending.push({ id: id!, currency: cmd.currency, amount: cmd.amount });
        },
      };
    case 'releasePending': {
      const credit = pickFrom(model.manualPending, cmd.pick);
      if (!credit) return { outcome: 'skip' };
      return {
        outcome: 'ok',
        currency: credit.currency,
        apply: () => {
          b(credit.currency).pending -= credit.amount;
          b(credit.currency).available += credit.amount;
          model.manualPending = model.manualPending.filter((open) => open !== credit);
        },
      };
    }
    case 'scheduledCredit':
      return {
        outcome: 'ok',
        currency: cmd.currency,
        apply: () => {
          b(cmd.currency).pending += cmd.amount;
          model.scheduled.push({
            currency: cmd.currency,
            amount: cmd.amount,
            dueAt: fundsAvailableAt(model.now),
          });
        },
      };
    case 'reverseTopUp': {
      const topUp = pickFrom(model.topUps, cmd.pick);
      if (!topUp) return { outcome: 'skip' };
      if (!cmd.allowNegative && b(topUp.currency).available < topUp.amount)
        return { outcome: 'fail', code: 'insufficient_balance', currency: topUp.currency };
      return {
        outcome: 'ok',
        currency: topUp.currency,
        allowsNegative: cmd.allowNegative,
        apply: () => {
          b(topUp.currency).available -= topUp.amount;
          model.topUps = model.topUps.filter((open) => open !== topUp);
        },
      };
    }
    case 'reverseOpenHold':
      // A hold is a pending posting: it is posted or voided, never reversed.
      if (model.openHolds.length === 0) return { outcome: 'skip' };
      return { outcome: 'fail', code: 'invalid_state' };
    case 'advance':
      return {
        outcome: 'ok',
        apply: () => {
          const target = new Date(model.now.getTime() + cmd.seconds * 1000);
          const due = model.scheduled.filter((credit) => credit.dueAt.getTime() <= target.getTime());
          for (const credit of due) {
            b(credit.currency).pending -= credit.amount;
            b(credit.currency).available += credit.amount;
          }
          model.scheduled = model.scheduled.filter((credit) => !due.includes(credit));
          model.now = target;
        },
      };
  }
}

/** Runs a command against the database; returns the id of the posting it created, if any. */
async function execute(run: Run, cmd: Cmd): Promise<string | null> {
  const { model, merchant } = run;
  const at = model.now;
  const base = { merchantId: merchant.id, at };
  switch (cmd.kind) {
    case 'topUp':
      return (
        await tx((db) =>
          postTopUp(db, {
            ...base,
            currency: cmd.currency,
            amount: cmd.amount,
            source: { type: 'top_up', id: merchant.id },
          }),
        )
      ).id;
    case 'hold':
      return (
        await tx((db) =>
          placeHold(db, {
            ...base,
            currency: cmd.currency,
            amount: cmd.amount,
            source: { type: 'payout', id: `po_model_${model.openHolds.length}` },
          }),
        )
      ).id;
    case 'postHold': {
      const hold = pickFrom(model.openHolds, cmd.pick)!;
      return (await tx((db) => postHold(db, merchant.id, hold.id, at, 'bank_rails'))).id;
    }
    case 'voidHold': {
      const hold = pickFrom(model.openHolds, cmd.pick)!;
      return (await tx((db) => voidHold(db, merchant.id, hold.id, at))).id;
    }
    case 'settleSettled': {
      const hold = pickFrom(model.settledHolds, cmd.pick)!;
      const settle =
        cmd.event === 'post'
          ? (db: Tx) => postHold(db, merchant.id, hold.id, at, 'bank_rails')
          : (db: Tx) => voidHold(db, merchant.id, hold.id, at);
      return (await tx(settle)).id;
    }
    case 'pendingCredit':
      return (
        await tx((db) =>
          postPendingCredit(db, {
            ...base,
            currency: cmd.currency,
            amount: cmd.amount,
            type: 'card_payment',
            from: 'card_network',
            source: { type: 'collection', id: `col_model_${model.manualPending.length}` },
          }),
        )
      ).id;
    case 'releasePending': {
      const credit = pickFrom(model.manualPending, cmd.pick)!;
      return (
        await tx((db) =>
          postFundsAvailable(db, {
            ...base,
            currency: credit.currency,
            amount: credit.amount,
            relatedId: credit.id,
            source: { type: 'collection', id: 'col_model_release' },
          }),
        )
      ).id;
    }
    case 'scheduledCredit': {
      const ctx = await ctxOf(run);
      // The merchant's clock is frozen at model.now, so the credit is dated there.
      expect(ctx.clock.now().toISOString()).toBe(model.now.toISOString());
      await tx((db) =>
        creditPendingFunds(db, ctx, {
          amount: cmd.amount,
          currency: cmd.currency,
          type: 'card_payment',
          from: 'card_network',
          source: { type: 'collection', id: `col_model_sched_${model.scheduled.length}` },
        }),
      );
      return null;
    }
    case 'reverseTopUp': {
      const topUp = pickFrom(model.topUps, cmd.pick)!;
      const options = cmd.allowNegative ? { allowNegative: ['available'] as const } : {};
      return (await tx((db) => reversePosting(db, merchant.id, topUp.id, at, options))).id;
    }
    case 'reverseOpenHold': {
      const hold = pickFrom(model.openHolds, cmd.pick)!;
      return (await tx((db) => reversePosting(db, merchant.id, hold.id, at))).id;
    }
    case 'advance': {
      const view = await advanceClock(await ctxOf(run), { seconds: cmd.seconds });
      const target = new Date(model.now.getTime() + cmd.seconds * 1000);
      expect(view.now.toISOString()).toBe(target.toISOString());
      expect(view.ran.filter((job) => job.state !== 'done')).toEqual([]);
      const due = model.scheduled.filter((credit) => credit.dueAt.getTime() <= target.getTime());
      expect(view.ran.length).toBe(due.length);
      if (due.length > 0) seen.set('advance:released', (seen.get('advance:released') ?? 0) + 1);
      return null;
    }
  }
}

const zero: Bal = { available: 0n, pending: 0n, reserved: 0n };

function balancesOf(snap: Snapshot): Record<string, Bal> {
  const out: Record<string, Bal> = {};
  for (const code of CURRENCY_CODES) {
    const row = snap.balances.find((balance) => balance.currency === code);
    out[code] = row ? { available: row.available, pending: row.pending, reserved: row.reserved } : zero;
  }
  return out;
}

async function checkInvariants(
  run: Run,
  before: Snapshot,
  after: Snapshot,
  allowedNegative: Currency | undefined,
): Promise<void> {
  const db = balancesOf(after);
  const previous = balancesOf(before);
  for (const code of CURRENCY_CODES) {
    const expected = (CURRENCIES as readonly string[]).includes(code)
      ? run.model.balances[code as Currency]
      : zero;
    expect(db[code], `${code} balances`).toEqual(expected);
    // Guarded debits cannot take available below zero, nor lower once it is there.
    const available = db[code]!.available;
    if (available < 0n && code !== allowedNegative) {
      expect(available, `${code} available went lower while negative`).toBeGreaterThanOrEqual(
        previous[code]!.available,
      );
    }
    expect(db[code]!.pending, `${code} pending`).toBeGreaterThanOrEqual(0n);
    expect(db[code]!.reserved, `${code} reserved`).toBeGreaterThanOrEqual(0n);
  }
  const check = await verifyLedger(t.database.db, run.merchant.id);
  expect(check.mismatches).toEqual([]);
  for (const [currency, sum] of Object.entries(check.sums)) expect(sum, `${currency} entries sum`).toBe(0n);
  const [failed] = await t.database.db
    .select({ n: count() })
    .from(scheduledJobs)
    .where(and(eq(scheduledJobs.merchantId, run.merchant.id), eq(scheduledJobs.state, 'failed')));
  expect(failed?.n ?? 0, 'failed scheduled jobs').toBe(0);
}

/** How often each command ran and how it ended, to check the generator reaches every case. */
const seen = new Map<string, number>();

async function step(run: Run, generated: GenCmd): Promise<void> {
  const cmd = concrete(run.model, generated);
  const prediction = predict(run.model, cmd);
  const label = `${cmd.kind}:${prediction.outcome === 'fail' ? prediction.code : prediction.outcome}`;
  seen.set(label, (seen.get(label) ?? 0) + 1);
  if (prediction.outcome === 'skip') return;
  const before = await snapshot(run);
  let result: { ok: true; id: string | null } | { ok: false; error: unknown };
  try {
    result = { ok: true, id: await execute(run, cmd) };
  } catch (error) {
    result = { ok: false, error };
  }
  if (prediction.outcome === 'fail') {
    if (result.ok) throw new Error(`expected ${prediction.code}, but ${cmd.kind} succeeded`);
    if (!isSandbankError(result.error)) throw result.error;
    expect(result.error.code).toBe(prediction.code);
    const after = await snapshot(run);
    expect(after, 'a failed operation changed nothing').toEqual(before);
    await checkInvariants(run, before, after, undefined);
    return;
  }
  if (!result.ok) throw result.error;
  prediction.apply(result.id);
  const after = await snapshot(run);
  await checkInvariants(run, before, after, prediction.allowsNegative ? prediction.currency : undefined);
}

async function newRun(): Promise<Run> {
  const created = await t.merchant('Model Merchant');
  const merchant = { id: created.id, name: created.name };
  const ctx: ServiceContext = {
    db: t.database.db,
    clock: await clockFor(t.database.db, merchant.id),
    merchant,
    publicUrl: 'http://x',
    ...TEST_SERVICES,
  };
  await freezeClock(ctx);
  const { now } = await getClock(ctx);
  return { merchant, model: emptyModel(now) };
}

describe('ledger model', () => {
  it('agrees with an in-memory model after every step of random operation sequences', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 25, size: 'max' }), async (cmds) => {
        const run = await newRun();
        for (const cmd of cmds) await step(run, cmd);
      }),
      { numRuns: 20, interruptAfterTimeLimit: 100_000 },
    );
    // The generator reaches the interesting cases (each is common: dozens per run of the file).
    for (const label of [
      'topUp:ok',
      'hold:ok',
      'hold:insufficient_balance',
      'advance:ok',
      'scheduledCredit:ok',
    ])
      expect(seen.get(label) ?? 0, label).toBeGreaterThan(0);
  }, 120_000);

  it('a failed first posting in a currency does not break later postings in it', async () => {
    const run = await newRun();
    await step(run, { kind: 'hold', currency: 'EUR', amount: { fixed: 500n } });
    await step(run, { kind: 'topUp', currency: 'EUR', amount: 1_000n });
    await step(run, { kind: 'hold', currency: 'EUR', amount: { fixed: 500n } });
    await step(run, { kind: 'voidHold', pick: 0 });
    expect(run.model.balances.EUR).toEqual({ available: 1_000n, pending: 0n, reserved: 0n });
  });

  it('debits fail exactly at the boundary, and only an explicit allowance takes available below zero', async () => {
    const run = await newRun();
    await step(run, { kind: 'topUp', currency: 'USD', amount: 1_000n });
    await step(run, { kind: 'hold', currency: 'USD', amount: { edge: 1 } }); // 1001 of 1000: fails
    await step(run, { kind: 'hold', currency: 'USD', amount: { edge: 0 } }); // all 1000: fits
    expect(run.model.balances.USD).toEqual({ available: 0n, pending: 0n, reserved: 1_000n });
    await step(run, { kind: 'reverseTopUp', pick: 0, allowNegative: false }); // would go to -1000: fails
    expect(run.model.topUps).toHaveLength(1);
    await step(run, { kind: 'voidHold', pick: 0 });
    await step(run, { kind: 'settleSettled', pick: 0, event: 'post' }); // already voided: invalid_state
    await step(run, { kind: 'hold', currency: 'USD', amount: { fixed: 400n } });
    await step(run, { kind: 'reverseTopUp', pick: 0, allowNegative: true }); // 600 - 1000 = -400
    expect(run.model.balances.USD).toEqual({ available: -400n, pending: 0n, reserved: 400n });
    await step(run, { kind: 'hold', currency: 'USD', amount: { fixed: 1n } }); // negative: fails
    await step(run, { kind: 'postHold', pick: 0 });
    await step(run, { kind: 'topUp', currency: 'USD', amount: 401n });
    await step(run, { kind: 'hold', currency: 'USD', amount: { edge: 0 } }); // exactly 1: fits
    expect(run.model.balances.USD).toEqual({ available: 0n, pending: 0n, reserved: 1n });
    expect(seen.get('reverseTopUp:insufficient_balance')).toBeGreaterThan(0);
    expect(seen.get('settleSettled:invalid_state')).toBeGreaterThan(0);
  });

  it('verifyLedger notices a stored balance that disagrees with its entries, and unbalanced entries', async () => {
    // The checks above are only as good as verifyLedger: corrupt a ledger inside a transaction
    // that is rolled back, and make sure both kinds of damage are reported.
    const run = await newRun();
    await step(run, { kind: 'topUp', currency: 'USD', amount: 1_000n });
    const rollback = new Error('roll back');
    await expect(
      tx(async (db) => {
        const [available] = await db
          .select()
          .from(ledgerAccounts)
          .where(and(eq(ledgerAccounts.merchantId, run.merchant.id), eq(ledgerAccounts.kind, 'available')));
        if (!available) throw new Error('no available account');
        await db
          .update(ledgerAccounts)
          .set({ balance: sql`${ledgerAccounts.balance} + 1` })
          .where(eq(ledgerAccounts.id, available.id));
        const drifted = await verifyLedger(db, run.merchant.id);
        expect(drifted.mismatches).toEqual([
          expect.objectContaining({ accountId: available.id, stored: 1_001n, recomputed: 1_000n }),
        ]);
        expect(drifted.sums).toEqual({ USD: 0n });
        const [posting] = await db
          .select()
          .from(ledgerPostings)
          .where(eq(ledgerPostings.merchantId, run.merchant.id));
        await db.insert(ledgerEntries).values({
          id: newId('ledgerEntry'),
          postingId: posting!.id,
          accountId: available.id,
          merchantId: run.merchant.id,
          currency: 'USD',
          amount: 1n,
          createdAt: run.model.now,
        });
        const unbalanced = await verifyLedger(db, run.merchant.id);
        expect(unbalanced.mismatches).toEqual([]);
        expect(unbalanced.sums).toEqual({ USD: 1n });
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect((await verifyLedger(t.database.db, run.merchant.id)).mismatches).toEqual([]);
  });

  it('scheduled pending credits become available when the clock passes their release time', async () => {
    const run = await newRun();
    await step(run, { kind: 'scheduledCredit', currency: 'USD', amount: 2_500n });
    await step(run, { kind: 'scheduledCredit', currency: 'JPY', amount: 700n });
    await step(run, { kind: 'advance', seconds: 60 });
    expect(run.model.balances.USD.pending).toBe(2_500n);
    for (let i = 0; i < 10 && run.model.scheduled.length > 0; i++)
      await step(run, { kind: 'advance', seconds: 86_400 });
    expect(run.model.scheduled).toEqual([]);
    expect(run.model.balances.USD).toEqual({ available: 2_500n, pending: 0n, reserved: 0n });
    expect(run.model.balances.JPY).toEqual({ available: 700n, pending: 0n, reserved: 0n });
  });
});
