/**
 * Records what delivery attempts did: the attempt log and the deliveries in one statement, the
 * endpoints' health, the deliveries a sender holds back; and tells the labelled attempts to what
 * listens (webhooks.sending.ts).
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { newId } from '../../kernel/ids.ts';
import type { Claimed } from './webhooks.lease.ts';
import { type AttemptOutcome, labelledAttemptsRecorded } from './webhooks.sending.ts';
import { webhookEndpoints } from './webhooks.table.ts';

/** An endpoint whose deliveries failed this long (clock time) is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;

export interface DeliveryResult {
  deliveryId: string;
  state: 'pending' | 'delivered' | 'failed';
  status: number | null;
}

export interface Decided {
  claimed: Claimed;
  outcome: AttemptOutcome | null;
  ok: boolean;
  gone: boolean;
  state: DeliveryResult['state'];
  nextRetryAt: Date | null;
  /** The webhook chaos label of this attempt; null when none. */
  chaos: string | null;
  /** The chaos duplicate sent after a 2xx, logged as an attempt of its own. */
  duplicate: AttemptOutcome | null;
}

/**
 * An endpoint's health after a batch of attempts, taken in due order: a success clears
 * `failing_since`; failures start it; 5 days of failures (or a 410) disable the endpoint. Null when
 * nothing changes (the common case: a healthy endpoint answering 2xx), so no row is written.
 */
