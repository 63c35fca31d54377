import { type SQL, sql } from 'drizzle-orm';
import { PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import type { Change, EffectKind } from './change.ts';
import { events } from './events.table.ts';
import { insertRecords } from './json-records.ts';
import { createdEventsCte, fanOut } from './outbox.ts';
import { rowUpdates } from './row-update.ts';
import { scheduledJobs } from './scheduled-jobs.table.ts';

/**
 * Changes written by one statement (docs/internals/architecture.md, "The write path"): the group
 * commit's batches, and the part of a change written in a transaction that comes before its first
 * within() work (change.ts). The statement writes everything or nothing: it answers `ok` false,
 * having written nothing, when an effect is not ready (an account missing, a balance too low, a
 * row moved), and the step-by-step path then says why.
 */

/**
 * Changes as one statement: the effects' checks and locks first, then every write guarded by
 * `ok` (all effects ready), the events with their deliveries and announcement. Its text depends
 * only on which tables and effects the batch has (the rows travel as one parameter per table), so
 * it is prepared once per connection.
 */
export function changesStatement(batch: readonly Change[]): { query: SQL; witness: Witness } {
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
  const createdEvents = createdEventsCte(allEvents, ok);
  const witness = witnessOf(createdEvents.ids, batch);
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
  return { query, witness };
}

/** A row the statement writes, by which it can be told whether it committed. */
export interface Witness {
  table: PgTable;
  column: PgColumn;
  id: string;
}

/**
 * The batch's first event, or (a batch without events) its first new row with an id and no unique
 * key: an id drawn for this change (newId), which no row had before, so finding it means the
 * statement committed.
 */
function witnessOf(eventIds: readonly string[], batch: readonly Change[]): Witness {
  const event = eventIds[0];
  if (event !== undefined) return { table: events, column: events.id, id: event };
  for (const work of batch)
    for (const { table, values, unique } of work.rows) {
      if (unique) continue;
      const column = (table as unknown as Record<string, unknown>).id;
      if (typeof values.id === 'string' && column instanceof PgColumn)
        return { table, column, id: values.id };
    }
  throw new Error('a batch without an event or a new row cannot be told apart once written');
}

/**
 * A batch's effects, by kind, in the batch's order — row updates first, so that the rows an
 * operation read are locked before the ledger, the order its transaction path takes them in.
 */
export function effectsOf(batch: readonly Change[]): Map<EffectKind<unknown>, unknown[]> {
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
