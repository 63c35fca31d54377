import { createHmac } from 'node:crypto';
import { eq, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { addSeconds, systemClock } from '../../kernel/clock.ts';
import { newId } from '../../kernel/ids.ts';
import { toWireJson } from '../../kernel/wire-json.ts';
import { merchantNowSql } from '../clock/clock.sql.ts';
import type { ServiceContext } from '../context.ts';
import { eventResource } from '../events/events.resource.ts';
import type { EventRow } from '../events/events.service.ts';
import { type DeliveryLog, listDeliveries, redeliverEvent } from './webhooks.service.ts';
import { webhookEndpoints } from './webhooks.table.ts';
import { sendWebhook } from './webhooks.transport.ts';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** Retries after the first attempt, in seconds of the merchant's clock (Standard Webhooks guidance). */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;
/** Up to 10% later than the schedule, never earlier. */
const JITTER = 0.1;
export const ATTEMPT_TIMEOUT_MS = 15_000;
const RESPONSE_BODY_CAP = 2048;
const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;
const LEASE_MS = 60_000;

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

function hmac(secret: string, content: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return createHmac('sha256', key).update(content).digest('base64');
}

/**
 * Standard Webhooks: `webhook-id`, `webhook-timestamp` (real Unix seconds: receivers check it against
 * their own clock) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, with a
 * second signature by the previous secret while it is still valid.
 */
export function signPayload(
  messageId: string,
  body: string,
  secrets: string[],
  realNow: Date,
): Record<string, string> {
  const timestamp = String(Math.floor(realNow.getTime() / 1000));
  const content = `${messageId}.${timestamp}.${body}`;
  return {
    'content-type': 'application/json',
    'user-agent': 'Sandbank-Webhooks/1',
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets.map((secret) => `v1,${hmac(secret, content)}`).join(' '),
  };
}

interface AttemptOutcome {
  status: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

/** One HTTP POST: 15 s limit, redirects not followed, the response body read up to a cap. */
async function post(url: string, request: SignedRequest): Promise<AttemptOutcome> {
  const started = performance.now();
  try {
    const response = await sendWebhook(url, {
      ...request,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
      responseCap: RESPONSE_BODY_CAP,
    });
    return {
      status: response.status,
      responseBody: response.body,
      error: null,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    const message =
      error instanceof Error
        ? error.cause instanceof Error
          ? error.cause.message
          : error.message
        : String(error);
    return {
      status: null,
      responseBody: null,
      error: message.slice(0, 500).replaceAll('\u0000', '\uFFFD'),
      durationMs: Math.round(performance.now() - started),
    };
  }
}

function retryDelaySeconds(attempt: number, random: () => number): number | null {
  const base = RETRY_SCHEDULE_SECONDS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + JITTER * random()));
}

export interface DeliveryResult {
  deliveryId: string;
  state: 'pending' | 'delivered' | 'failed';
  status: number | null;
}

/** A leased delivery with what sending it needs, to be attempted at merchant clock time `at`. */
interface Claimed {
  id: string;
  merchantId: string;
  attempts: number;
  nextAttemptAt: Date;
  at: Date;
  endpoint: Pick<
    EndpointRow,
    'id' | 'url' | 'enabled' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt' | 'failingSince'
  > | null;
  event: EventRow | null;
}

interface ClaimedRow {
  id: string;
  merchantId: string;
  attempts: number;
  nextAttemptAt: number;
  at: number;
  endpointId: string | null;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  failingSince: number | null;
  eventId: string | null;
  type: string;
  objectId: string;
  dataJson: string;
  createdAt: number;
}

/** A timestamp as epoch milliseconds (float8 reads back as a number from both drivers). */
const epochMs = (column: string) => sql.raw(`round(extract(epoch FROM ${column}) * 1000)::float8`);
const dateOrNull = (ms: number | null) => (ms === null ? null : new Date(ms));

/**
 * Leases the deliveries `due` selects (a query of `(id, clock_now)` that locks with SKIP LOCKED) and
 * loads what sending them needs — endpoint and event — in the same statement, in due order.
 */
async function lease(db: Db, due: SQL): Promise<Claimed[]> {
  const leaseUntil = new Date(systemClock.now().getTime() + LEASE_MS).toISOString();
  const rows = await queryRows<ClaimedRow>(
    db,
    sql`WITH due AS (${due}),
    leased AS (
      UPDATE webhook_deliveries w SET lease_until = ${leaseUntil}::timestamptz
      FROM due WHERE w.id = due.id
      RETURNING w.id, w.merchant_id, w.event_id, w.endpoint_id, w.attempts, w.next_attempt_at, due.clock_now
    )
    SELECT l.id, l.merchant_id AS "merchantId", l.attempts, ${epochMs('l.next_attempt_at')} AS "nextAttemptAt",
      ${epochMs('l.clock_now')} AS "at",
      ep.id AS "endpointId", ep.url, ep.enabled, ep.secret, ep.previous_secret AS "previousSecret",
      ${epochMs('ep.previous_secret_expires_at')} AS "previousSecretExpiresAt",
      ${epochMs('ep.failing_since')} AS "failingSince",
      e.id AS "eventId", e.type, e.object_id AS "objectId", e.data::text AS "dataJson",
      ${epochMs('e.created_at')} AS "createdAt"
    FROM leased l
    LEFT JOIN webhook_endpoints ep ON ep.id = l.endpoint_id
    LEFT JOIN events e ON e.id = l.event_id AND e.merchant_id = l.merchant_id
    ORDER BY l.next_attempt_at, l.id`,
  );
  return rows.map((row) => ({
    id: row.id,
    merchantId: row.merchantId,
    attempts: row.attempts,
    nextAttemptAt: new Date(row.nextAttemptAt),
    at: new Date(row.at),
    endpoint: row.endpointId
      ? {
          id: row.endpointId,
          url: row.url,
          enabled: row.enabled,
          secret: row.secret,
          previousSecret: row.previousSecret,
          previousSecretExpiresAt: dateOrNull(row.previousSecretExpiresAt),
          failingSince: dateOrNull(row.failingSince),
        }
      : null,
    event: row.eventId
      ? {
          id: row.eventId,
          merchantId: row.merchantId,
          type: row.type,
          objectId: row.objectId,
          dataJson: row.dataJson,
          createdAt: new Date(row.createdAt),
        }
      : null,
  }));
}

/** Sends one delivery; null when there is nothing to send (endpoint deleted or disabled since). */
async function send(claimed: Claimed): Promise<AttemptOutcome | null> {
  const { endpoint, event, at } = claimed;
  if (!endpoint?.enabled || !event) return null;
  const body = toWireJson(eventResource(event));
  const headers = signPayload(event.id, body, secretsOf(endpoint, at), systemClock.now());
  return post(endpoint.url, { body, headers });
}

interface Decided {
  claimed: Claimed;
  outcome: AttemptOutcome | null;
  ok: boolean;
  gone: boolean;
  state: DeliveryResult['state'];
  nextRetryAt: Date | null;
}

/**
 * What comes after an attempt: delivered on a 2xx; a 410 disables the endpoint at once; otherwise a
 * retry on the schedule, failed after the last one.
 */
function decide(claimed: Claimed, outcome: AttemptOutcome | null, random: () => number): Decided {
  if (!outcome) return { claimed, outcome, ok: false, gone: false, state: 'failed', nextRetryAt: null };
  const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const gone = outcome.status === 410;
  const delay = ok || gone ? null : retryDelaySeconds(claimed.attempts + 1, random);
  const nextRetryAt = delay === null ? null : addSeconds(claimed.at, delay);
  return {
    claimed,
    outcome,
    ok,
    gone,
    state: ok ? 'delivered' : nextRetryAt ? 'pending' : 'failed',
    nextRetryAt,
  };
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
  return { failingSince, updatedAt, ...(disabledReason ? { enabled: false, disabledReason } : {}) };
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * Records a batch of attempts: the attempt log and the deliveries in one statement (atomic on its
 * own), plus — only when an endpoint's health changed — the endpoint, in the same transaction.
 */
async function recordOutcomes(db: Db, decided: Decided[]): Promise<void> {
  if (decided.length === 0) return;
  const attempted = decided.filter((d) => d.outcome);
  const attemptRows = attempted.map(
    ({ claimed, outcome, nextRetryAt }) =>
      sql`(${newId('webhookAttempt')}, ${claimed.id}, ${claimed.merchantId}, ${iso(claimed.at)}::timestamptz,
        ${outcome!.status}::int, ${outcome!.durationMs}::int, ${outcome!.responseBody}::text, ${outcome!.error}::text,
        ${iso(nextRetryAt)}::timestamptz)`,
  );
  const deliveryRows = decided.map(
    ({ claimed, outcome, state, nextRetryAt }) =>
      sql`(${claimed.id}::text, ${state}::text, ${claimed.attempts + (outcome ? 1 : 0)}::int,
        ${outcome?.status ?? null}::int, ${iso(nextRetryAt ?? claimed.nextAttemptAt)}::timestamptz,
        ${iso(claimed.at)}::timestamptz)`,
  );
  const logAttempts =
    attemptRows.length > 0
      ? sql`WITH logged AS (
          INSERT INTO webhook_attempts (id, delivery_id, merchant_id, attempted_at, status, duration_ms, response_body, error, next_retry_at)
          VALUES ${sql.join(attemptRows, sql`, `)}
        ) `
      : sql``;
  const statement = sql`${logAttempts}UPDATE webhook_deliveries d
    SET state = v.state, attempts = v.attempts, last_status = v.last_status,
      next_attempt_at = v.next_attempt_at, lease_until = NULL, updated_at = v.updated_at
    FROM (VALUES ${sql.join(deliveryRows, sql`, `)}) AS v(id, state, attempts, last_status, next_attempt_at, updated_at)
    WHERE d.id = v.id`;
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

/** Sends claimed deliveries in parallel and records every outcome together. */
async function attemptAll(db: Db, claimed: Claimed[], random: () => number = Math.random) {
  const outcomes = await Promise.all(claimed.map(send));
  const decided = claimed.map((c, i) => decide(c, outcomes[i] ?? null, random));
  await recordOutcomes(db, decided);
  return decided.map(
    (d): DeliveryResult => ({ deliveryId: d.claimed.id, state: d.state, status: d.outcome?.status ?? null }),
  );
}

function secretsOf(endpoint: NonNullable<Claimed['endpoint']>, at: Date): string[] {
  const previousValid =
    endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > at;
  return previousValid && endpoint.previousSecret
    ? [endpoint.secret, endpoint.previousSecret]
    : [endpoint.secret];
}

/** Whether nobody holds a delivery's lease (a lease outlives a crashed worker by at most LEASE_MS). */
const unleased = (realNow: Date) =>
  sql`(d.lease_until IS NULL OR d.lease_until < ${realNow.toISOString()}::timestamptz)`;

/**
 * One step of the background worker: leases up to `limit` deliveries due by their merchant's clock
 * (SKIP LOCKED: several workers share them), sends them in parallel and records them together.
 * Returns how many it attempted. A merchant whose clock advance is still delivering its window
 * (`advancing_until`) is left to that advance: taken now, its deliveries would be attempted at the
 * clock's new time, the window's end, instead of each at its own due time.
 */
export async function deliverDueBatch(db: Db, limit: number): Promise<number> {
  const realNow = systemClock.now();
  const real = sql`${realNow.toISOString()}::timestamptz`;
  const clockNow = merchantNowSql(realNow);
  const claimed = await lease(
    db,
    sql`SELECT d.id, ${clockNow} AS clock_now
      FROM webhook_deliveries d
      LEFT JOIN merchant_clocks c ON c.merchant_id = d.merchant_id
      WHERE d.state = 'pending' AND ${unleased(realNow)} AND d.next_attempt_at <= ${clockNow}
        AND (c.advancing_until IS NULL OR c.advancing_until < ${real})
      ORDER BY d.next_attempt_at
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED`,
  );
  await attemptAll(db, claimed);
  return claimed.length;
}

/** How long a clock advance waits between looks at a delivery another worker is attempting. */
const LEASED_ELSEWHERE_POLL_MS = 20;

/**
 * A clock advance's step: the merchant's deliveries due up to `until`, one at a time in due order,
 * each attempted at its own due time, retries that fall inside the window included. It ends when
 * none of the window's deliveries is left pending: one that another worker leased before the
 * advance took its hold (an attempt in flight) is waited for, as its retry may fall inside the
 * window too.
 */
export async function deliverDueForMerchant(
  db: Db,
  merchantId: string,
  until: Date,
): Promise<DeliveryResult[]> {
  const results: DeliveryResult[] = [];
  const due = sql`d.merchant_id = ${merchantId} AND d.state = 'pending'
    AND d.next_attempt_at <= ${until.toISOString()}::timestamptz`;
  for (let guard = 0; guard < 10_000; guard++) {
    const claimed = await lease(
      db,
      sql`SELECT d.id, d.next_attempt_at AS clock_now
        FROM webhook_deliveries d
        WHERE ${due} AND ${unleased(systemClock.now())}
        ORDER BY d.next_attempt_at, d.id
        LIMIT 1
        FOR UPDATE OF d SKIP LOCKED`,
    );
    if (claimed.length > 0) {
      results.push(...(await attemptAll(db, claimed)));
      continue;
    }
    // None free: done unless one of the window's deliveries is left (leased elsewhere, or freed
    // since the look above).
    const [left] = await queryRows<{ id: string }>(
      db,
      sql`SELECT d.id FROM webhook_deliveries d WHERE ${due} LIMIT 1`,
    );
    if (!left) return results;
    await new Promise((resolve) => setTimeout(resolve, LEASED_ELSEWHERE_POLL_MS));
  }
  return results;
}

/** The clock-advance hook: webhook deliveries and retries that fall due inside the advanced window. */
export function deliverWebhooksUntil(
  ctx: { db: Db; merchant: { id: string } },
  until: Date,
): Promise<DeliveryResult[]> {
  return deliverDueForMerchant(ctx.db, ctx.merchant.id, until);
}

/**
 * Redelivers an event (as POST /v1/events/{id}/redeliver) and makes the attempts at once, waiting
 * for the receivers' answers (at most the 15 s timeout): the dashboard's redeliver button, where a
 * person wants to see the result, not a queued delivery.
 */
export async function redeliverEventNow(
  ctx: ServiceContext,
  eventId: string,
  raw: unknown,
): Promise<DeliveryLog[]> {
  await redeliverEvent(ctx, eventId, raw);
  await deliverDueForMerchant(ctx.db, ctx.merchant.id, ctx.clock.now());
  return listDeliveries(ctx, eventId);
}
