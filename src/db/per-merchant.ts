import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from './client.ts';

/**
 * Statements that judge each merchant by its own clock (src/modules/clock: real time plus an
 * offset, or frozen, kept in `merchant_clocks`): the scheduler's due work, the delivery lease and
 * every module's retention pass. SQL over the clock row, with no module's code.
 */

/**
 * A merchant's clock in SQL at the real instant `realNow`, for its `merchant_clocks` row aliased
 * `c` (LEFT JOINed: no row is real time). Lets one statement judge each merchant by its own clock.
 */
export function merchantNowExpression(realNow: Date): SQL {
  return sql`COALESCE(c.frozen_at, ${realNow.toISOString()}::timestamptz + make_interval(secs => COALESCE(c.offset_ms, 0) / 1000.0))`;
}

/**
 * Up to `limit` rows chosen merchant by merchant: `select(now)` is a query over the rows of the
 * merchant `m.id` (with `now` its clock), run once per merchant (LATERAL), so that an index on
 * `(merchant_id, <time>)` answers each with a short range scan instead of a scan of the table.
 * What retention passes delete or blank, in batches.
 */
export function perMerchant(realNow: Date, select: (now: SQL) => SQL, limit: number): SQL {
  return sql`SELECT x.* FROM merchants m
    LEFT JOIN merchant_clocks c ON c.merchant_id = m.id
    CROSS JOIN LATERAL (${select(merchantNowExpression(realNow))} LIMIT ${limit}) x
    LIMIT ${limit}`;
}

/**
 * Deletes, in one statement, up to `limit` rows of `table` (aliased `t` in `where`) that `where`
 * selects by their merchant's clock `now`; `keys` are its primary key columns. Returns how many.
 */
export async function purgePerMerchant(
  db: Db,
  realNow: Date,
  limit: number,
  rule: { table: string; keys?: readonly string[]; where: (now: SQL) => SQL },
): Promise<number> {
  const table = sql.identifier(rule.table);
  const keys = rule.keys ?? ['id'];
  const chosen = perMerchant(
    realNow,
    (now) =>
      sql`SELECT ${sql.join(
        keys.map((key) => sql`t.${sql.identifier(key)}`),
        sql`, `,
      )} FROM ${table} t WHERE t.merchant_id = m.id AND ${rule.where(now)}`,
    limit,
  );
  const matches = sql.join(
    keys.map((key) => sql`d.${sql.identifier(key)} = x.${sql.identifier(key)}`),
    sql` AND `,
  );
  const rows = await queryRows(
    db,
    sql`DELETE FROM ${table} d USING (${chosen}) x WHERE ${matches} RETURNING 1`,
  );
  return rows.length;
}
