import type { SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { changesStatement } from './change-statement.ts';
import { queryRows, type Tx } from './client.ts';
import { type EventInput, recordEvents } from './outbox.ts';
import { type RowUpdate, rowUpdates } from './row-update.ts';
import { scheduledJobs } from './scheduled-jobs.table.ts';

/**
 * What one operation writes (docs/internals/architecture.md, "The write path"): the rows it creates, its
 * events, the work it schedules, its effects (ledger postings, updates of rows it read), and work
 * that must run in the transaction that writes it — built with change(), written by commit()
 * (commit.ts), step by step by applyChange() or by the group commit's statement (group-commit.ts).
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
   * items will need (and makes the rows they will lock), in one global order (docs/internals/concurrency.md),
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

/** Work that runs in the transaction writing a change, where it stands among the change's events and effects. */
export type TransactionWork = (tx: Tx) => Promise<void>;

/**
 * An event, an effect (which writes events of its own), or work run in the transaction (within()),
 * in the order the change makes them.
 */
type Step = { event: EventInput } | { effect: Effect } | { within: TransactionWork };

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

  /**
   * Work that must run in the transaction that writes the change, at this place among its events
   * and effects: a write that reads and locks what it writes (another module's reaction to this
   * change, the issuer's side of the closed loop). A change with such work is written step by step
   * in one transaction — the caller's, or its own — never by the group commit's statement. The work
   * may run more than once (a transaction that lost a race runs again): it keeps to the transaction.
   */
  within(work: TransactionWork): this {
    this.steps.push({ within: work });
    return this;
  }

  /** Whether the change carries work only a transaction can run (within()). */
  needsTransaction(): boolean {
    return this.steps.some((step) => 'within' in step);
  }

  effect<T>(kind: EffectKind<T>, item: T): this {
    this.steps.push({ effect: { kind: kind as EffectKind<unknown>, item } });
    return this;
  }

  /** The change's effects, in order. */
  effects(): Effect[] {
    return this.steps.flatMap((step) => ('effect' in step ? [step.effect] : []));
  }

  /** Every event the change writes, in order: its own and its effects' (not its within() work's). */
  allEvents(): EventInput[] {
    return this.steps.flatMap((step) =>
      'event' in step ? [step.event] : 'effect' in step ? step.effect.kind.eventsOf(step.effect.item) : [],
    );
  }
}

export function change(): Change {
  return new Change();
}

/**
 * A change in a transaction: rows, then events, effects and within() work in order, then jobs.
 * What comes before its first within() work (everything, jobs included, when it has none) is
 * written by one statement (change-statement.ts) when that part has more than one write and no
 * row with a unique key (whose conflict would abort the caller's transaction instead of refusing
 * the change); the rest step by step. When the statement writes nothing (an effect not ready),
 * the whole change is written step by step, which refuses it with the reason.
 */
export async function applyChange(tx: Tx, work: Change): Promise<void> {
  const within = work.steps.findIndex((step) => 'within' in step);
  const cut = within === -1 ? work.steps.length : within;
  const lead: Change = Object.assign(new Change(), {
    rows: work.rows,
    steps: work.steps.slice(0, cut),
    jobs: within === -1 ? work.jobs : [],
  });
  if (worthOneStatement(lead) && (await writeInOneStatement(tx, lead))) {
    await applySteps(tx, [], work.steps.slice(cut), within === -1 ? [] : work.jobs);
    return;
  }
  await applySteps(tx, work.rows, work.steps, work.jobs);
}

/** Whether a part of a change would take more than one statement step by step, and one can write it. */
function worthOneStatement(part: Change): boolean {
  if (part.rows.some((row) => row.unique)) return false;
  const events = part.steps.some((step) => 'event' in step) ? 1 : 0;
  return part.rows.length + events + part.effects().length + (part.jobs.length > 0 ? 1 : 0) > 1;
}

/** Whether the statement wrote `part` (false: it wrote nothing). */
async function writeInOneStatement(tx: Tx, part: Change): Promise<boolean> {
  let query: SQL;
  try {
    ({ query } = changesStatement([part]));
  } catch {
    return false; // a change the statement cannot render: the step-by-step path says which
  }
  const [result] = await queryRows<{ ok: boolean }>(tx, query);
  return result?.ok === true;
}

async function applySteps(
  tx: Tx,
  rows: readonly NewRow[],
  steps: readonly Step[],
  jobs: readonly (typeof scheduledJobs.$inferInsert)[],
): Promise<void> {
  for (const row of rows) {
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
  for (const step of steps) {
    if ('event' in step) {
      events.push(step.event);
      continue;
    }
    if (events.length > 0) await recordEvents(tx, events);
    events = [];
    if ('effect' in step) await step.effect.kind.apply(tx, step.effect.item);
    else await step.within(tx);
  }
  if (events.length > 0) await recordEvents(tx, events);
  if (jobs.length > 0) await tx.insert(scheduledJobs).values([...jobs]);
}
