/**
 * How the delivery code sends a claimed delivery: through a DeliverySender. The plain sender POSTs
 * each delivery once, as soon as it is claimed, through the process's WebhookTransport. A decorator
 * registered at start-up (webhook chaos: modules/reactions.ts) wraps it: it may hold a delivery back
 * before its first attempt, send it a second time, and label its attempts in the log. The delivery
 * code (webhooks.attempt.ts) only carries out the plans and records what was sent; it knows no
 * decorator.
 */
import type { Db } from '../../db/client.ts';
import type { WebhookTransport } from '../../kernel/webhook-transport.ts';
import type { Claimed } from './webhooks.lease.ts';
import type { SignedRequest } from './webhooks.signing.ts';

const RESPONSE_BODY_CAP = 2048;

/** One HTTP attempt as the attempt log keeps it. */
export interface AttemptOutcome {
  status: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

/** One delivery's message: where it goes, and its body signed at the instant it is sent. */
export interface OutgoingMessage {
  endpointId: string;
  url: string;
  /** Signs the body now: a second sending is signed afresh, as an at-least-once sender's would be. */
  signed(): SignedRequest;
}

/** What a sender will do with one claimed delivery, decided before any of its batch is sent. */
export interface DeliveryPlan {
  /**
   * Held back instead of attempted now: kept pending on its row with `note` until `until` (real
   * time); the note is the claimed delivery's `chaos` when it is claimed again.
   */
  hold?: { note: string; until: Date };
  /** The label of the attempt made now in the attempt log ("delayed 200ms", "reordered", …); null when none. */
  label: string | null;
  /** Sent a second time right after a 2xx answer, logged as an attempt of its own labelled "duplicate". */
  duplicate: boolean;
}

/** What was sent: the attempt, and the second sending a plan asked for after a 2xx. */
export interface Sent {
  outcome: AttemptOutcome;
  duplicate: AttemptOutcome | null;
}

export interface DeliverySender {
  /** The plans of claimed deliveries, in claim order (each drawn after the one before). */
  plan(db: Db, claimed: readonly Claimed[]): Promise<DeliveryPlan[]>;
  /** Sends one message as its plan says. */
  send(message: OutgoingMessage, plan: DeliveryPlan): Promise<Sent>;
}

export const PLAIN_PLAN: DeliveryPlan = Object.freeze({ label: null, duplicate: false });

export const isSuccess = (outcome: AttemptOutcome): boolean =>
  outcome.status !== null && outcome.status >= 200 && outcome.status < 300;

async function postOnce(transport: WebhookTransport, message: OutgoingMessage): Promise<AttemptOutcome> {
  const started = performance.now();
  try {
    const response = await transport.send(message.url, {
      ...message.signed(),
      ...transport.timeoutFor(message.endpointId),
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

/**
 * One HTTP POST: within the transport's limit for the endpoint (15 s, shorter while the endpoint's
 * attempts keep failing), redirects not followed, the response body read up to a cap.
 */
async function post(transport: WebhookTransport, message: OutgoingMessage): Promise<AttemptOutcome> {
  const outcome = await postOnce(transport, message);
  transport.noteAttempt(message.endpointId, isSuccess(outcome));
  return outcome;
}

/** The plain sender: every delivery attempted at once, once. */
function plainSender(transport: WebhookTransport): DeliverySender {
  return {
    plan: async (_db, claimed) => claimed.map(() => PLAIN_PLAN),
    send: async (message) => ({ outcome: await post(transport, message), duplicate: null }),
  };
}

type SenderDecorator = (inner: DeliverySender) => DeliverySender;
const decorators: SenderDecorator[] = [];

/** Registers a decorator of every delivery sender (once, at start-up: modules/reactions.ts). */
export function decorateDeliveries(decorator: SenderDecorator): void {
  if (!decorators.includes(decorator)) decorators.push(decorator);
}

/** The sender of deliveries through `transport`: the plain one, wrapped by the registered decorators. */
export function deliverySender(transport: WebhookTransport): DeliverySender {
  return decorators.reduce((inner, wrap) => wrap(inner), plainSender(transport));
}

/** An attempt the log recorded with a label, and the status its receiver answered. */
export interface LabelledAttempt {
  label: string;
  status: number | null;
}

type RecordedHook = (attempts: readonly LabelledAttempt[]) => void;
const recordedHooks: RecordedHook[] = [];

/** Registers what hears the labelled attempts once they are recorded (the chaos metrics). */
export function onLabelledAttemptsRecorded(hook: RecordedHook): void {
  if (!recordedHooks.includes(hook)) recordedHooks.push(hook);
}

export function labelledAttemptsRecorded(attempts: readonly LabelledAttempt[]): void {
  if (attempts.length === 0) return;
  for (const hook of recordedHooks) hook(attempts);
}

/** The kinds of webhook fault an attempt's label names, as the attempt log and /metrics name them. */
export const WEBHOOK_CHAOS_FAULTS = ['duplicate', 'delay', 'reorder'] as const;
export type WebhookChaosFault = (typeof WEBHOOK_CHAOS_FAULTS)[number];

/** The fault an attempt's chaos label names ("duplicate", "delayed 200ms", "reordered", "held back …"). */
export function faultOfLabel(label: string): WebhookChaosFault {
  if (label === 'duplicate') return 'duplicate';
  if (label.startsWith('delayed')) return 'delay';
  return 'reorder';
}
