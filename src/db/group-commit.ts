import { eq, type SQL } from 'drizzle-orm';
import { isSandbankError } from '../kernel/errors.ts';
import { applyChange, type Change } from './change.ts';
import { changesStatement, effectsOf, type Witness } from './change-statement.ts';
import { type Db, queryRowsPrepared } from './client.ts';
import { runTransaction, withRetries } from './tx.ts';

/**
 * The database's group commit (docs/internals/architecture.md, "The write path"): the changes that arrive
 * together, outside any caller's transaction, are written by one statement (one round trip, one
 * transaction), and each caller's promise settles only after that statement has committed. A batch
 * the statement cannot write (an account missing, a balance too low, a unique key taken) is
 * written in one transaction step by step; when that fails too, each change is written alone, so
 * one refused change fails only itself.
 */

export interface GroupCommitStats {
  /** Batches written by the single statement. */
  statements: number;
  /** Batches written step by step in one transaction (the statement could not write them). */
  transactions: number;
  /** Batches whose transaction failed, so each change was written alone. */
  retriedAlone: number;
}

interface Pending {
  work: Change;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 128;
/**
 * Batches being written at once. Two, not one: while one statement runs, the next is sent and
 * waits at the locks it needs (taken in one global order, so the two cannot deadlock); more would
 * only queue on those locks.
 */
const MAX_IN_FLIGHT = 2;

class GroupCommit {
  readonly stats: GroupCommitStats = { statements: 0, transactions: 0, retriedAlone: 0 };
  #queue: Pending[] = [];
  #scheduled = false;
  #inFlight = 0;

  constructor(private readonly db: Db) {}

  write(work: Change): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ work, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= MAX_IN_FLIGHT) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    while (this.#queue.length > 0 && this.#inFlight < MAX_IN_FLIGHT) {
      const batch = this.#queue.splice(0, MAX_BATCH);
      this.#inFlight += 1;
      void this.#write(batch).finally(() => {
        this.#inFlight -= 1;
        if (this.#queue.length > 0) this.#schedule();
      });
    }
  }

  /** Writes a batch and settles its callers' promises; never rejects. */
  async #write(batch: Pending[]): Promise<void> {
    let written: boolean;
    try {
      written = await this.#writeStatement(batch);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    if (written) {
      this.stats.statements += 1;
      for (const pending of batch) pending.resolve();
      return;
    }
    try {
      await runTransaction(this.db, async (tx) => {
        for (const [kind, items] of effectsOf(batch.map((pending) => pending.work)))
          await kind.lockAll(tx, items);
        for (const { work } of batch) await applyChange(tx, work);
      });
      this.stats.transactions += 1;
      for (const pending of batch) pending.resolve();
    } catch {
      this.stats.retriedAlone += 1;
      for (const pending of batch) {
        await runTransaction(this.db, (tx) => applyChange(tx, pending.work)).then(
          pending.resolve,
          pending.reject,
        );
      }
    }
  }

  /**
   * Whether the batch's statement wrote it (false: nothing was written). A statement Postgres
   * aborted as the loser of a race is run again like any transaction (bounded, counted: tx.ts);
   * one that keeps losing rejects the batch with 409 transaction_conflict, nothing written.
   */
  async #writeStatement(batch: Pending[]): Promise<boolean> {
    let statement: { query: SQL; witness: Witness } | null = null;
    try {
      statement = changesStatement(batch.map((pending) => pending.work));
    } catch {
      return false; // a change the statement cannot render: the step-by-step path says which
    }
    const { query } = statement;
    try {
      const [result] = await withRetries(() => queryRowsPrepared<{ ok: boolean }>(this.db, query));
      return result?.ok === true;
    } catch (error) {
      if (isSandbankError(error)) throw error; // transaction_conflict: every run lost
      // The statement failed, or its answer was lost after it committed (a dropped connection). It
      // is atomic, so its first event (or row) tells which: writing the batch again would fail on its ids.
      return this.#exists(statement.witness).catch(() => false);
    }
  }

  async #exists({ table, column, id }: Witness): Promise<boolean> {
    const rows = await this.db.select({ id: column }).from(table).where(eq(column, id));
    return rows.length > 0;
  }
}

const groupCommits = new WeakMap<Db, GroupCommit>();

export function groupCommitOf(db: Db): GroupCommit {
  let writer = groupCommits.get(db);
  if (!writer) {
    writer = new GroupCommit(db);
    groupCommits.set(db, writer);
  }
  return writer;
}

/** The database's group-commit counters (a live object), for tests and diagnosis. */
export function groupCommitStats(db: Db): Readonly<GroupCommitStats> {
  return groupCommitOf(db).stats;
}
