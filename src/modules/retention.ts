import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Db } from '../db/client.ts';
import { blankExpiredTokens } from './card-payments/card-payments.tokens.ts';
import { purgeEndedSignIns } from './dashboard/dashboard.service.ts';
import { purgeExpiredKeys } from './idempotency/idempotency.service.ts';
import { purgeFinishedJobs } from './scheduler/scheduler.service.ts';
import { purgeEndedDeliveries, purgeOldAttempts } from './webhooks/webhooks.retention.ts';

/**
 * What is not kept forever, and the module function that deletes (or blanks) up to `limit` rows
 * of it in one short statement. Business data expires on each merchant's simulated clock, sign-ins
 * on the real clock; the periods are documented in docs/operations.md (Retention).
 */
export const RETENTION_RULES: readonly {
  name: string;
  purge: (db: Db, realNow: Date, limit: number) => Promise<number>;
}[] = [
  { name: 'token secrets', purge: blankExpiredTokens },
  { name: 'idempotency keys', purge: purgeExpiredKeys },
  { name: 'finished jobs', purge: purgeFinishedJobs },
  { name: 'webhook attempts', purge: purgeOldAttempts },
  { name: 'ended webhook deliveries', purge: purgeEndedDeliveries },
  { name: 'ended dashboard sign-ins', purge: purgeEndedSignIns },
];

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
