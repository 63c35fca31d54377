import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type RawJson, toWireJson } from '../kernel/wire-json.ts';

/** A record's value: money and other bigints as their decimal string (a bigint column reads it exactly). */
export type RecordCell = string | number | boolean | Date | RawJson | object | null;

/**
 * Rows as one `jsonb_to_recordset` parameter: `SELECT * FROM ${recordset(rows, 'id text, …')}`.
 * However many rows a batch has, the statement keeps one parameter per table instead of one per
 * cell, so building, binding and parsing it stay cheap. Keys are the column names; `columns` is the
 * column definition list (names and types, in the order the SELECT produces them). Dates render as
 * ISO instants, RawJson (an event's exact-decimal payload) as it is.
 */
export function recordset(rows: Record<string, RecordCell>[], columns: string): SQL {
  return sql`jsonb_to_recordset(${toWireJson(rows)}::jsonb) AS v(${sql.raw(columns)})`;
}

/**
 * `INSERT INTO <table> (every column) SELECT * FROM <rows as one recordset> WHERE <when>`, for
 * statements that write several tables at once. Rows are the table's own row objects (Drizzle's
 * keys); the column names and types come from the table's definition, so they cannot drift from it.
 * A key left out is NULL; a bigint travels as its exact decimal string; a json column may take
 * RawJson (JSON text kept exactly as it is).
 */
export function insertRecords<T extends PgTable>(
  table: T,
  rows: { [K in keyof T['$inferInsert']]: T['$inferInsert'][K] | RawJson }[],
  when: SQL,
): SQL {
  const columns = Object.entries(getTableColumns(table));
  const records = rows.map((row) =>
    Object.fromEntries(
      columns.map(([key, column]) => {
        const value = (row as Record<string, unknown>)[key] ?? null;
        return [column.name, typeof value === 'bigint' ? value.toString() : value] as [string, RecordCell];
      }),
    ),
  );
  const names = columns.map(([, column]) => `"${column.name}"`).join(', ');
  const definitions = columns.map(([, column]) => `"${column.name}" ${column.getSQLType()}`).join(', ');
  return sql`INSERT INTO ${table} (${sql.raw(names)}) SELECT * FROM ${recordset(records, definitions)} WHERE ${when}`;
}

/**
 * A JSON value as a jsonb column gives it back: every object's keys in jsonb's order (shorter
 * first, then bytewise), so a row built in memory answers as the same row read back would.
 */
export function jsonbOrdered<T>(value: T): T {
  if (Array.isArray(value)) return value.map(jsonbOrdered) as T;
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const keys = Object.keys(value).sort(
    (a, b) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b)),
  );
  return Object.fromEntries(
    keys.map((key) => [key, jsonbOrdered((value as Record<string, unknown>)[key])]),
  ) as T;
}
