import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { systemClock } from '../../kernel/clock.ts';
import { merchantClocks } from './clock.table.ts';

/**
 * An advance's hold on the merchant's clock row (`advancing_id`, `advancing_until`,
 * `advancing_to`): while its window's due work runs and its deliveries follow, changes on other
 * instances wait for it (clock.change.ts); renewed while held, it lapses when its advance crashed.
 */

/**
 * How long an advance's hold on its window's work lasts without renewal (real time), and how often
 * it is renewed while the work runs: a crashed advance's hold lapses within a minute.
 */
const HOLD_MS = 60_000;
const HOLD_RENEW_MS = 20_000;

/**
 * Marks the merchant's clock as held by the advance `holdId` for HOLD_MS of real time; `to`, while
 * its window's due work is still to run.
 */
export async function hold(tx: Tx, merchantId: string, holdId: string, to: Date | null): Promise<void> {
  await tx
    .update(merchantClocks)
    .set({
      advancingId: holdId,
      advancingUntil: new Date(systemClock.now().getTime() + HOLD_MS),
      advancingTo: to,
    })
    .where(eq(merchantClocks.merchantId, merchantId));
}

/** The advance's due work is done: its hold stays for the deliveries, which follow the commit. */
export async function landed(tx: Tx, merchantId: string): Promise<void> {
  await tx
    .update(merchantClocks)
    .set({ advancingTo: null, advancingUntil: new Date(systemClock.now().getTime() + HOLD_MS) })
    .where(eq(merchantClocks.merchantId, merchantId));
}

/** Renews the hold of the advance `holdId` every HOLD_RENEW_MS until the timer is cleared. */
export function renewWhileRunning(db: Db, merchantId: string, holdId: string): NodeJS.Timeout {
  const mine = and(eq(merchantClocks.merchantId, merchantId), eq(merchantClocks.advancingId, holdId));
  return setInterval(() => {
    db.update(merchantClocks)
      .set({ advancingUntil: new Date(systemClock.now().getTime() + HOLD_MS) })
      .where(mine)
      .catch(() => {}); // a missed renewal only shortens the hold
  }, HOLD_RENEW_MS);
}

/**
 * Runs `work` while the advance `holdId` holds the merchant's clock, renewing the hold, then
 * releases it (unless a later advance has taken it over, which releases it itself).
 */
export async function whileHolding(db: Db, merchantId: string, holdId: string, work: () => Promise<void>) {
  const mine = and(eq(merchantClocks.merchantId, merchantId), eq(merchantClocks.advancingId, holdId));
  const renew = renewWhileRunning(db, merchantId, holdId);
  try {
    await work();
  } finally {
    clearInterval(renew);
    await db
      .update(merchantClocks)
      .set({ advancingId: null, advancingUntil: null, advancingTo: null })
      .where(mine);
  }
}
