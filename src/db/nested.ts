import { type Column, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * The rows of a table that belong to the row of an outer query, read by that same query as one
 * json value (a correlated subquery): an object and its relations in one statement instead of one
 * statement each. `decode` turns the value back into exactly the rows Drizzle's own select answers.
 */
export interface Nested<Row> {
  /** A json array with one array per row: the table's cells in column order, then each child's. */
  readonly sql: SQL;
  /** The column's value as the driver gives it (parsed json, or its text) → the rows. */
  decode(value: unknown): Row[];
}

type RowsOf<C> = { [K in keyof C]: C[K] extends Nested<infer R> ? R[] : never };

/** json_build_array takes at most 100 arguments (Postgres's limit on a function's arguments). */
const MAX_CELLS = 100;

/**
 * Cells whose json form would lose what the column holds travel as text and are read back by the
 * column's own mapping: bigints (money) and numerics, which json would carry as numbers.
 */
function cell(column: Column): SQL {
  const asText = column.columnType === 'PgBigInt64' || column.columnType === 'PgNumeric';
  return asText ? sql`${column}::text` : sql`${column}`;
}

/** json and jsonb cells are already the value (a string in them is a string, not json text). */
function reader(column: Column): (value: unknown) => unknown {
  if (column.columnType === 'PgJson' || column.columnType === 'PgJsonb') return (value) => value;
  return (value) => (value === null ? null : column.mapFromDriverValue(value));
}

/**
 * `table`'s rows matching `where` (which may name the outer query's columns), in `orderBy`'s
 * order, each with its `children` (nested rows of their own, keyed by the name they take).
 */
export function nestedRows<
  T extends PgTable,
  C extends Record<string, Nested<unknown>> = Record<never, never>,
>(table: T, options: { where: SQL; orderBy: SQL; children?: C }): Nested<T['$inferSelect'] & RowsOf<C>> {
  const columns = Object.entries(getTableColumns(table));
  const children = Object.entries(options.children ?? {});
  if (columns.length + children.length > MAX_CELLS) {
    throw new Error(`nestedRows: ${columns.length + children.length} cells is more than ${MAX_CELLS}`);
  }
  const cells = sql.join(
    [...columns.map(([, column]) => cell(column)), ...children.map(([, child]) => child.sql)],
    sql`, `,
  );
  const readers = columns.map(([key, column]) => [key, reader(column)] as const);
  return {
    sql: sql`(SELECT coalesce(json_agg(json_build_array(${cells}) ORDER BY ${options.orderBy}), '[]'::json) FROM ${table} WHERE ${options.where})`,
    decode(value) {
      const rows = (typeof value === 'string' ? JSON.parse(value) : value) as unknown[][];
      return rows.map((cells) => {
        const row: Record<string, unknown> = {};
        readers.forEach(([key, read], index) => {
          row[key] = read(cells[index]);
        });
        children.forEach(([key, child], index) => {
          row[key] = child.decode(cells[columns.length + index]);
        });
        return row as T['$inferSelect'] & RowsOf<C>;
      });
    },
  };
}
