import { sql } from 'drizzle-orm';
import { encodeTime } from 'ulid';
import { type Db, queryRows } from '../../db/client.ts';
import { requestLogSettings } from './request-log.writer.ts';

/**
 * Retention: the request log keeps REQUEST_LOG_RETENTION_HOURS of real time (24 by default). An
 * entry's id is its request's id, a ULID of the instant it arrived, so the entries older than the
 * window are the ids below the window's first possible id: a range of the primary key, no scan.
 */
export async function purgeOldRequests(db: Db, realNow: Date, limit: number): Promise<number> {
  const hours = requestLogSettings(db).retentionHours;
  const floor = `req_${encodeTime(Math.max(0, realNow.getTime() - hours * 3_600_000), 10)}`;
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH gone AS (DELETE FROM request_logs WHERE id IN (
        SELECT id FROM request_logs WHERE id < ${floor} ORDER BY id LIMIT ${limit}) RETURNING 1)
      SELECT count(*)::int AS n FROM gone`,
  );
  return Number(rows[0]?.n ?? 0);
}