function endpointChange(endpoint: NonNullable<Claimed['endpoint']>, attempts: Decided[]) {
  let failingSince = endpoint.failingSince;
  let disabledReason: string | null = null;
  let updatedAt = attempts[0]?.claimed.at ?? new Date();
  for (const attempt of attempts) {
    updatedAt = attempt.claimed.at;
    failingSince = attempt.ok ? null : (failingSince ?? attempt.claimed.at);
    if (attempt.gone) disabledReason ??= 'the receiver answered 410 Gone';
    else if (
      failingSince &&
      attempt.claimed.at.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS
    )
      disabledReason ??= 'deliveries failed for 5 days';
  }
  const same = (failingSince?.getTime() ?? null) === (endpoint.failingSince?.getTime() ?? null);
  if (same && !disabledReason) return null;
  // Attempts to one endpoint run concurrently: when none of these succeeded, a failure recorded by
  // another attempt since this one's endpoint was read keeps its (earlier) start.
  const since =
    failingSince && !attempts.some((a) => a.ok)
      ? sql`coalesce(${webhookEndpoints.failingSince}, ${failingSince.toISOString()}::timestamptz)`
      : failingSince;
  return {
    failingSince: since,
    updatedAt,
    ...(disabledReason ? { enabled: false, disabledReason } : {}),
  };
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * Records a batch of attempts: the attempt log and the deliveries in one statement (atomic on its
 * own), plus — only when an endpoint's health changed — the endpoint, in the same transaction.
 */
async function recordOutcomes(db: Db, decided: Decided[]): Promise<void> {
  if (decided.length === 0) return;
  const attempted = decided.filter((d) => d.outcome);
  const attemptRow = (
    claimed: Claimed,
    outcome: AttemptOutcome,
    nextRetryAt: Date | null,
    chaos: string | null,
  ) =>
    sql`(${newId('webhookAttempt')}::text, ${claimed.id}::text, ${claimed.merchantId}::text, ${iso(claimed.at)}::timestamptz,
        ${outcome.status}::int, ${outcome.durationMs}::int, ${outcome.responseBody}::text, ${outcome.error}::text,
        ${iso(nextRetryAt)}::timestamptz, ${chaos}::text)`;
  const attemptRows = attempted.flatMap(({ claimed, outcome, nextRetryAt, chaos, duplicate }) => [
    attemptRow(claimed, outcome!, nextRetryAt, chaos),
    ...(duplicate ? [attemptRow(claimed, duplicate, null, 'duplicate')] : []),
  ]);
  const deliveryRows = decided.map(
    ({ claimed, outcome, state, nextRetryAt, duplicate }) =>
      sql`(${claimed.id}::text, ${state}::text, ${claimed.attempts + (outcome ? 1 : 0) + (duplicate ? 1 : 0)}::int,
        ${outcome?.status ?? null}::int, ${iso(nextRetryAt ?? claimed.nextAttemptAt)}::timestamptz,
        ${iso(claimed.at)}::timestamptz)`,
  );
  // The log lines are written only for the deliveries the UPDATE found: a delivery deleted while
  // its attempt was in flight (a merchant's reset) leaves no attempt behind.
  const logAttempts =
    attemptRows.length > 0
      ? sql`, logged AS (
          INSERT INTO webhook_attempts (id, delivery_id, merchant_id, attempted_at, status, duration_ms, response_body, error, next_retry_at, chaos)
          SELECT a.* FROM (VALUES ${sql.join(attemptRows, sql`, `)})
            AS a(id, delivery_id, merchant_id, attempted_at, status, duration_ms, response_body, error, next_retry_at, chaos)
          WHERE a.delivery_id IN (SELECT id FROM updated)
        )`
      : sql``;
  const statement = sql`WITH updated AS (UPDATE webhook_deliveries d
    SET state = v.state, attempts = v.attempts, last_status = v.last_status,
      next_attempt_at = v.next_attempt_at, lease_until = NULL, updated_at = v.updated_at,
      chaos = NULL, held_until = NULL
    FROM (VALUES ${sql.join(deliveryRows, sql`, `)}) AS v(id, state, attempts, last_status, next_attempt_at, updated_at)
    WHERE d.id = v.id
    RETURNING d.id)${logAttempts}
    SELECT count(*) FROM updated`;
  const byEndpoint = new Map<string, { endpoint: NonNullable<Claimed['endpoint']>; attempts: Decided[] }>();
  for (const d of attempted) {
    const endpoint = d.claimed.endpoint!;
    const entry = byEndpoint.get(endpoint.id) ?? { endpoint, attempts: [] };
    entry.attempts.push(d);
    byEndpoint.set(endpoint.id, entry);
  }
  const changes = [...byEndpoint.values()].flatMap(({ endpoint, attempts }) => {
    const change = endpointChange(endpoint, attempts);
    return change ? [{ id: endpoint.id, change }] : [];
  });
  if (changes.length === 0) {
    await db.execute(statement);
    return;
  }
  await db.transaction(async (tx) => {
    await tx.execute(statement);
    for (const { id, change } of changes)
      await tx.update(webhookEndpoints).set(change).where(eq(webhookEndpoints.id, id));
  });
}

/**
 * Holds deliveries back as their senders' plans say (webhook chaos): the note and the real time
 * until which it holds are kept on the row (still pending, so nothing is lost if this process
 * stops) and the lease is given up. A delivery a redelivery started again in the meantime (attempts reset) is left alone.
 */
export async function recordHolds(
  db: Db,
  holds: { claimed: Claimed; note: string; until: Date }[],
): Promise<void> {
  if (holds.length === 0) return;
  const rows = holds.map(
    ({ claimed, note, until }) => sql`(${claimed.id}::text, ${note}::text, ${iso(until)}::timestamptz)`,
  );
  await db.execute(sql`UPDATE webhook_deliveries d
    SET chaos = v.chaos, held_until = v.held_until, lease_until = NULL
    FROM (VALUES ${sql.join(rows, sql`, `)}) AS v(id, chaos, held_until)
    WHERE d.id = v.id AND d.state = 'pending'`);
}

/**
 * Records decided attempts in one statement (and their endpoints' health), then tells the labelled
 * ones to what listens (the chaos metrics).
 */
export async function recordAttempts(db: Db, decided: Decided[]): Promise<DeliveryResult[]> {
  await recordOutcomes(db, decided);
  labelledAttemptsRecorded(
    decided.flatMap((d) => [
      ...(d.chaos && d.outcome ? [{ label: d.chaos, status: d.outcome.status }] : []),
      ...(d.duplicate ? [{ label: 'duplicate', status: d.duplicate.status }] : []),
    ]),
  );
  return decided.map(
    (d): DeliveryResult => ({ deliveryId: d.claimed.id, state: d.state, status: d.outcome?.status ?? null }),
  );
}

/**
 * Records attempts as they end, several in one statement: an attempt that ends while a write is
 * under way waits for the next one, which carries every attempt that ended meanwhile.
 */
export class AttemptRecorder {
  #queue: {
    decided: Decided;
    resolve: (result: DeliveryResult) => void;
    reject: (error: unknown) => void;
  }[] = [];
  #writing = false;

  constructor(private readonly db: Db) {}

  record(decided: Decided): Promise<DeliveryResult> {
    const done = new Promise<DeliveryResult>((resolve, reject) =>
      this.#queue.push({ decided, resolve, reject }),
    );
    if (!this.#writing) void this.#write();
    return done;
  }

  async #write(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0);
        try {
          const results = await recordAttempts(
            this.db,
            batch.map((b) => b.decided),
          );
          for (const [i, b] of batch.entries()) b.resolve(results[i] as DeliveryResult);
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      }
    } finally {
      this.#writing = false;
    }
  }
}
