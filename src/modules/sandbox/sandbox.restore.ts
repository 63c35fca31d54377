import { type SQL, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/client.ts';

/**
 * Restoring a snapshot by difference (docs/guide/snapshots.md, "How a restore works"): a test that
 * changed five rows of a merchant seeded with thousands gets those five put back, not the thousands
 * deleted and reinserted.
 *
 * Postgres stamps every row version with the transaction that wrote it (`xmin`), and versions are
 * never changed in place. A snapshot keeps a baseline: the oldest transaction still running when the
 * statement that saved it, or last restored it, read the merchant's rows (`base_xmin`), and that
 * statement's own transaction (`base_xid`). At that moment the merchant's rows were exactly the
 * snapshot's; so a row version still there, written by a transaction older than `base_xmin` (finished
 * before that statement looked) or by `base_xid` itself, is the snapshot's row of the same key. Every
 * other row of the merchant (new, changed, or written concurrently) is deleted and the snapshot's rows
 * whose key no kept row has are inserted, all in one statement, so the foreign keys between the
 * tables are checked once everything is back. The statement records its own baseline for the next
 * restore.
 *
 * Transaction ids are 32 bits in a row and wrap around; a baseline from another epoch of ids (or none,
 * from a snapshot saved before baselines existed) keeps nothing: everything is deleted and reinserted.
 */
export interface Baseline {
  xmin: bigint | null;
  xid: bigint | null;
}

const LOW_32 = 0xffffffffn;

/** The 32-bit ids a kept row's `xmin` is compared with, or null when nothing can be kept. */
export function keptWindow(base: Baseline, current: bigint): { lo: bigint; own: bigint } | null {
  if (base.xmin === null || base.xid === null) return null;
  const epoch = current >> 32n;
  if (base.xmin >> 32n !== epoch || base.xid >> 32n !== epoch) return null;
  return { lo: base.xmin & LOW_32, own: base.xid & LOW_32 };
}

/** Primary-key columns per table, read once from the catalog (the schema does not change while running). */
const primaryKeys = new Map<string, string[]>();

async function keysOf(tx: Tx, tables: string[]): Promise<Map<string, string[]>> {
  const missing = tables.filter((table) => !primaryKeys.has(table));
  if (missing.length > 0) {
    const rows = await queryRows<{ name: string; columns: string[] }>(
      tx,
      sql`SELECT t.name, json_agg(a.attname::text ORDER BY k.n) AS columns
        FROM unnest(${`{${missing.join(',')}}`}::text[]) AS t(name)
        JOIN pg_index i ON i.indrelid = to_regclass(t.name) AND i.indisprimary
        CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        GROUP BY t.name`,
    );
    for (const row of rows) primaryKeys.set(row.name, row.columns);
  }
  const out = new Map<string, string[]>();
  for (const table of tables) {
    const columns = primaryKeys.get(table);
    if (!columns || columns.length === 0) throw new Error(`table ${table} has no primary key to restore by`);
    out.set(table, columns);
  }
  return out;
}

/**
 * The merchant's rows of `tables` (each with its reset condition) made the snapshot's again, and the
 * snapshot's baseline moved to this statement. `window` null deletes and reinserts everything.
 */
export async function restoreRows(
  tx: Tx,
  snapshotId: string,
  merchantId: string,
  tables: Array<{ table: string; where: string | null }>,
  counts: Record<string, number>,
  window: { lo: bigint; own: bigint } | null,
): Promise<void> {
  const keys = await keysOf(
    tx,
    tables.map(({ table }) => table),
  );
  const kept = (alias: string): SQL =>
    window
      ? sql`(${sql.raw(alias)}.xmin::text::bigint < ${window.lo} OR ${sql.raw(alias)}.xmin::text::bigint = ${window.own})`
      : sql`false`;
  const deletes = tables.map(({ table, where }, i) => {
    const also = where ? sql.raw(` AND (${where})`) : sql``;
    return sql`${sql.raw(`d_${i}`)} AS (DELETE FROM ${sql.raw(table)} x WHERE x.merchant_id = ${merchantId}${also} AND NOT ${kept('x')} RETURNING 1)`;
  });
  const gone = sql.join(
    tables.map((_, i) => sql`(SELECT count(*) FROM ${sql.raw(`d_${i}`)})`),
    sql` + `,
  );
  const inserts = tables.map(({ table, where }, i) => {
    const pk = keys.get(table) ?? [];
    const same = sql.raw(pk.map((column) => `k."${column}" = r."${column}"`).join(' AND '));
    const also = where ? sql.raw(` AND (${where})`) : sql``;
    // When as many of the merchant's rows are kept as the snapshot has, none is missing: the
    // condition has no column of the row, so the snapshot's rows are not even read.
    const someMissing = window
      ? sql` AND (SELECT count(*) FROM ${sql.raw(table)} k WHERE k.merchant_id = ${merchantId}${also} AND ${kept('k')}) < ${counts[table] ?? 0}`
      : sql``;
    const notKept = window
      ? sql` AND NOT EXISTS (SELECT 1 FROM ${sql.raw(table)} k WHERE ${same} AND ${kept('k')})`
      : sql``;
    // Reading `gone` first makes every deletion happen before the first insertion.
    return sql`${sql.raw(`i_${i}`)} AS (INSERT INTO ${sql.raw(table)} SELECT r.* FROM jsonb_populate_recordset(NULL::${sql.raw(table)}, (SELECT s.rows FROM saved s WHERE s.name = ${table}::text)) r WHERE (SELECT n FROM gone) >= 0${someMissing}${notKept} RETURNING 1)`;
  });
  await tx.execute(
    sql`WITH saved AS MATERIALIZED (SELECT t.key AS name, t.value AS rows FROM sandbox_snapshots s, jsonb_each(s.rows) t WHERE s.id = ${snapshotId}),
      ${sql.join(deletes, sql`, `)},
      gone AS (SELECT ${gone} AS n),
      ${sql.join(inserts, sql`, `)},
      base AS (UPDATE sandbox_snapshots
        SET base_xmin = pg_snapshot_xmin(pg_current_snapshot())::text::bigint, base_xid = pg_current_xact_id()::text::bigint
        WHERE id = ${snapshotId} RETURNING 1)
      SELECT (SELECT count(*) FROM base) AS n`,
  );
}
