import { and, eq, getTableColumns, isNull, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { EffectKind } from './change.ts';
import type { Tx } from './client.ts';
import { type RecordCell, recordset } from './json-records.ts';

/**
 * An update of one existing row that holds only while the row is as the operation read it: every
 * column of `expect` still has the value read (a compare-and-set on the state, on a running total,
 * on the settings that decided the answer). With an empty `set` it only checks and holds the row
 * (FOR SHARE) until the change commits, so that nothing the answer depended on moves under it.
 *
 * An operation that reads a row, decides, and writes through commit() adds one of these for each
 * row its answer depends on; the events it writes are built from the row as read plus `set`,
 * which is exact because the row is known not to have moved. When it has moved, the change is
 * refused with StaleRow and nothing of it is written: the operation then runs again the way that
 * locks the row first (its transaction path), which gives the answer the row as it now is asks for.
 */
export interface RowUpdate {
  table: PgTable & { id: PgColumn };
  id: string;
  /** Drizzle keys → the values read. */
  expect: Record<string, unknown>;
  /** Drizzle keys → the new values (empty: check and hold only). */
  set: Record<string, unknown>;
}

/** A change refused because a row it depends on is no longer as it was read. */
export class StaleRow extends Error {
  constructor(
    readonly table: string,
    readonly id: string,
  ) {
    super(`${table} ${id} changed after it was read`);
    this.name = 'StaleRow';
  }
}

function tableName(table: PgTable): string {
  return (table as unknown as Record<symbol, string>)[Symbol.for('drizzle:Name')] ?? 'row';
}

function columnOf(table: PgTable, key: string): PgColumn {
  const column = getTableColumns(table)[key];
  if (!column) throw new Error(`${tableName(table)} has no column ${key}`);
  return column as PgColumn;
}

function cell(value: unknown): RecordCell {
  return typeof value === 'bigint' ? value.toString() : ((value ?? null) as RecordCell);
}

/** The updates of one table that expect and set the same columns: one CTE pair in the statement. */
interface Group {
  table: PgTable & { id: PgColumn };
  expectKeys: string[];
  setKeys: string[];
  items: RowUpdate[];
}

/** A batch's updates grouped by table and columns, in an order that depends only on those. */
function groupsOf(items: readonly RowUpdate[]): Group[] {
  const groups = new Map<string, Group>();
  const seen = new Map<string, string>();
  for (const item of items) {
    const expectKeys = Object.keys(item.expect).sort();
    const setKeys = Object.keys(item.set).sort();
    const name = tableName(item.table);
    const signature = `${name}|${expectKeys.join(',')}|${setKeys.join(',')}`;
    // The same row twice in one statement: only identical checks can share it; anything else is
    // left to the step-by-step path, which applies them one after the other.
    const rowKey = `${name}|${item.id}`;
    const fingerprint = `${signature}|${JSON.stringify(item.expect, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`;
    const earlier = seen.get(rowKey);
    if (earlier !== undefined) {
      if (earlier === fingerprint && setKeys.length === 0) continue;
      throw new Error('a row updated twice in one batch');
    }
    seen.set(rowKey, fingerprint);
    const group = groups.get(signature) ?? { table: item.table, expectKeys, setKeys, items: [] };
    group.items.push(item);
    groups.set(signature, group);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}

/** The statement's parts for the batch's updates: lock and compare, then write when `ok`. */
function updatesStatement(items: readonly RowUpdate[]): {
  checks: SQL;
  ready: SQL;
  writes: (ok: SQL) => SQL;
} {
  const groups = groupsOf(items);
  const checks: SQL[] = [];
  const ready: SQL[] = [];
  const writes: ((ok: SQL) => SQL)[] = [];
  groups.forEach((group, g) => {
    const expectColumns = group.expectKeys.map((key) => columnOf(group.table, key));
    const setColumns = group.setKeys.map((key) => columnOf(group.table, key));
    const definitions = [
      'id text',
      ...expectColumns.map((column, i) => `e${i} ${column.getSQLType()}`),
      ...setColumns.map((column, i) => `s${i} ${column.getSQLType()}`),
    ].join(', ');
    const records = group.items.map((item) => {
      const record: Record<string, RecordCell> = { id: item.id };
      group.expectKeys.forEach((key, i) => {
        record[`e${i}`] = cell(item.expect[key]);
      });
      group.setKeys.forEach((key, i) => {
        record[`s${i}`] = cell(item.set[key]);
      });
      return record;
    });
    const matches = sql.join(
      [
        sql`t.id = v.id`,
        ...expectColumns.map(
          (column, i) => sql`t.${sql.identifier(column.name)} IS NOT DISTINCT FROM v.${sql.raw(`e${i}`)}`,
        ),
      ],
      sql` AND `,
    );
    const lock = group.setKeys.length === 0 ? sql`FOR SHARE OF t` : sql`FOR NO KEY UPDATE OF t`;
    const checked = sql.raw(`row_check_${g}`);
    checks.push(sql`${checked} AS (
      SELECT t.id FROM ${group.table} t JOIN ${recordset(records, definitions)} ON ${matches}
      ORDER BY t.id ${lock}
    )`);
    ready.push(sql`(SELECT count(*) FROM ${checked}) = ${records.length}`);
    if (setColumns.length === 0) return;
    const assignments = sql.join(
      setColumns.map((column, i) => sql`${sql.identifier(column.name)} = v.${sql.raw(`s${i}`)}`),
      sql`, `,
    );
    writes.push(
      (ok) => sql`${sql.raw(`row_update_${g}`)} AS (
        UPDATE ${group.table} t SET ${assignments}
        FROM ${recordset(records, definitions)}
        WHERE t.id = v.id AND t.id IN (SELECT id FROM ${checked}) AND ${ok}
      )`,
    );
  });
  return {
    checks: sql.join(checks, sql`, `),
    ready: sql.join(ready, sql` AND `),
    // A batch of only check-and-hold updates writes nothing of its own; the CTE list stays valid.
    writes: (ok) =>
      writes.length === 0
        ? sql`row_update_none AS (SELECT 1)`
        : sql.join(
            writes.map((write) => write(ok)),
            sql`, `,
          ),
  };
}

function matching(item: RowUpdate): SQL | undefined {
  return and(
    eq(item.table.id, item.id),
    ...Object.entries(item.expect).map(([key, value]) => {
      const column = columnOf(item.table, key);
      return value === null || value === undefined ? isNull(column) : eq(column, value);
    }),
  );
}

/** One update step by step, in a transaction: refused with StaleRow when the row has moved. */
async function applyUpdate(tx: Tx, item: RowUpdate): Promise<void> {
  const where = matching(item);
  const found =
    Object.keys(item.set).length === 0
      ? await tx
          .select({ id: item.table.id })
          .from(item.table as PgTable)
          .where(where)
          .for('share')
      : await tx
          .update(item.table as PgTable)
          .set(item.set as never)
          .where(where)
          .returning({ id: item.table.id });
  if (found.length === 0) throw new StaleRow(tableName(item.table), item.id);
}

/** Row updates as an effect of a change (docs/internals/architecture.md, "The write path"). */
export const rowUpdates: EffectKind<RowUpdate> = {
  statement: updatesStatement,
  lockAll: async (tx, items) => {
    const sorted = [...items].sort((a, b) => {
      const ka = `${tableName(a.table)}|${a.id}`;
      const kb = `${tableName(b.table)}|${b.id}`;
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    for (const item of sorted) {
      const query = tx
        .select({ id: item.table.id })
        .from(item.table as PgTable)
        .where(eq(item.table.id, item.id));
      await (Object.keys(item.set).length === 0 ? query.for('share') : query.for('no key update'));
    }
  },
  eventsOf: () => [],
  apply: applyUpdate,
};
