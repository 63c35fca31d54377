import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { invalidState, type Machine, transition } from '../kernel/state-machine.ts';
import type { Executor } from './client.ts';

interface StatefulTable {
  id: PgColumn;
  state: PgColumn;
}

/**
 * The compare-and-set half of a transition (house rule: state machines are data, docs/house-rules.md):
 * `UPDATE t SET state = to, … WHERE id = $id AND state = $from RETURNING *`.
 * Returns the updated row, or null when another writer moved the object first.
 */
export async function updateIfState<T extends PgTable & StatefulTable>(
  exec: Executor,
  table: T,
  id: string,
  from: string,
  values: Record<string, unknown>,
  extraWhere?: SQL,
): Promise<T['$inferSelect'] | null> {
  const where = and(eq(table.id, id), eq(table.state, from), extraWhere);
  // Drizzle's update types cannot be expressed over an abstract table: the row type is restored below.
  const rows = (await exec
    .update(table as PgTable)
    .set(values as never)
    .where(where)
    .returning()) as T['$inferSelect'][];
  return rows[0] ?? null;
}

/**
 * One step of `machine` on a row: checks the step (409 invalid_state when not allowed), then
 * compare-and-sets the state. Of two racing writers one wins; the other gets invalid_state naming
 * the state it found.
 */
export async function transitionRow<T extends PgTable & StatefulTable, S extends string, E extends string>(
  exec: Executor,
  machine: Machine<S, E>,
  table: T,
  row: { id: string; state: string },
  event: E,
  values: Record<string, unknown>,
): Promise<T['$inferSelect']> {
  const to = transition(machine, row.state as S, event);
  const moved = await updateIfState(exec, table, row.id, row.state, { ...values, state: to });
  if (moved) return moved;
  const [current] = (await exec
    .select({ state: table.state })
    .from(table as PgTable)
    .where(eq(table.id, row.id))) as { state: string }[];
  throw invalidState(machine, (current?.state ?? row.state) as S, event);
}
