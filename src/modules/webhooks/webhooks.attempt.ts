import type { Db } from '../../db/client.ts';
import { addSeconds, systemClock } from '../../kernel/clock.ts';
import { DEFAULT_DELIVERY_LIMITS, type WebhookTransport } from '../../kernel/webhook-transport.ts';
import { toWireJson } from '../../kernel/wire-json.ts';
import { readyDialectDeliveries } from './webhooks.dialect.ts';
import type { Claimed } from './webhooks.lease.ts';
import { eventResource } from './webhooks.payloads.ts';
import { type Decided, recordAttempts, recordHolds } from './webhooks.record.ts';
import {
  type DeliveryPlan,
  type DeliverySender,
  deliverySender,
  isSuccess,
  type OutgoingMessage,
  type Sent,
} from './webhooks.sending.ts';
import { signPayload, signStripePayload } from './webhooks.signing.ts';

export { DISABLE_AFTER_FAILING_MS } from './webhooks.record.ts';

/** Retries after the first attempt, in seconds of the merchant's clock (Standard Webhooks guidance). */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;
/** Up to 10% later than the schedule, never earlier. */
const JITTER = 0.1;
/** An attempt's limit by default (WEBHOOK_TIMEOUT_MS; shorter for an endpoint on a failure streak). */
export const ATTEMPT_TIMEOUT_MS = DEFAULT_DELIVERY_LIMITS.timeoutMs;

function retryDelaySeconds(attempt: number, random: () => number): number | null {
  const base = RETRY_SCHEDULE_SECONDS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + JITTER * random()));
}

/**
 * The delivery's message, signed when it is sent; null when there is nothing to send (endpoint
 * deleted or disabled since). An endpoint of the Stripe dialect is sent the dialect's event as it
 * rendered it, signed Stripe's way (webhooks.dialect.ts).
 */
function messageOf(claimed: Claimed): OutgoingMessage | null {
  const { endpoint, event, at } = claimed;
  if (!endpoint?.enabled || !event) return null;
  const stripe = endpoint.format === 'stripe';
  const body = stripe ? event.dataJson : toWireJson(eventResource(event));
  return {
    endpointId: endpoint.id,
    url: endpoint.url,
    signed: () => {
      const secrets = secretsOf(endpoint, at);
      const now = systemClock.now();
      return {
        body,
        headers: stripe ? signStripePayload(body, secrets, now) : signPayload(event.id, body, secrets, now),
      };
    },
  };
}

/**
 * What comes after an attempt: delivered on a 2xx; a 410 disables the endpoint at once; otherwise a
 * retry on the schedule, failed after the last one.
 */
function decide(claimed: Claimed, sent: Sent | null, chaos: string | null, random: () => number): Decided {
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
  const ok = isSuccess(outcome);
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

/** A claimed delivery with what its sender plans for it. */
export interface Planned {
  claimed: Claimed;
  plan: DeliveryPlan;
}

/**
 * Plans claimed deliveries, one after the other in claim order (a seed's sequence of webhook chaos
 * follows the order in which deliveries are taken, whatever order their attempts then end in).
 */
export async function planAttempts(db: Db, sender: DeliverySender, claimed: Claimed[]): Promise<Planned[]> {
  const plans = await sender.plan(db, claimed);
  return claimed.map((c, i) => ({ claimed: c, plan: plans[i] as DeliveryPlan }));
}

/** Writes the holds among planned deliveries; returns the others, to be attempted now. */
export async function holdBack(db: Db, planned: Planned[]): Promise<Planned[]> {
  const holds: { claimed: Claimed; note: string; until: Date }[] = [];
  const now: Planned[] = [];
  for (const p of planned) {
    if (p.plan.hold) holds.push({ claimed: p.claimed, ...p.plan.hold });
    else now.push(p);
  }
  await recordHolds(db, holds);
  return now;
}

/** Attempts one planned delivery (not held back) and decides what comes next; records nothing. */
export async function attemptOne(
  sender: DeliverySender,
  planned: Planned,
  random: () => number = Math.random,
): Promise<Decided> {
  const message = messageOf(planned.claimed);
  const sent = message ? await sender.send(message, planned.plan) : null;
  return decide(planned.claimed, sent, planned.plan.label, random);
}

/**
 * Sends claimed deliveries in parallel and records every outcome together. Their sender may hold
 * some back (they are not attempted now, and are not in the results) and send some twice.
 */
export async function attemptAll(
  db: Db,
  transport: WebhookTransport,
  claimed: Claimed[],
  random: () => number = Math.random,
) {
  const sender = deliverySender(transport);
  const ready = await readyDialectDeliveries(db, claimed);
  const now = await holdBack(db, await planAttempts(db, sender, ready));
  const decided = await Promise.all(now.map((p) => attemptOne(sender, p, random)));
  return recordAttempts(db, decided);
}

function secretsOf(endpoint: NonNullable<Claimed['endpoint']>, at: Date): string[] {
  const previousValid =
    endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > at;
  return previousValid && endpoint.previousSecret
    ? [endpoint.secret, endpoint.previousSecret]
    : [endpoint.secret];
}
