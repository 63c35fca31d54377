import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Db } from '../db/client.ts';
import { MODULES } from './index.ts';
import type { RetentionRule } from './module.ts';

/**
 * What is not kept forever, and the module function that deletes (or blanks) up to `limit` rows
 * of it in one short statement: every module's `retention` (its manifest), in the modules' order.
 * Business data expires on each merchant's simulated clock, sign-ins on the real clock; the periods
 * are documented in docs/reference/operations.md (Retention).
 */
export const RETENTION_RULES: readonly RetentionRule[] = MODULES.flatMap((module) => module.retention ?? []);

export interface PurgeOptions {
  /** Rows per statement: each is a short transaction of its own, never a long lock. */
  batch?: number;
  /** Statements per rule and pass; what is left waits for the next pass. */
  maxBatches?: number;
  /** Stops between statements once aborted (the server is closing). */
  signal?: AbortSignal;
}

/**
 * One retention pass: every rule, batch after batch until one comes back short, yielding to the
 * event loop between statements so that requests interleave. Returns the rows purged per rule.
 */
export async function purgeExpired(
  db: Db,
  realNow: Date,
  options: PurgeOptions = {},
): Promise<Record<string, number>> {
  const batch = options.batch ?? 1000;
  const maxBatches = options.maxBatches ?? 100;
  const purged: Record<string, number> = {};
  for (const rule of RETENTION_RULES) {
    let total = 0;
    for (let i = 0; i < maxBatches && !options.signal?.aborted; i++) {
      const n = await rule.purge(db, realNow, batch);
      total += n;
      if (n < batch) break;
      await yieldToEventLoop();
    }
    purged[rule.name] = total;
  }
  return purged;
}
