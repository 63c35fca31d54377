import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Tx } from '../../db/client.ts';
import { inTransaction, runTransaction } from '../../db/tx.ts';
import { type Clock, systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { parseInput } from '../../kernel/validation.ts';
import type { MerchantRef, ServiceContext } from '../context.ts';
import { getMerchant } from '../merchants/merchants.service.ts';
import { merchantsWithDueWork, type RanJob, runDueJobs } from '../scheduler/scheduler.service.ts';
import { merchantClocks } from './clock.table.ts';

export interface ClockState {
  offsetMs: number;
  frozenAt: Date | null;
}

const REAL_TIME: ClockState = { offsetMs: 0, frozenAt: null };

/** A merchant's clock: real time plus an offset, or frozen at an instant. */
export class MerchantClock implements Clock {
  constructor(
    readonly state: ClockState,
    private readonly real: Clock = systemClock,
  ) {}

  now(): Date {
    return this.state.frozenAt
      ? new Date(this.state.frozenAt)
      : new Date(this.real.now().getTime() + this.state.offsetMs);
  }
}

/**
 * Clock states are cached in-process for one second: a change made through this process is seen at
 * once, a change made by another instance on the same Postgres within a second.
 */
const CACHE_MS = 1000;
const cache = new WeakMap<Db, Map<string, { state: ClockState; loadedAt: number }>>();

function cacheOf(db: Db) {
  let map = cache.get(db);
  if (!map) {
    map = new Map();
    cache.set(db, map);
  }
  return map;
}

async function readState(exec: Db | Tx, merchantId: string): Promise<ClockState> {
  const [row] = await exec.select().from(merchantClocks).where(eq(merchantClocks.merchantId, merchantId));
  return row ? { offsetMs: row.offsetMs, frozenAt: row.frozenAt } : REAL_TIME;
}

/**
 * A merchant's clock read inside a transaction that is already open (another merchant's, in the
 * closed loop of issuing): never through a second connection, which on PGlite would wait for the
 * open transaction forever.
 */
export async function clockInTransaction(tx: Tx, merchantId: string): Promise<MerchantClock> {
  return new MerchantClock(await readState(tx, merchantId), systemClock);
}

/** The clock services of a merchant read time from. */
export async function clockFor(
  db: Db,
  merchantId: string,
  real: Clock = systemClock,
): Promise<MerchantClock> {
  const map = cacheOf(db);
  const realNow = systemClock.now().getTime(); // cache bookkeeping, not business time
  const hit = map.get(merchantId);
  if (hit && realNow - hit.loadedAt < CACHE_MS) return new MerchantClock(hit.state, real);
  const state = await readState(db, merchantId);
  if (map.size > 10_000) map.clear();
  map.set(merchantId, { state, loadedAt: realNow });
  return new MerchantClock(state, real);
}

export interface ClockView {
  now: Date;
  frozen: boolean;
  offsetMs: number;
  ran: RanJob[];
}

function view(state: ClockState, real: Clock, ran: RanJob[] = []): ClockView {
  return {
    now: new MerchantClock(state, real).now(),
    frozen: state.frozenAt !== null,
    offsetMs: state.offsetMs,
    ran,
  };
}

/**
 * Locks the merchant's clock row for the rest of the transaction (creating it at real time if
 * absent): every change of a clock and every run of a merchant's due work goes through this lock.
 */
export async function lockClock(tx: Tx, merchantId: string, realNow: Date): Promise<ClockState> {
  await tx
    .insert(merchantClocks)
    .values({ merchantId, offsetMs: 0, frozenAt: null, updatedAt: realNow })
    .onConflictDoNothing({ target: merchantClocks.merchantId });
  const [row] = await tx
    .select()
    .from(merchantClocks)
    .where(eq(merchantClocks.merchantId, merchantId))
    .for('update');
  if (!row) throw new Error('clock row vanished');
  return { offsetMs: row.offsetMs, frozenAt: row.frozenAt };
}

async function saveClock(tx: Tx, merchantId: string, state: ClockState, realNow: Date): Promise<void> {
  await tx
    .update(merchantClocks)
    .set({ offsetMs: state.offsetMs, frozenAt: state.frozenAt, updatedAt: realNow })
    .where(eq(merchantClocks.merchantId, merchantId));
}

function forget(db: Db, merchantId: string): void {
  cacheOf(db).delete(merchantId);
}

/** Ten years: far enough for any test, small enough to keep dates sane. */
const MAX_ADVANCE_SECONDS = 10 * 366 * 24 * 3600;

export const advanceClockSchema = z
  .strictObject({
    seconds: z.number().int().positive().max(MAX_ADVANCE_SECONDS).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
  })
  .refine(
    (input) => (input.seconds === undefined) !== (input.to === undefined),
    'send exactly one of seconds or to',
  );

export async function getClock(ctx: ServiceContext): Promise<ClockView> {
  return view(await readState(ctx.tx ?? ctx.db, ctx.merchant.id), systemClock);
}

interface ClockPlan {
  state: ClockState;
  /** Run the merchant's due work up to this instant before the change is saved. */
  runUntil: Date | null;
}

/**
 * How long an advance's hold on its window's work lasts without renewal (real time), and how often
 * it is renewed while the work runs: a crashed advance's hold lapses within a minute.
 */
const HOLD_MS = 60_000;
const HOLD_RENEW_MS = 20_000;

async function changeClock(
  ctx: ServiceContext,
  plan: (state: ClockState, now: Date, realNow: Date) => ClockPlan,
  holdId: string | null = null,
): Promise<ClockView> {
  const realNow = systemClock.now();
  const result = await inTransaction(ctx.db, ctx.tx, async (tx) => {
    const before = await lockClock(tx, ctx.merchant.id, realNow);
    const { state, runUntil } = plan(before, new MerchantClock(before, systemClock).now(), realNow);
    const ran = runUntil
      ? await runDueJobs(tx, ctx.merchant, runUntil, { db: ctx.db, publicUrl: ctx.publicUrl })
      : [];
    await saveClock(tx, ctx.merchant.id, state, realNow);
    if (holdId) await hold(tx, ctx.merchant.id, holdId);
    return view(state, systemClock, ran);
  });
  forget(ctx.db, ctx.merchant.id);
  return result;
}

function advanceTarget(input: z.output<typeof advanceClockSchema>, now: Date): Date {
  const target = input.to ? new Date(input.to) : new Date(now.getTime() + (input.seconds ?? 0) * 1000);
  if (target.getTime() < now.getTime()) {
    throw new SandbankError('clock_backwards', {
      param: 'to',
      message: `The clock only moves forward: it is ${now.toISOString()}, ${target.toISOString()} is in its past.`,
    });
  }
  if (target.getTime() - now.getTime() > MAX_ADVANCE_SECONDS * 1000) {
    throw new SandbankError('parameter_invalid', {
      param: 'to',
      message: 'Advance at most ten years at a time.',
    });
  }
  return target;
}

/**
 * Moves the merchant's clock forward (`seconds` or `to`) after running every piece of that
 * merchant's work that falls due on the way, in due-time order, before answering.
 */
export async function advanceClock(ctx: ServiceContext, raw: unknown): Promise<ClockView> {
  const input = parseInput(advanceClockSchema, raw, {
    seconds: 'parameter_invalid',
    to: 'parameter_invalid',
  });
  let until: Date | null = null;
  // Work outside the clock's transaction (HTTP deliveries) runs after it commits, still before
  // answering: inside a caller's transaction (an Idempotency-Key request), once the caller has
  // committed (on PGlite the hooks' queries would wait for that very transaction). The transaction
  // that moves the clock also takes a hold on that work (the background worker would otherwise take
  // the window's deliveries at the clock's new time, its end), released once the work is done.
  const holdId = ctx.tx && !ctx.afterCommit ? null : randomUUID();
  const view = await changeClock(
    ctx,
    (state, now, realNow) => {
      const target = advanceTarget(input, now);
      until = target;
      const next = state.frozenAt
        ? { offsetMs: state.offsetMs, frozenAt: target }
        : { offsetMs: target.getTime() - realNow.getTime(), frozenAt: null };
      return { state: next, runUntil: target };
    },
    holdId,
  );
  if (holdId) {
    const finish = () =>
      whileHolding(ctx.db, ctx.merchant.id, holdId, () => runAfterAdvance(ctx, until ?? view.now));
    if (ctx.tx && ctx.afterCommit) ctx.afterCommit(finish);
    else await finish();
  }
  return view;
}

/** The after-advance hooks, outside any transaction (the caller's has committed by now). */
async function runAfterAdvance(ctx: ServiceContext, until: Date): Promise<void> {
  const { tx: _committed, afterCommit: _done, ...outside } = ctx;
  for (const hook of afterAdvanceHooks) await hook(outside, until);
}

/** Marks the merchant's clock as held by the advance `holdId` for HOLD_MS of real time. */
async function hold(tx: Tx, merchantId: string, holdId: string): Promise<void> {
  await tx
    .update(merchantClocks)
    .set({ advancingId: holdId, advancingUntil: new Date(systemClock.now().getTime() + HOLD_MS) })
    .where(eq(merchantClocks.merchantId, merchantId));
}

/**
 * Runs `work` while the advance `holdId` holds the merchant's clock, renewing the hold, then
 * releases it (unless a later advance has taken it over, which releases it itself).
 */
async function whileHolding(db: Db, merchantId: string, holdId: string, work: () => Promise<void>) {
  const mine = and(eq(merchantClocks.merchantId, merchantId), eq(merchantClocks.advancingId, holdId));
  const renew = setInterval(() => {
    db.update(merchantClocks)
      .set({ advancingUntil: new Date(systemClock.now().getTime() + HOLD_MS) })
      .where(mine)
      .catch(() => {}); // a missed renewal only shortens the hold
  }, HOLD_RENEW_MS);
  try {
    await work();
  } finally {
    clearInterval(renew);
    await db.update(merchantClocks).set({ advancingId: null, advancingUntil: null }).where(mine);
  }
}

export type AfterAdvanceHook = (ctx: ServiceContext, until: Date) => Promise<unknown>;
const afterAdvanceHooks: AfterAdvanceHook[] = [];

/** Work a clock advance must also finish before it answers, outside its transaction (webhook retries). */
export function registerAfterAdvance(hook: AfterAdvanceHook): void {
  if (!afterAdvanceHooks.includes(hook)) afterAdvanceHooks.push(hook);
}

/** Stops the merchant's clock where it is. */
export function freezeClock(ctx: ServiceContext): Promise<ClockView> {
  return changeClock(ctx, (state, now) => ({
    state: { offsetMs: state.offsetMs, frozenAt: state.frozenAt ?? now },
    runUntil: null,
  }));
}

/** Lets a frozen clock run again from where it stood. */
export function unfreezeClock(ctx: ServiceContext): Promise<ClockView> {
  return changeClock(ctx, (state, now, realNow) => ({
    state: state.frozenAt ? { offsetMs: now.getTime() - realNow.getTime(), frozenAt: null } : state,
    runUntil: null,
  }));
}

/**
 * Back to real time, unfrozen. Work already run stays done; work now in the clock's future waits
 * for real time to reach it (or the next advance).
 */
export function resetClock(ctx: ServiceContext): Promise<ClockView> {
  return changeClock(ctx, () => ({ state: REAL_TIME, runUntil: null }));
}

/** Runs a merchant's work that is due by its clock now (the background timer's step). */
export async function runDueWorkNow(db: Db, merchant: MerchantRef, publicUrl: string): Promise<RanJob[]> {
  const realNow = systemClock.now();
  return runTransaction(db, async (tx) => {
    await tx
      .insert(merchantClocks)
      .values({ merchantId: merchant.id, offsetMs: 0, frozenAt: null, updatedAt: realNow })
      .onConflictDoNothing({ target: merchantClocks.merchantId });
    // Skip merchants whose clock another runner (an advance, another instance) holds right now.
    const [row] = await tx
      .select()
      .from(merchantClocks)
      .where(eq(merchantClocks.merchantId, merchant.id))
      .for('update', { skipLocked: true });
    if (!row) return [];
    const now = new MerchantClock({ offsetMs: row.offsetMs, frozenAt: row.frozenAt }, systemClock).now();
    return runDueJobs(tx, merchant, now, { db, publicUrl });
  });
}

/**
 * One pass of the background runner: every merchant with work due by its own clock runs it (up to
 * `maxMerchants` per pass). Returns how many jobs ran. On Postgres several instances share the
 * work: a merchant whose clock row another runner holds is skipped.
 */
export async function runDueWork(db: Db, publicUrl: string, maxMerchants = 50): Promise<number> {
  const ids = await merchantsWithDueWork(db, systemClock.now(), maxMerchants);
  let ran = 0;
  for (const id of ids) {
    const merchant = await getMerchant(db, id);
    if (merchant) ran += (await runDueWorkNow(db, merchant, publicUrl)).length;
  }
  return ran;
}
