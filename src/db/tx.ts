import { SandbankError } from '../kernel/errors.ts';
import { type Db, type Executor, sqlStateOf, type Tx } from './client.ts';

/**
 * SQLSTATEs of a transaction Postgres aborted to settle a race between transactions, not because
 * of anything it did wrong: run again, it can succeed.
 */
const CONFLICTS = { '40P01': 'deadlocks', '40001': 'serializationFailures' } as const;
type Conflict = (typeof CONFLICTS)[keyof typeof CONFLICTS];

/** How many times one transaction runs at most (the first run and two retries). */
export const TRANSACTION_ATTEMPTS = 3;

/**
 * The races Postgres settled by aborting a transaction of this process, and what became of them.
 * The lock order (docs/internals/concurrency.md) is there so that these stay at zero: the retry is a last
 * line of defence, and a count above zero points at a path that breaks the order. Read by tests.
 */
export const transactionConflicts: Record<Conflict | 'retried' | 'gaveUp', number> = {
  deadlocks: 0,
  serializationFailures: 0,
  retried: 0,
  gaveUp: 0,
};

/** Whether an error is a deadlock or a serialization failure (a transaction worth running again). */
export function isTransactionConflict(error: unknown): boolean {
  return conflictOf(error) !== null;
}

function conflictOf(error: unknown): Conflict | null {
  const state = sqlStateOf(error);
  return state !== undefined && state in CONFLICTS ? CONFLICTS[state as keyof typeof CONFLICTS] : null;
}

/** A few milliseconds, growing with the attempt and jittered, so the two sides do not meet again. */
function backoff(attempt: number): Promise<void> {
  const ms = attempt * (5 + Math.random() * 15);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `attempt` (one whole transaction, or one savepoint) again when Postgres aborted it as the
 * loser of a deadlock or a serialization failure, at most TRANSACTION_ATTEMPTS times in all.
 * Rerunning is safe because the aborted run left nothing: its rows, events, webhook deliveries and
 * notifications were written in the transaction (or savepoint) that rolled back. When the last run
 * loses too, the caller gets 409 transaction_conflict (retryable, nothing written), not a 500.
 */
export async function withRetries<T>(attempt: () => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await attempt();
    } catch (error) {
      const conflict = conflictOf(error);
      if (conflict === null) throw error;
      transactionConflicts[conflict] += 1;
      if (run >= TRANSACTION_ATTEMPTS) {
        transactionConflicts.gaveUp += 1;
        throw new SandbankError('transaction_conflict');
      }
      transactionConflicts.retried += 1;
      await backoff(run);
    }
  }
}

/**
 * A transaction of its own, run again (bounded) when it loses a deadlock or a serialization
 * failure. `work` may therefore run more than once: it must keep everything it does in the
 * transaction (no HTTP call, no in-memory effect that a rollback would not undo).
 */
export function runTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return withRetries(() => db.transaction(work));
}

/**
 * Transactions whose work cannot be run again from the top (a keyed request's: the transaction
 * wraps the rest of the HTTP handling), so each piece of work run in them gets a savepoint that
 * can be (see inTransaction).
 */
const retriedInSavepoints = new WeakSet<Tx>();

/**
 * Marks a transaction opened around work that cannot run twice: inTransaction then runs each
 * service's work in it inside a savepoint, and runs that savepoint again when it loses a deadlock.
 * Rolling back to the savepoint releases the locks it took, so the other side can go on.
 */
export function retryInSavepoints(tx: Tx): void {
  retriedInSavepoints.add(tx);
}

/**
 * Runs `work` in the caller's transaction when there is one, else in a new one — the one place
 * where a transaction that lost a deadlock or a serialization failure is run again (bounded): a
 * new transaction is rerun whole; in a caller's transaction marked by retryInSavepoints the work
 * runs in a savepoint that is rerun; in any other caller's transaction, whoever opened it decides.
 */
export async function inTransaction<T>(db: Db, tx: Tx | undefined, work: (tx: Tx) => Promise<T>): Promise<T> {
  if (!tx) return runTransaction(db, work);
  if (retriedInSavepoints.has(tx)) return withRetries(() => tx.transaction(work));
  return work(tx);
}

export type { Executor };
