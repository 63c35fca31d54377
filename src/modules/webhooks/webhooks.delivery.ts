import { createHmac } from 'node:crypto';
import { and, asc, eq, lte, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { addSeconds, systemClock } from '../../kernel/clock.ts';
import { newId } from '../../kernel/ids.ts';
import { toWireJson } from '../../kernel/wire-json.ts';
import { eventResource } from '../events/events.resource.ts';
import { findEvent } from '../events/events.service.ts';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from './webhooks.table.ts';
import { sendWebhook } from './webhooks.transport.ts';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

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

async function readCapped(response: Awaited<ReturnType<typeof sendWebhook>>): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < RESPONSE_BODY_CAP) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_BODY_CAP);
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
    const response = await sendWebhook(url, { ...request, timeoutMs: ATTEMPT_TIMEOUT_MS });
    const responseBody = await readCapped(response);
    return {
      status: response.status,
      responseBody,
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
      error: message.slice(0, 500),
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

/**
 * Attempts one claimed delivery at merchant clock time `at`, records the attempt and decides what
 * comes next: delivered on a 2xx; a 410 disables the endpoint at once; otherwise a retry on the
 * schedule, failed after the last one, and the endpoint disabled once it has failed for 5 days.
 */
export async function attemptDelivery(
  db: Db,
  delivery: DeliveryRow,
  at: Date,
  random: () => number = Math.random,
): Promise<DeliveryResult> {
  const [endpoint] = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.id, delivery.endpointId));
  const event = await findEvent(db, delivery.merchantId, delivery.eventId);
  if (!endpoint?.enabled || !event) {
    await db
      .update(webhookDeliveries)
      .set({ state: 'failed', leaseUntil: null, updatedAt: at })
      .where(eq(webhookDeliveries.id, delivery.id));
    return { deliveryId: delivery.id, state: 'failed', status: null };
  }
  const body = toWireJson(eventResource(event));
  const headers = signPayload(event.id, body, secretsOf(endpoint, at), systemClock.now());
  const outcome = await post(endpoint.url, { body, headers });
  return recordOutcome(db, delivery, endpoint, outcome, at, random);
}

function secretsOf(endpoint: EndpointRow, at: Date): string[] {
  const previousValid =
    endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > at;
  return previousValid && endpoint.previousSecret
    ? [endpoint.secret, endpoint.previousSecret]
    : [endpoint.secret];
}

async function recordOutcome(
  db: Db,
  delivery: DeliveryRow,
  endpoint: EndpointRow,
  outcome: AttemptOutcome,
  at: Date,
  random: () => number,
): Promise<DeliveryResult> {
  const attempts = delivery.attempts + 1;
  const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const gone = outcome.status === 410;
  const delay = ok || gone ? null : retryDelaySeconds(attempts, random);
  const nextRetryAt = delay === null ? null : addSeconds(at, delay);
  const state: DeliveryResult['state'] = ok ? 'delivered' : nextRetryAt ? 'pending' : 'failed';
  const failingSince = ok ? null : (endpoint.failingSince ?? at);
  const failedTooLong = !ok && at.getTime() - failingSince!.getTime() >= DISABLE_AFTER_FAILING_MS;
  const disabledReason = gone
    ? 'the receiver answered 410 Gone'
    : failedTooLong
      ? 'deliveries failed for 5 days'
      : null;
  await db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({
      id: newId('webhookAttempt'),
      deliveryId: delivery.id,
      merchantId: delivery.merchantId,
      attemptedAt: at,
      status: outcome.status,
      durationMs: outcome.durationMs,
      responseBody: outcome.responseBody,
      error: outcome.error,
      nextRetryAt,
    });
    await tx
      .update(webhookDeliveries)
      .set({
        state,
        attempts,
        lastStatus: outcome.status,
        leaseUntil: null,
        ...(nextRetryAt ? { nextAttemptAt: nextRetryAt } : {}),
        updatedAt: at,
      })
      .where(eq(webhookDeliveries.id, delivery.id));
    await tx
      .update(webhookEndpoints)
      .set({
        failingSince,
        ...(disabledReason ? { enabled: false, disabledReason } : {}),
        updatedAt: at,
      })
      .where(eq(webhookEndpoints.id, endpoint.id));
  });
  return { deliveryId: delivery.id, state, status: outcome.status };
}

