import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from './client.ts';

interface StatefulTable {
  id: PgColumn;
  state: PgColumn;
}

/**
 * The compare-and-set half of a transition (house rule: state machines are data, docs/internals/house-rules.md):
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
