import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/client.ts';
import { runTransaction } from '../../db/tx.ts';
import { systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { Lanes } from '../../kernel/lanes.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import { JOB_BATCH, type RanJob, runDueJobs } from '../scheduler/scheduler.service.ts';
import { hold, landed, renewWhileRunning, whileHolding } from './clock.hold.ts';
import { type AdvanceClockInput, CLOCK_CEILING, MAX_ADVANCE_SECONDS } from './clock.schema.ts';
import {
  type ClockState,
  type ClockView,
  forget,
  lockClockRow,
  MerchantClock,
  REAL_TIME,
  runningElsewhere,
  saveClock,
  view,
} from './clock.service.ts';
import { nextSettlement } from './clock.settlement.ts';

/**
 * Changing a merchant's clock: an advance (which runs the work falling due on the way and holds
 * the work that runs after it: clock.hold.ts), freezing, unfreezing and going back to real time.
 */

interface ClockPlan {
  state: ClockState;
  /** Run the merchant's due work up to this instant before the change is saved. */
  runUntil: Date | null;
}

/** How long a change waits between two looks at a clock that an advance on another instance holds. */
const HELD_ELSEWHERE_POLL_MS = 25;

/**
 * One change of a merchant's clock at a time in this process (an advance, a freeze, a reset of the
 * clock or of the sandbox); the others wait their turn. Across instances the advance's hold
 * (`advancing_to`) makes them wait.
 */
const clockLanes = new Lanes(1);

/**
 * Runs `work` as the merchant's only clock change in this process. Inside a caller's transaction
 * it runs at once: waiting there could wait for work that needs the caller's connection.
 */
/** Whether a clock change of the merchant (an advance, a reset) runs or waits in this process. */
export function clockChangeRunning(merchantId: string): boolean {
  const { running, waiting } = clockLanes.load(merchantId);
  return running + waiting > 0;
}

export function oneClockChange<T>(ctx: ServiceContext, work: () => Promise<T>): Promise<T> {
  return ctx.tx ? work() : clockLanes.run(ctx.merchant.id, work);
}

/**
 * A transaction on the merchant's locked clock row, once no advance of another process is running
 * its window's work on it (it is waited for, a look at a time, outside any transaction).
 */
async function onFreeClock<T>(
  ctx: ServiceContext,
  work: (tx: Tx, before: ClockState, realNow: Date) => Promise<T>,
): Promise<T> {
  const busy = Symbol('busy');
  for (;;) {
    const realNow = systemClock.now();
    const result = await inContextTx(ctx, async (tx) => {
      const { state, hold } = await lockClockRow(tx, ctx.merchant.id, realNow);
      // Inside a caller's transaction nothing can be waited for: the change goes ahead.
      if (!ctx.tx && runningElsewhere(hold, realNow)) return busy;
      return work(tx, state, realNow);
    });
    if (result !== busy) return result as T;
    await new Promise((resolve) => setTimeout(resolve, HELD_ELSEWHERE_POLL_MS));
  }
}

async function changeClock(
  ctx: ServiceContext,
  plan: (state: ClockState, now: Date, realNow: Date, tx: Tx) => ClockPlan | Promise<ClockPlan>,
): Promise<ClockView> {
  const result = await oneClockChange(ctx, () =>
    onFreeClock(ctx, async (tx, before, realNow) => {
      const { state } = await plan(before, new MerchantClock(before, systemClock).now(), realNow, tx);
      await saveClock(tx, ctx.merchant.id, state, realNow);
      return view(state, systemClock);
    }),
  );
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
 *
 * The work runs in batches (JOB_BATCH), each in a transaction of its own, so that other merchants'
 * requests run between them (docs/guide/ledger-and-clock.md, "While a clock advances"). Meanwhile the
 * merchant's clock reads the due time of the work done last: it moves through the window as the
 * work does, and never shows a time that work due before it has not reached.
 */
export async function advanceClock(ctx: ServiceContext, input: AdvanceClockInput): Promise<ClockView> {
  // Its batches commit one by one: no caller's transaction may hold them (the API's operations
  // declare `ownTransactions`).
  if (ctx.tx) throw new Error('a clock advance commits transactions of its own: call it outside one');
  const holdId = randomUUID();
  const result = await oneClockChange(ctx, async () => {
    // The first batch runs in the transaction that decides where the advance goes: an advance with
    // little due work is one transaction. While work is left, the hold says where it goes.
    const first = await onFreeClock(ctx, async (tx, before, realNow) => {
      const to = await advanceTarget({ ...ctx, tx }, input, new MerchantClock(before, systemClock).now());
      const window = { target: to, startedAt: realNow };
      const done = await runBatch(ctx, tx, window, before, realNow);
      await hold(tx, ctx.merchant.id, holdId, done.more ? to : null);
      return { ...done, window };
    });
    const { window } = first;
    const ran = [...first.ran];
    let last = first;
    const renew = last.more ? renewWhileRunning(ctx.db, ctx.merchant.id, holdId) : undefined;
    try {
      while (last.more) {
        forget(ctx.db, ctx.merchant.id);
        // Requests that arrived during the batch reach the database before the next one.
        await new Promise((resolve) => setImmediate(resolve));
        const batch = await runTransaction(ctx.db, async (tx) => {
          const realNow = systemClock.now();
          const { state, hold: current } = await lockClockRow(tx, ctx.merchant.id, realNow);
          // A reset of the sandbox (or an advance that outlived a lapsed hold) took the clock.
          if (current.id !== holdId) return { ran: [], more: false, state, lost: true };
          const done = await runBatch(ctx, tx, window, state, realNow);
          if (!done.more) await landed(tx, ctx.merchant.id);
          return { ...done, window, lost: false };
        });
        ran.push(...batch.ran);
        if (batch.lost) return { view: view(batch.state, systemClock, ran), window, lost: true };
        last = { ...batch, window };
      }
    } finally {
      clearInterval(renew);
    }
    forget(ctx.db, ctx.merchant.id);
    return { view: view(last.state, systemClock, ran), window, lost: false };
  });
  if (!result.lost)
    await whileHolding(ctx.db, ctx.merchant.id, holdId, () => runAfterAdvance(ctx, result.window.target));
  return result.view;
}

/** Where an advance goes, and the real instant it started at. */
interface AdvanceWindow {
  target: Date;
  startedAt: Date;
}

/**
 * One batch of an advance's window (JOB_BATCH), and the clock saved where the work stands: at the
 * last job's due time while work is left (never behind where it stood: work long overdue runs
 * first); once none is, at the destination as of the advance's start, as if it had taken no time.
 */
async function runBatch(
  ctx: ServiceContext,
  tx: Tx,
  window: AdvanceWindow,
  state: ClockState,
  realNow: Date,
): Promise<{ ran: RanJob[]; more: boolean; state: ClockState }> {
  const done = await runDueJobs(tx, ctx.merchant, window.target, ctx, JOB_BATCH);
  const stood = new MerchantClock(state, systemClock).now();
  const last = done.ran.at(-1)?.dueAt ?? stood;
  const next = done.more
    ? standingAt(state, new Date(Math.max(last.getTime(), stood.getTime())), realNow)
    : standingAt(state, window.target, window.startedAt);
  await saveClock(tx, ctx.merchant.id, next, realNow);
  return { ...done, state: next };
}

/**
 * The clock state that reads `at` now: a frozen clock frozen there, a running one running from
 * there.
 */
function standingAt(state: ClockState, at: Date, realNow: Date): ClockState {
  return state.frozenAt
    ? { offsetMs: state.offsetMs, frozenAt: at }
    : { offsetMs: at.getTime() - realNow.getTime(), frozenAt: null };
}

/** The after-advance hooks, once the window's work has committed. */
async function runAfterAdvance(ctx: ServiceContext, until: Date): Promise<void> {
  for (const hook of afterAdvanceHooks) await hook(ctx, until);
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
