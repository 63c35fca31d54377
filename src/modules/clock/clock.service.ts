import { eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { runTransaction } from '../../db/tx.ts';
import { type Clock, systemClock } from '../../kernel/clock.ts';
import { TtlCache } from '../../kernel/ttl-cache.ts';
import { dbOf, type MerchantRef, type ProcessContext, type ServiceContext } from '../context.ts';
import { getMerchant } from '../merchants/merchants.service.ts';
import { JOB_BATCH, merchantsWithDueWork, type RanJob, runDueJobs } from '../scheduler/scheduler.service.ts';
import { merchantClocks } from './clock.table.ts';

/**
 * A merchant's clock: reading it (cached), locking and saving its row, and running the work that
 * falls due by it. Changing it (advance, freeze, unfreeze, reset) lives in clock.change.ts.
 */

export interface ClockState {
  offsetMs: number;
  frozenAt: Date | null;
}

export const REAL_TIME: ClockState = { offsetMs: 0, frozenAt: null };

/** A merchant's clock: real time plus an offset, or frozen at an instant. */
export class MerchantClock implements Clock {
  constructor(
    readonly state: ClockState,
    readonly real: Clock = systemClock,
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
const cache = new WeakMap<Db, TtlCache<ClockState>>();

function cacheOf(db: Db): TtlCache<ClockState> {
  let states = cache.get(db);
  if (!states) {
    states = new TtlCache<ClockState>(1000, 10_000);
    cache.set(db, states);
  }
  return states;
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
  const state = await cacheOf(db).get(merchantId, () => readState(db, merchantId));
  return new MerchantClock(state, real);
}

export interface ClockView {
  now: Date;
  frozen: boolean;
  offsetMs: number;
  ran: RanJob[];
}

export function view(state: ClockState, real: Clock, ran: RanJob[] = []): ClockView {
  return {
    now: new MerchantClock(state, real).now(),
    frozen: state.frozenAt !== null,
    offsetMs: state.offsetMs,
    ran,
  };
}

/** What an advance's hold on a clock says (clock.change.ts): its id, when it lapses, where it goes. */
export interface ClockHold {
  id: string | null;
  until: Date | null;
  to: Date | null;
}

/**
 * Locks the merchant's clock row for the rest of the transaction (creating it at real time if
 * absent): every change of a clock and every run of a merchant's due work goes through this lock.
 */
export async function lockClock(tx: Tx, merchantId: string, realNow: Date): Promise<ClockState> {
  return (await lockClockRow(tx, merchantId, realNow)).state;
}

/** lockClock, with the hold an advance has on the clock. */
export async function lockClockRow(
  tx: Tx,
  merchantId: string,
  realNow: Date,
): Promise<{ state: ClockState; hold: ClockHold }> {
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
  return {
    state: { offsetMs: row.offsetMs, frozenAt: row.frozenAt },
    hold: { id: row.advancingId, until: row.advancingUntil, to: row.advancingTo },
  };
}

/**
 * Whether an advance other than `mine` is still running its window's due work on this clock: its
 * hold has a destination and has not lapsed (a crashed advance's hold lapses within a minute).
 */
export function runningElsewhere(hold: ClockHold, realNow: Date, mine: string | null = null): boolean {
  return (
    hold.to !== null && hold.until !== null && hold.until.getTime() > realNow.getTime() && hold.id !== mine
  );
}

export async function saveClock(tx: Tx, merchantId: string, state: ClockState, realNow: Date): Promise<void> {
  await tx
    .update(merchantClocks)
    .set({ offsetMs: state.offsetMs, frozenAt: state.frozenAt, updatedAt: realNow })
    .where(eq(merchantClocks.merchantId, merchantId));
}

/**
 * Sets the clock to `state` and releases any advance's hold on it, in the caller's transaction
 * (which has locked the clock's row): a reset or a restored snapshot puts the clock back whole.
 */
export async function putClockBack(
  tx: Tx,
  merchantId: string,
  state: ClockState,
  realNow: Date,
): Promise<void> {
  await tx
    .update(merchantClocks)
    .set({
      offsetMs: state.offsetMs,
      frozenAt: state.frozenAt,
      updatedAt: realNow,
      advancingId: null,
      advancingUntil: null,
      advancingTo: null,
    })
    .where(eq(merchantClocks.merchantId, merchantId));
}

export function forget(db: Db, merchantId: string): void {
  cacheOf(db).forget(merchantId);
}

export async function getClock(ctx: ServiceContext): Promise<ClockView> {
  return view(await readState(dbOf(ctx), ctx.merchant.id), systemClock);
}

/**
 * Runs one batch of a merchant's work that is due by its clock now (the background timer's step):
 * at most JOB_BATCH, in one transaction. Returns what ran and whether due work is left.
 */
export async function runDueWorkNow(
  base: ProcessContext,
  merchant: MerchantRef,
): Promise<{ ran: RanJob[]; more: boolean }> {
  const { db } = base;
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
    if (!row) return { ran: [], more: false };
    // An advance running its window in batches does this merchant's due work itself.
    const hold = { id: row.advancingId, until: row.advancingUntil, to: row.advancingTo };
    if (runningElsewhere(hold, realNow)) return { ran: [], more: false };
    const now = new MerchantClock({ offsetMs: row.offsetMs, frozenAt: row.frozenAt }, systemClock).now();
    return runDueJobs(tx, merchant, now, base, JOB_BATCH);
  });
}

/** Rounds of batches one pass of the background runner goes through at most. */
const MAX_ROUNDS = 20;

/**
 * One pass of the background runner: every merchant with work due by its own clock runs it (up to
 * `maxMerchants` per pass), a batch at a time in turn, so that a merchant with thousands of due
 * jobs takes its turns beside the others instead of ahead of them. Returns how many jobs ran. On
 * Postgres several instances share the work: a merchant whose clock row another runner holds is
 * skipped.
 */
export async function runDueWork(base: ProcessContext, maxMerchants = 50): Promise<number> {
  const { db } = base;
  const ids = await merchantsWithDueWork(db, systemClock.now(), maxMerchants);
  const merchants: MerchantRef[] = [];
  for (const id of ids) {
    const merchant = await getMerchant(db, id);
    if (merchant) merchants.push(merchant);
  }
  let ran = 0;
  let turn = merchants;
  // Bounded: work left after the last round waits for the next pass.
  for (let round = 0; turn.length > 0 && round < MAX_ROUNDS; round++) {
    const next: MerchantRef[] = [];
    for (const merchant of turn) {
      const batch = await runDueWorkNow(base, merchant);
      ran += batch.ran.length;
      if (batch.more) next.push(merchant);
      // Let requests that arrived meanwhile reach the database between two batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    turn = next;
  }
  return ran;
}
