import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { addSeconds, systemClock } from '../../kernel/clock.ts';
import { newId } from '../../kernel/ids.ts';
import { toWireJson } from '../../kernel/wire-json.ts';
import { seededDraws } from '../chaos/chaos.grammar.ts';
import { countWebhookChaos, merchantWebhookChaos, nextInSequence } from '../chaos/chaos.service.ts';
import {
  faultOfLabel,
  planWebhookChaos,
  readStoredPlan,
  storedPlan,
  type WebhookChaosPlan,
} from '../chaos/chaos.webhook-grammar.ts';
import { eventResource } from '../events/events.resource.ts';
import type { Claimed } from './webhooks.lease.ts';
import { type SignedRequest, signPayload } from './webhooks.signing.ts';
import { webhookEndpoints } from './webhooks.table.ts';
import { DEFAULT_DELIVERY_LIMITS, type WebhookTransport } from './webhooks.transport.ts';

/** Retries after the first attempt, in seconds of the merchant's clock (Standard Webhooks guidance). */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;
/** Up to 10% later than the schedule, never earlier. */
const JITTER = 0.1;
/** An attempt's limit by default (WEBHOOK_TIMEOUT_MS; shorter for an endpoint on a failure streak). */
export const ATTEMPT_TIMEOUT_MS = DEFAULT_DELIVERY_LIMITS.timeoutMs;
const RESPONSE_BODY_CAP = 2048;
/** An endpoint whose deliveries failed this long (clock time) is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;

interface AttemptOutcome {
  status: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

/**
 * One HTTP POST: within the transport's limit for the endpoint (15 s, shorter while the endpoint's
 * attempts keep failing), redirects not followed, the response body read up to a cap.
 */
async function post(
  transport: WebhookTransport,
  endpointId: string,
  url: string,
  request: SignedRequest,
): Promise<AttemptOutcome> {
  const outcome = await postOnce(transport, endpointId, url, request);
  transport.noteAttempt(endpointId, outcome.status !== null && outcome.status >= 200 && outcome.status < 300);
  return outcome;
}

