import { eq, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { isSandbankError } from '../kernel/errors.ts';
import { events } from '../modules/events/events.table.ts';
import { scheduledJobs } from '../modules/scheduler/scheduler.table.ts';
import { type Db, queryRowsPrepared, sqlStateOf, type Tx } from './client.ts';
import { insertRecords } from './json-records.ts';
import { createdEventsCte, type EventInput, fanOut, recordEvents } from './outbox.ts';
import { type RowUpdate, rowUpdates, StaleRow } from './row-update.ts';
import { inTransaction, runTransaction, withRetries } from './tx.ts';

/**
 * The one write path (docs/architecture.md, "The write path"). An operation describes its change —
 * the rows it creates, its events, the work it schedules, its ledger postings — and hands it to
 * commit(), which decides how to write it:
 * - inside the caller's transaction when there is one (a keyed request's, a clock advance's), step
 *   by step, so it commits or rolls back with everything else the caller does;
 * - otherwise through the database's group commit: the changes that arrive together are written
 *   by one statement (one round trip, one transaction), and each caller's promise settles only
 *   after that statement has committed. A batch the statement cannot write (an account missing, a
 *   balance too low, a unique key taken) is written in one transaction step by step; when that
 *   fails too, each change is written alone, so one refused change fails only itself.
 * A change may also update rows the operation read (update(): a compare-and-set on what it read,
 * row-update.ts); a change whose rows have moved since is refused with StaleRow, written nowhere.
 */

/** A kind of write beyond plain rows, events and jobs, that a change can carry: the ledger's postings. */
export interface EffectKind<T> {
  /**
   * The batch's items as parts of one statement: CTEs that only read and lock (`checks`), a boolean
   * SQL expression over them that must hold for the statement to write anything (`ready`), and
   * CTEs that write the items when `ok` (every effect's `ready`) holds.
   */
  statement(items: readonly T[]): { checks: SQL; ready: SQL; writes: (ok: SQL) => SQL };
  /**
   * Takes, before any item of a batch is written step by step in one transaction, every lock the
   * items will need (and makes the rows they will lock), in one global order (docs/concurrency.md),
   * so two such batches cannot deadlock whatever order their items come in.
   */
  lockAll(tx: Tx, items: readonly T[]): Promise<void>;
  /** The events an item writes, in order (they stand where the effect stands among the change's). */
  eventsOf(item: T): readonly EventInput[];
  /** Writes one item step by step in a transaction, its events included; may refuse (throw). */
  apply(tx: Tx, item: T): Promise<void>;
}

interface Effect {
  kind: EffectKind<unknown>;
  item: unknown;
}

/** A new row. With `unique`, a row whose key is taken refuses the change with `refusal()`. */
export interface NewRow {
  table: PgTable;
  values: Record<string, unknown>;
  unique?: { target: PgColumn[]; refusal: () => Error };
}

/** An event, or an effect (which writes events of its own), in the order the change makes them. */
type Step = { event: EventInput } | { effect: Effect };

/**
 * What one operation writes, built with change() and its methods, then given to commit(). Events
 * and effects keep the order they are added in, and so do their events' ids (a hold's posting
 * before the transfer it holds for, as the step-by-step code wrote them).
 */
export class Change {
  readonly rows: NewRow[] = [];
  readonly steps: Step[] = [];
  readonly jobs: (typeof scheduledJobs.$inferInsert)[] = [];

  insert(table: PgTable, values: Record<string, unknown>, unique?: NewRow['unique']): this {
    this.rows.push({ table, values, ...(unique ? { unique } : {}) });
    return this;
  }

  event(...inputs: EventInput[]): this {
    for (const event of inputs) this.steps.push({ event });
    return this;
  }

  job(...rows: (typeof scheduledJobs.$inferInsert)[]): this {
    this.jobs.push(...rows);
    return this;
  }

  /** Updates a row read earlier, if it is still as read (row-update.ts); else the change is refused. */
  update(item: RowUpdate): this {
    return this.effect(rowUpdates, item);
  }

  effect<T>(kind: EffectKind<T>, item: T): this {
    this.steps.push({ effect: { kind: kind as EffectKind<unknown>, item } });
    return this;
  }

  /** The change's effects, in order. */
  effects(): Effect[] {
    return this.steps.flatMap((step) => ('effect' in step ? [step.effect] : []));
  }

  /** Every event the change writes, in order: its own and its effects'. */
  allEvents(): EventInput[] {
    return this.steps.flatMap((step) =>
      'event' in step ? [step.event] : step.effect.kind.eventsOf(step.effect.item),
    );
  }
}

export function change(): Change {
  return new Change();
}

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
    if (error instanceof StaleRow || sqlStateOf(error) === FOREIGN_KEY_VIOLATION) return false;
    throw error;
  }
}

