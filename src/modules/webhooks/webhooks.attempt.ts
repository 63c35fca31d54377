import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { addSeconds, systemClock } from '../../kernel/clock.ts';
import { newId } from '../../kernel/ids.ts';
import { toWireJson } from '../../kernel/wire-json.ts';
import { eventResource } from '../events/events.resource.ts';
import type { Claimed } from './webhooks.lease.ts';
import { type SignedRequest, signPayload } from './webhooks.signing.ts';
import { webhookEndpoints } from './webhooks.table.ts';
import type { WebhookTransport } from './webhooks.transport.ts';

/** Retries after the first attempt, in seconds of the merchant's clock (Standard Webhooks guidance). */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;
/** Up to 10% later than the schedule, never earlier. */
const JITTER = 0.1;
export const ATTEMPT_TIMEOUT_MS = 15_000;
const RESPONSE_BODY_CAP = 2048;
/** An endpoint whose deliveries failed this long (clock time) is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;

interface AttemptOutcome {
  status: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

/** One HTTP POST: 15 s limit, redirects not followed, the response body read up to a cap. */
async function post(
  transport: WebhookTransport,
  url: string,
  request: SignedRequest,
): Promise<AttemptOutcome> {
  const started = performance.now();
  try {
    const response = await transport.send(url, {
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

/** Sends one delivery; null when there is nothing to send (endpoint deleted or disabled since). */
async function send(transport: WebhookTransport, claimed: Claimed): Promise<AttemptOutcome | null> {
  const { endpoint, event, at } = claimed;
  if (!endpoint?.enabled || !event) return null;
  const body = toWireJson(eventResource(event));
  const headers = signPayload(event.id, body, secretsOf(endpoint, at), systemClock.now());
  return post(transport, endpoint.url, { body, headers });
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
      sql`(${newId('webhookAttempt')}::text, ${claimed.id}::text, ${claimed.merchantId}::text, ${iso(claimed.at)}::timestamptz,
        ${outcome!.status}::int, ${outcome!.durationMs}::int, ${outcome!.responseBody}::text, ${outcome!.error}::text,
        ${iso(nextRetryAt)}::timestamptz)`,
  );
  const deliveryRows = decided.map(
    ({ claimed, outcome, state, nextRetryAt }) =>
      sql`(${claimed.id}::text, ${state}::text, ${claimed.attempts + (outcome ? 1 : 0)}::int,
        ${outcome?.status ?? null}::int, ${iso(nextRetryAt ?? claimed.nextAttemptAt)}::timestamptz,
        ${iso(claimed.at)}::timestamptz)`,
  );
  // The log lines are written only for the deliveries the UPDATE found: a delivery deleted while
  // its attempt was in flight (a merchant's reset) leaves no attempt behind.
  const logAttempts =
    attemptRows.length > 0
      ? sql`, logged AS (
          INSERT INTO webhook_attempts (id, delivery_id, merchant_id, attempted_at, status, duration_ms, response_body, error, next_retry_at)
          SELECT a.* FROM (VALUES ${sql.join(attemptRows, sql`, `)})
            AS a(id, delivery_id, merchant_id, attempted_at, status, duration_ms, response_body, error, next_retry_at)
          WHERE a.delivery_id IN (SELECT id FROM updated)
        )`
      : sql``;
  const statement = sql`WITH updated AS (UPDATE webhook_deliveries d
    SET state = v.state, attempts = v.attempts, last_status = v.last_status,
      next_attempt_at = v.next_attempt_at, lease_until = NULL, updated_at = v.updated_at
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

/** Sends claimed deliveries in parallel and records every outcome together. */
export async function attemptAll(
  db: Db,
  transport: WebhookTransport,
  claimed: Claimed[],
  random: () => number = Math.random,
) {
  const outcomes = await Promise.all(claimed.map((c) => send(transport, c)));
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