async function postOnce(
  transport: WebhookTransport,
  endpointId: string,
  url: string,
  request: SignedRequest,
): Promise<AttemptOutcome> {
  const started = performance.now();
  try {
    const response = await transport.send(url, {
      ...request,
      ...transport.timeoutFor(endpointId),
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

/** What webhook chaos does to one claimed delivery now (docs/chaos.md). */
export interface ChaosNow {
  /** Held back instead of attempted: the plan to keep on the row and until when (real time). */
  hold?: { plan: string; until: Date };
  /** The label of the attempt made now ("delayed 200ms", "reordered", …); null when none. */
  label: string | null;
  /** Send the event a second time after a 2xx. */
  duplicate: boolean;
}

/**
 * Webhook chaos for a claimed delivery: a released hold carries out the plan drawn before it; a
 * first attempt draws a plan from the merchant's webhook chaos (in claim order, so a seed replays);
 * a retry, or a delivery that cannot be sent, gets none.
 */
async function chaosFor(db: Db, claimed: Claimed): Promise<ChaosNow> {
  if (claimed.chaos !== null) {
    const plan = readStoredPlan(claimed.chaos);
    const label =
      plan.hold === 'delay'
        ? `delayed ${plan.ms}ms`
        : claimed.passed
          ? 'reordered'
          : `held back ${plan.ms}ms (no later event passed it)`;
    return { label, duplicate: plan.duplicate };
  }
  if (claimed.attempts > 0 || !claimed.endpoint?.enabled || !claimed.event)
    return { label: null, duplicate: false };
  const spec = await merchantWebhookChaos(db, claimed.merchantId);
  if (!spec) return { label: null, duplicate: false };
  const draw =
    spec.seed === undefined
      ? Math.random
      : seededDraws(spec.seed, nextInSequence(claimed.merchantId, spec.seed, 'webhook'));
  const plan: WebhookChaosPlan = planWebhookChaos(spec, draw);
  if (plan.hold)
    return {
      hold: { plan: storedPlan(plan), until: new Date(systemClock.now().getTime() + plan.hold.ms) },
      label: null,
      duplicate: plan.duplicate,
    };
  return { label: null, duplicate: plan.duplicate };
}

/** Sends one delivery; null when there is nothing to send (endpoint deleted or disabled since). */
async function send(
  transport: WebhookTransport,
  claimed: Claimed,
  duplicate: boolean,
): Promise<{ outcome: AttemptOutcome; duplicate: AttemptOutcome | null } | null> {
  const { endpoint, event, at } = claimed;
  if (!endpoint?.enabled || !event) return null;
  const body = toWireJson(eventResource(event));
  const headers = signPayload(event.id, body, secretsOf(endpoint, at), systemClock.now());
  const outcome = await post(transport, endpoint.id, endpoint.url, { body, headers });
  const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  if (!duplicate || !ok) return { outcome, duplicate: null };
  // The same message again (same webhook-id and body, as an at-least-once sender repeats it).
  const again = signPayload(event.id, body, secretsOf(endpoint, at), systemClock.now());
  return { outcome, duplicate: await post(transport, endpoint.id, endpoint.url, { body, headers: again }) };
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
 * What comes after an attempt: delivered on a 2xx; a 410 disables the endpoint at once; otherwise a
 * retry on the schedule, failed after the last one.
 */
function decide(
  claimed: Claimed,
  sent: { outcome: AttemptOutcome; duplicate: AttemptOutcome | null } | null,
  chaos: string | null,
  random: () => number,
): Decided {
  const outcome = sent?.outcome ?? null;
  const duplicate = sent?.duplicate ?? null;
  if (!outcome)
    return {
      claimed,
      outcome,
      ok: false,
      gone: false,
      state: 'failed',
      nextRetryAt: null,
      chaos: null,
      duplicate: null,
    };
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
    chaos,
    duplicate,
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
 * Holds deliveries back for webhook chaos: the plan and the real time until which it holds are
 * kept on the row (still pending, so nothing is lost if this process stops) and the lease is
 * given up. A delivery a redelivery started again in the meantime (attempts reset) is left alone.
 */
async function recordHolds(db: Db, holds: { claimed: Claimed; plan: string; until: Date }[]): Promise<void> {
  if (holds.length === 0) return;
  const rows = holds.map(
    ({ claimed, plan, until }) => sql`(${claimed.id}::text, ${plan}::text, ${iso(until)}::timestamptz)`,
  );
  await db.execute(sql`UPDATE webhook_deliveries d
    SET chaos = v.chaos, held_until = v.held_until, lease_until = NULL
    FROM (VALUES ${sql.join(rows, sql`, `)}) AS v(id, chaos, held_until)
    WHERE d.id = v.id AND d.state = 'pending'`);
}

/** A claimed delivery with the webhook chaos drawn for it. */
export interface Planned {
  claimed: Claimed;
  chaos: ChaosNow;
}

/**
 * Draws webhook chaos for claimed deliveries, one after the other in claim order (a seed's sequence
 * follows the order in which deliveries are taken, whatever order their attempts then end in).
 */
export async function planAttempts(db: Db, claimed: Claimed[]): Promise<Planned[]> {
  // The merchants' webhook chaos settings load together (cached); the draws then go in claim order.
  await Promise.all([...new Set(claimed.map((c) => c.merchantId))].map((id) => merchantWebhookChaos(db, id)));
  const planned: Planned[] = [];
  for (const c of claimed) planned.push({ claimed: c, chaos: await chaosFor(db, c) });
  return planned;
}

/** Writes the holds among planned deliveries; returns the others, to be attempted now. */
export async function holdBack(db: Db, planned: Planned[]): Promise<Planned[]> {
  const holds: { claimed: Claimed; plan: string; until: Date }[] = [];
  const now: Planned[] = [];
  for (const p of planned) {
    if (p.chaos.hold) holds.push({ claimed: p.claimed, ...p.chaos.hold });
    else now.push(p);
  }
  await recordHolds(db, holds);
  return now;
}

/** Attempts one planned delivery (not held back) and decides what comes next; records nothing. */
export async function attemptOne(
  transport: WebhookTransport,
  planned: Planned,
  random: () => number = Math.random,
): Promise<Decided> {
  const sent = await send(transport, planned.claimed, planned.chaos.duplicate);
  return decide(planned.claimed, sent, planned.chaos.label, random);
}

/** Records decided attempts in one statement (and their endpoints' health), then counts chaos. */
export async function recordAttempts(db: Db, decided: Decided[]): Promise<DeliveryResult[]> {
  await recordOutcomes(db, decided);
  for (const d of decided) {
    if (d.chaos && d.outcome) countWebhookChaos(faultOfLabel(d.chaos), d.outcome.status);
    if (d.duplicate) countWebhookChaos('duplicate', d.duplicate.status);
  }
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

/**
 * Sends claimed deliveries in parallel and records every outcome together. Webhook chaos holds
 * some back (they are not attempted now, and are not in the results) and sends some twice.
 */
export async function attemptAll(
  db: Db,
  transport: WebhookTransport,
  claimed: Claimed[],
  random: () => number = Math.random,
) {
  const now = await holdBack(db, await planAttempts(db, claimed));
  const decided = await Promise.all(now.map((p) => attemptOne(transport, p, random)));
  return recordAttempts(db, decided);
}

function secretsOf(endpoint: NonNullable<Claimed['endpoint']>, at: Date): string[] {
  const previousValid =
    endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > at;
  return previousValid && endpoint.previousSecret
    ? [endpoint.secret, endpoint.previousSecret]
    : [endpoint.secret];
}
