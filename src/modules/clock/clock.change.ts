import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { inTransaction } from '../../db/tx.ts';
import { systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ServiceContext } from '../context.ts';
import { runDueJobs } from '../scheduler/scheduler.service.ts';
import { type AdvanceClockInput, CLOCK_CEILING, MAX_ADVANCE_SECONDS } from './clock.schema.ts';
import {
  type ClockState,
  type ClockView,
  forget,
  lockClock,
  MerchantClock,
  REAL_TIME,
  saveClock,
  view,
} from './clock.service.ts';
import { nextSettlement } from './clock.settlement.ts';
import { merchantClocks } from './clock.table.ts';

/**
 * Changing a merchant's clock: an advance (which runs the work falling due on the way and holds
 * the work that runs after it), freezing, unfreezing and going back to real time.
 */

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
  plan: (state: ClockState, now: Date, realNow: Date, tx: Tx) => ClockPlan | Promise<ClockPlan>,
  holdId: string | null = null,
): Promise<ClockView> {
  const realNow = systemClock.now();
  const result = await inTransaction(ctx.db, ctx.tx, async (tx) => {
    const before = await lockClock(tx, ctx.merchant.id, realNow);
    const { state, runUntil } = await plan(before, new MerchantClock(before, systemClock).now(), realNow, tx);
    const ran = runUntil ? await runDueJobs(tx, ctx.merchant, runUntil, ctx) : [];
    await saveClock(tx, ctx.merchant.id, state, realNow);
    if (holdId) await hold(tx, ctx.merchant.id, holdId);
    return view(state, systemClock, ran);
  });
  forget(ctx.db, ctx.merchant.id);
  return result;
}

async function advanceTarget(ctx: ServiceContext, input: AdvanceClockInput, now: Date): Promise<Date> {
  // `next`: read under the clock's lock, so nothing in flight changes before the advance runs.
  if (input.next === 'settlement') return (await nextSettlement(ctx, now)).at;
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
  if (target.getTime() > CLOCK_CEILING.getTime()) {
    throw new SandbankError('parameter_invalid', {
      param: input.to ? 'to' : 'seconds',
      message: `The sandbox clock stops at ${CLOCK_CEILING.toISOString()}; it is ${now.toISOString()}. Reset the sandbox to start again from today.`,
    });
  }
  return target;
}

/**
 * Moves the merchant's clock forward (`seconds`, `to` or `next`) after running every piece of that
 * merchant's work that falls due on the way, in due-time order, before answering.
 */
export async function advanceClock(ctx: ServiceContext, input: AdvanceClockInput): Promise<ClockView> {
  let until: Date | null = null;
  // Work outside the clock's transaction (HTTP deliveries) runs after it commits, still before
  // answering: inside a caller's transaction (an Idempotency-Key request), once the caller has
  // committed (on PGlite the hooks' queries would wait for that very transaction). The transaction
  // that moves the clock also takes a hold on that work (the background worker would otherwise take
  // the window's deliveries at the clock's new time, its end), released once the work is done.
  const holdId = ctx.tx && !ctx.afterCommit ? null : randomUUID();
  const view = await changeClock(
    ctx,
    async (state, now, realNow, tx) => {
      const target = await advanceTarget({ ...ctx, tx }, input, now);
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

/**
 * Work a clock advance must also finish before it answers, outside its transaction (webhook retries);
 * registered once at start-up (modules/reactions.ts).
 */
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
