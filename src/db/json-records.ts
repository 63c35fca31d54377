import { type SQL, sql } from 'drizzle-orm';
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