/** Claims up to `limit` deliveries due by their merchant's clock, with a lease so no other worker sends them. */
export async function claimDueDeliveries(
  db: Db,
  limit: number,
): Promise<(DeliveryRow & { clockNow: Date })[]> {
  const realNow = systemClock.now();
  const rows = await queryRows<{ id: string; clock_now: string }>(
    db,
    sql`WITH due AS (
      SELECT d.id, COALESCE(c.frozen_at, ${realNow.toISOString()}::timestamptz + make_interval(secs => COALESCE(c.offset_ms, 0) / 1000.0)) AS clock_now
      FROM webhook_deliveries d
      LEFT JOIN merchant_clocks c ON c.merchant_id = d.merchant_id
      WHERE d.state = 'pending'
        AND (d.lease_until IS NULL OR d.lease_until < ${realNow.toISOString()}::timestamptz)
        AND d.next_attempt_at <= COALESCE(c.frozen_at, ${realNow.toISOString()}::timestamptz + make_interval(secs => COALESCE(c.offset_ms, 0) / 1000.0))
      ORDER BY d.next_attempt_at
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE webhook_deliveries w SET lease_until = ${new Date(realNow.getTime() + LEASE_MS).toISOString()}::timestamptz
    FROM due WHERE w.id = due.id
    RETURNING w.id, due.clock_now::text AS clock_now`,
  );
  if (rows.length === 0) return [];
  const clockNow = new Map(rows.map((row) => [row.id, new Date(row.clock_now)]));
  const claimed = await db
    .select()
    .from(webhookDeliveries)
    .where(
      sql`${webhookDeliveries.id} IN (${sql.join(
        rows.map((row) => sql`${row.id}`),
        sql`, `,
      )})`,
    );
  return claimed.map((row) => ({ ...row, clockNow: clockNow.get(row.id) ?? new Date() }));
}

/** The background worker's step: attempts every delivery due now (in parallel), returns how many. */
export async function deliverDue(db: Db, limit = 50): Promise<number> {
  const claimed = await claimDueDeliveries(db, limit);
  await Promise.all(claimed.map((delivery) => attemptDelivery(db, delivery, delivery.clockNow)));
  return claimed.length;
}

/**
 * A clock advance's step: the merchant's deliveries due up to `until`, one at a time in due order,
 * each attempted at its own due time, retries that fall inside the window included.
 */
export async function deliverDueForMerchant(
  db: Db,
  merchantId: string,
  until: Date,
): Promise<DeliveryResult[]> {
  const results: DeliveryResult[] = [];
  for (let guard = 0; guard < 10_000; guard++) {
    const realNow = systemClock.now();
    const [next] = await db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.merchantId, merchantId),
          eq(webhookDeliveries.state, 'pending'),
          lte(webhookDeliveries.nextAttemptAt, until),
          sql`(${webhookDeliveries.leaseUntil} IS NULL OR ${webhookDeliveries.leaseUntil} < ${realNow.toISOString()}::timestamptz)`,
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.id))
      .limit(1);
    if (!next) return results;
    const leased = await db
      .update(webhookDeliveries)
      .set({ leaseUntil: new Date(realNow.getTime() + LEASE_MS) })
      .where(
        and(
          eq(webhookDeliveries.id, next.id),
          sql`(${webhookDeliveries.leaseUntil} IS NULL OR ${webhookDeliveries.leaseUntil} < ${realNow.toISOString()}::timestamptz)`,
        ),
      )
      .returning({ id: webhookDeliveries.id });
    if (leased.length === 0) continue; // another worker took it
    results.push(await attemptDelivery(db, next, next.nextAttemptAt));
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
