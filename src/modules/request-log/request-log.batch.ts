import { type SQL, sql } from 'drizzle-orm';
import { type CapturedRequest, rowOf } from './request-log.entry.ts';

/**
 * One write of the request log (request-log.writer.ts): a batch's INSERT and the trims it makes due,
 * as one statement whose text never changes (its rows travel as one JSON parameter, each row an
 * array of its values in the columns' order): prepared once, one round trip, one commit.
 *
 * The cap per merchant is kept cheaply. A merchant is trimmed once it has had half the cap written
 * since its last trim (and at its first write in this process): its cap-th newest row is found by
 * walking the index from the newest, and the rows below it deleted, from just above the floor of
 * its previous trim (so the rows that trim deleted, dead until the next VACUUM, are not walked
 * again). Between trims a merchant may hold up to one and a half caps; the reads show the newest
 * `cap` (request-log.service.ts). The commit does not wait for its WAL to reach the disk: a crash
 * may lose the last moments of the log, never a request's own writes.
 */

/** What the writer remembers of each merchant between writes. */
export interface TrimState {
  /** Rows written since its last trim (a merchant absent is due at its next write). */
  sinceTrim: Map<string, number>;
  /** The floor of its last trim: every row at or below it is gone. */
  floors: Map<string, string>;
}

/** The merchants of a batch due a trim (half the cap written since the last), counting the batch. */
function dueTrims(batch: readonly CapturedRequest[], cap: number, state: TrimState): Set<string> {
  const every = Math.max(1, Math.floor(cap / 2));
  const due = new Set<string>();
  for (const { merchantId } of batch) {
    const count = state.sinceTrim.get(merchantId);
    if (count === undefined || count + 1 >= every) {
      due.add(merchantId);
      state.sinceTrim.set(merchantId, 0);
    } else state.sinceTrim.set(merchantId, count + 1);
  }
  return due;
}

/**
 * The statement of a batch. A merchant's rows in the batch past the cap are not written at all;
 * each merchant due a trim keeps, of the rows it had, as many as the cap leaves beside its new ones
 * (both parts of the statement see the table as it was before it). It answers the new floors.
 */
export function batchStatement(batch: readonly CapturedRequest[], cap: number, state: TrimState): SQL {
  const written = new Map<string, number>();
  const rows: CapturedRequest[] = [];
  for (let i = batch.length - 1; i >= 0; i--) {
    const entry = batch[i] as CapturedRequest;
    const count = written.get(entry.merchantId) ?? 0;
    written.set(entry.merchantId, count + 1);
    if (count < cap) rows.push(entry);
  }
  const trims = [...dueTrims(batch, cap, state)].map((merchant) => ({
    merchant_id: merchant,
    keep: Math.max(0, cap - (written.get(merchant) ?? 0)),
    after: state.floors.get(merchant) ?? '',
  }));
  const values = rows.reverse().map((entry) => {
    const r = rowOf(entry);
    return [
      r.id,
      r.merchantId,
      r.method,
      r.path,
      r.operation,
      r.status,
      r.errorCode,
      r.idempotencyKey,
      r.latencyMs,
      r.source,
      r.query,
      r.requestBody,
      r.responseBody,
      r.createdAt,
    ];
  });
  return sql`WITH inserted AS (
      INSERT INTO request_logs (id, merchant_id, method, path, operation, status, error_code, idempotency_key,
        latency_ms, source, query, request_body, response_body, created_at)
      SELECT e->>0, e->>1, e->>2, e->>3, e->>4, (e->>5)::int, e->>6, e->>7, (e->>8)::int, e->>9, e->>10,
        e->>11, e->>12, (e->>13)::timestamptz
      FROM jsonb_array_elements(${JSON.stringify(values)}::jsonb) AS e
      ON CONFLICT (merchant_id, id) DO NOTHING RETURNING 1),
    floors AS (
      SELECT m.merchant_id, m.after, (SELECT r.id FROM request_logs r WHERE r.merchant_id = m.merchant_id
        ORDER BY r.id DESC OFFSET m.keep LIMIT 1) AS floor
      FROM jsonb_to_recordset(${JSON.stringify(trims)}::jsonb) AS m(merchant_id text, keep int, after text)),
    trimmed AS (DELETE FROM request_logs t USING floors f
      WHERE t.merchant_id = f.merchant_id AND t.id > f.after AND t.id <= f.floor RETURNING 1)
    SELECT (SELECT count(*) FROM inserted)::int AS inserted, (SELECT count(*) FROM trimmed)::int AS trimmed,
      (SELECT coalesce(json_agg(json_build_array(merchant_id, floor)), '[]'::json) FROM floors
        WHERE floor IS NOT NULL) AS floors,
      set_config('synchronous_commit', 'off', true) AS relaxed`;
}

/** Remembers the floors a batch's statement answered. */
export function noteFloors(answer: { floors?: unknown } | undefined, state: TrimState): void {
  const floors = typeof answer?.floors === 'string' ? JSON.parse(answer.floors) : answer?.floors;
  if (!Array.isArray(floors)) return;
  for (const [merchant, floor] of floors as [string, string][]) state.floors.set(merchant, floor);
}
