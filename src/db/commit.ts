import { applyChange, type Change } from './change.ts';
import { type Db, type Executor, sqlStateOf, type Tx } from './client.ts';
import { groupCommitOf } from './group-commit.ts';
import { StaleRow } from './row-update.ts';
import { inTransaction, runTransaction } from './tx.ts';

export { applyChange, Change, change, type EffectKind, type NewRow, type TransactionWork } from './change.ts';
export { type GroupCommitStats, groupCommitStats } from './group-commit.ts';

/**
 * The one write path (docs/internals/architecture.md, "The write path"). An operation describes its change —
 * the rows it creates, its events, the work it schedules, its ledger postings, the rows it read and
 * updates, the work its reactions do in its transaction — and hands it to commit(), which decides
 * how to write it:
 * - inside the caller's transaction when there is one (a keyed request's, a clock advance's), step
 *   by step, so it commits or rolls back with everything else the caller does;
 * - in a transaction of its own, step by step, when it carries work only a transaction can run
 *   (Change.within);
 * - otherwise through the database's group commit (group-commit.ts): one statement for the changes
 *   that arrive together.
 * A change may also update rows the operation read (update(): a compare-and-set on what it read,
 * row-update.ts); a change whose rows have moved since is refused with StaleRow, written nowhere —
 * readAndCommit() then reads them again under lock and commits the operation's change there.
 */

/** Where a change is written: the database, and the caller's transaction when it has one. */
export interface CommitTarget {
  db: Db;
  tx?: Tx | undefined;
}

/** Writes a change: in the caller's transaction if there is one, else through the group commit. */
export function commit(target: CommitTarget, work: Change): Promise<void> {
  if (work.rows.length === 0 && work.steps.length === 0)
    throw new Error('a change writes at least a row, an event or an effect');
  if (target.tx) return inTransaction(target.db, target.tx, (tx) => applyChange(tx, work));
  if (work.needsTransaction()) return runTransaction(target.db, (tx) => applyChange(tx, work));
  return groupCommitOf(target.db).write(work);
}

/**
 * commit() for a change built from rows read outside any transaction: false, with nothing
 * written, when one of them has moved since (StaleRow), so that the caller takes its locking path.
 * A row it refers to that is gone since (a foreign key violation: a refund's payment deleted by the
 * merchant's reset) is the same story: the locking path reads again and answers what it finds.
 */
export async function commitUnlessStale(target: CommitTarget, work: Change): Promise<boolean> {
  try {
    await commit(target, work);
    return true;
  } catch (error) {
    if (isStale(error)) return false;
    throw error;
  }
}

/** Whether a change was refused because a row it read has moved or is gone since. */
function isStale(error: unknown): boolean {
  return error instanceof StaleRow || sqlStateOf(error) === FOREIGN_KEY_VIOLATION;
}

const FOREIGN_KEY_VIOLATION = '23503';

/**
 * One operation that reads rows, decides and writes (docs/internals/architecture.md, "Row updates"), written
 * one way whatever happens: `write` builds the operation's change from the rows `read` returns and
 * commits it to the target it is given, answering what the caller gets.
 * - Without a caller's transaction, the rows are first read without a lock and the change is
 *   committed on its own (the group commit, one statement), written only if they are still as read.
 *   `optimistic` says whether rows read so can decide at all (false: a decision that depends on
 *   rows no expectation covers, such as a card's earlier authorizations against its limits).
 * - When a row has moved since (StaleRow, or a row referred to is gone), when `optimistic` says no,
 *   or inside a caller's transaction, the rows are read again under lock (`lock` true) in a
 *   transaction (the caller's, or one of its own) and `write` commits the change there, where the
 *   rows cannot move: it answers for them as they now are (409 invalid_state, an amount too large).
 */
export async function readAndCommit<R, T>(
  target: CommitTarget,
  op: {
    read: (exec: Executor, lock: boolean) => Promise<R>;
    write: (rows: R, target: CommitTarget, exec: Executor) => Promise<T>;
    optimistic?: (rows: R) => boolean;
  },
): Promise<T> {
  if (!target.tx) {
    const rows = await op.read(target.db, false);
    if (op.optimistic?.(rows) ?? true) {
      try {
        return await op.write(rows, { db: target.db }, target.db);
      } catch (error) {
        if (!isStale(error)) throw error;
      }
    }
  }
  return inTransaction(target.db, target.tx, async (tx) =>
    op.write(await op.read(tx, true), { db: target.db, tx }, tx),
  );
}