const FOREIGN_KEY_VIOLATION = '23503';

/** A change step by step in a transaction: rows, then events and effects in order, then jobs. */
export async function applyChange(tx: Tx, work: Change): Promise<void> {
  for (const row of work.rows) {
    if (!row.unique) {
      await tx.insert(row.table).values(row.values);
      continue;
    }
    const inserted = await tx
      .insert(row.table)
      .values(row.values)
      .onConflictDoNothing({ target: row.unique.target })
      .returning();
    if (inserted.length === 0) throw row.unique.refusal();
  }
  let events: EventInput[] = [];
  for (const step of work.steps) {
    if ('event' in step) {
      events.push(step.event);
      continue;
    }
    if (events.length > 0) await recordEvents(tx, events);
    events = [];
    await step.effect.kind.apply(tx, step.effect.item);
  }
  if (events.length > 0) await recordEvents(tx, events);
  if (work.jobs.length > 0) await tx.insert(scheduledJobs).values(work.jobs);
}

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
    let statement: { query: SQL; witness: string } | null = null;
    try {
      statement = batchStatement(batch.map((pending) => pending.work));
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
      // is atomic, so its first event tells which: writing the batch again would fail on its ids.
      return this.#eventExists(statement.witness).catch(() => false);
    }
  }

  async #eventExists(id: string): Promise<boolean> {
    const rows = await this.db.select({ id: events.id }).from(events).where(eq(events.id, id));
    return rows.length > 0;
  }
}

/**
 * The batch as one statement: the effects' checks and locks first, then every write guarded by
 * `ok` (all effects ready), the events with their deliveries and announcement. Its text depends
 * only on which tables and effects the batch has (the rows travel as one parameter per table), so
 * it is prepared once per connection.
 */
function batchStatement(batch: Change[]): { query: SQL; witness: string } {
  const parts = [...effectsOf(batch)].map(([kind, items]) => kind.statement(items));
  const ok =
    parts.length === 0
      ? sql`true`
      : sql.join(
          parts.map((part) => part.ready),
          sql` AND `,
        );
  const tables = new Map<PgTable, Record<string, unknown>[]>();
  for (const work of batch) {
    for (const row of work.rows) append(tables, row.table, row.values);
  }
  const inserts = [...tables].map(
    ([table, rows], i) => sql`new_rows_${sql.raw(String(i))} AS (${insertRecords(table, rows as never, ok)})`,
  );
  const allEvents = batch.flatMap((work) => work.allEvents());
  if (allEvents.length === 0) throw new Error('a batch without events cannot be told apart once written');
  const createdEvents = createdEventsCte(allEvents, ok);
  const jobs = batch.flatMap((work) => work.jobs);
  const ctes = [
    ...parts.map((part) => part.checks),
    ...parts.map((part) => part.writes(ok)),
    ...inserts,
    ...(jobs.length > 0 ? [sql`new_jobs AS (${insertRecords(scheduledJobs, jobs, ok)})`] : []),
    createdEvents.cte,
    fanOut(sql.raw('created_events')),
  ];
  const query = sql`WITH ${sql.join(ctes, sql`, `)}
  SELECT ${ok} AS ok, (SELECT count(*) FROM announced) AS announced`;
  return { query, witness: createdEvents.ids[0] as string };
}

/**
 * A batch's effects, by kind, in the batch's order — row updates first, so that the rows an
 * operation read are locked before the ledger, the order its transaction path takes them in.
 */
function effectsOf(batch: Change[]): Map<EffectKind<unknown>, unknown[]> {
  const kinds = new Map<EffectKind<unknown>, unknown[]>();
  if (batch.some((work) => work.steps.some((step) => 'effect' in step && step.effect.kind === rowUpdates)))
    kinds.set(rowUpdates as EffectKind<unknown>, []);
  for (const work of batch) {
    for (const { kind, item } of work.effects()) append(kinds, kind, item);
  }
  return kinds;
}

function append<K, V>(groups: Map<K, V[]>, key: K, value: V): void {
  const group = groups.get(key);
  if (group) group.push(value);
  else groups.set(key, [value]);
}

const groupCommits = new WeakMap<Db, GroupCommit>();

function groupCommitOf(db: Db): GroupCommit {
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
