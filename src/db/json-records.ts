import { type SQL, sql } from 'drizzle-orm';

/** JSON text spliced into a record as it is (an event's exact-decimal payload, say). */
export class RawJson {
  constructor(readonly text: string) {}
}

export type RecordCell = string | number | boolean | bigint | Date | RawJson | object | null;

function cellJson(value: RecordCell): string {
  if (value === null) return 'null';
  if (value instanceof RawJson) return value.text;
  if (typeof value === 'bigint') return `"${value}"`; // bigint columns read the string exactly
  if (value instanceof Date) return `"${value.toISOString()}"`;
  return JSON.stringify(value);
}

/**
 * Rows as one `jsonb_to_recordset` parameter: `SELECT * FROM ${recordset(rows, 'id text, …')}`.
 * However many rows a batch has, the statement keeps one parameter per table instead of one per
 * cell, so building, binding and parsing it stay cheap. Keys are the column names; `columns` is the
 * column definition list (names and types, in the order the SELECT produces them).
 */
export function recordset(rows: Record<string, RecordCell>[], columns: string): SQL {
  const json = `[${rows
    .map(
      (row) =>
        `{${Object.entries(row)
          .map(([key, value]) => `${JSON.stringify(key)}:${cellJson(value)}`)
          .join(',')}}`,
    )
    .join(',')}]`;
  return sql`jsonb_to_recordset(${json}::jsonb) AS v(${sql.raw(columns)})`;
}
