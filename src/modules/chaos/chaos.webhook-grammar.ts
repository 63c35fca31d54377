import { type DirectiveGrammar, duration, parseDirectives, parseSeed, probability } from './chaos.grammar.ts';

/** The attempt log's fault kinds and labels are the webhooks module's (webhooks.sending.ts). */
export { faultOfLabel, WEBHOOK_CHAOS_FAULTS, type WebhookChaosFault } from '../webhooks/webhooks.sending.ts';

/**
 * The webhook chaos grammar (docs/guide/chaos.md), the merchant setting's `webhook_faults`: directives
 * `name=value` separated by `;`, names case-insensitive, each at most once.
 *
 *   duplicate=0.1        probability that a delivered event is sent a second time (same webhook-id)
 *   delay=0.2            probability that a delivery is held delay_for (default 5 s, ≤ 30 s) before it is sent
 *   reorder=0.2          probability that a delivery is held back until a later event of its endpoint
 *                        has been sent, at most reorder_max (default 5 s, ≤ 30 s)
 *   seed=42              0..4294967295: the same seed and delivery sequence give the same faults
 *   none                 no faults (alone)
 */

export interface WebhookChaosSpec {
  duplicate?: number;
  delay?: number;
  delayMs: number;
  reorder?: number;
  reorderMaxMs: number;
  seed?: number;
}

export const NO_WEBHOOK_CHAOS: WebhookChaosSpec = { delayMs: 5_000, reorderMaxMs: 5_000 };

const WEBHOOK_CHAOS_GRAMMAR: DirectiveGrammar<WebhookChaosSpec> = {
  none: NO_WEBHOOK_CHAOS,
  example: 'duplicate=0.1; seed=42',
  directives: {
    duplicate: (value, spec, fail) => {
      spec.duplicate = probability(value, 'duplicate', fail);
    },
    delay: (value, spec, fail) => {
      spec.delay = probability(value, 'delay', fail);
    },
    delay_for: (value, spec, fail) => {
      spec.delayMs = duration(value, 'delay_for', fail);
      if (spec.delayMs < 1) fail('delay_for is at least 1ms.');
    },
    reorder: (value, spec, fail) => {
      spec.reorder = probability(value, 'reorder', fail);
    },
    reorder_max: (value, spec, fail) => {
      spec.reorderMaxMs = duration(value, 'reorder_max', fail);
      if (spec.reorderMaxMs < 1) fail('reorder_max is at least 1ms.');
    },
    seed: (value, spec, fail) => {
      spec.seed = parseSeed(value, fail);
    },
  },
  qualifiers: [
    ['delay_for', 'delay'],
    ['reorder_max', 'reorder'],
  ],
  check: (spec, fail) => {
    if ((spec.delay ?? 0) + (spec.reorder ?? 0) > 1 + 1e-9)
      fail('delay and reorder are exclusive: their probabilities add up to at most 1.');
  },
};

/** Reads a webhook chaos text; a malformed one is a 400 parameter_invalid naming `param`. */
export function parseWebhookChaos(text: string, param: string): WebhookChaosSpec {
  return parseDirectives(text, param, WEBHOOK_CHAOS_GRAMMAR);
}

const ms = (value: number) => `${value}ms`;

/** The canonical text of a webhook chaos spec; "none" when it injects nothing. */
export function formatWebhookChaos(spec: WebhookChaosSpec): string {
  const parts: string[] = [];
  if (spec.duplicate !== undefined) parts.push(`duplicate=${spec.duplicate}`);
  if (spec.delay !== undefined) parts.push(`delay=${spec.delay}`, `delay_for=${ms(spec.delayMs)}`);
  if (spec.reorder !== undefined)
    parts.push(`reorder=${spec.reorder}`, `reorder_max=${ms(spec.reorderMaxMs)}`);
  if (spec.seed !== undefined) parts.push(`seed=${spec.seed}`);
  return parts.length === 0 ? 'none' : parts.join('; ');
}

/** What one delivery gets, drawn before its first attempt. */
export interface WebhookChaosPlan {
  /** Held before the first attempt: a delay of `ms`, or held back for a later event (at most `ms`). */
  hold: { kind: 'delay' | 'reorder'; ms: number } | undefined;
  /** Sent a second time right after a 2xx answer. */
  duplicate: boolean;
}

/**
 * The plan of one delivery from two draws, always in this order: the hold (one draw over
 * [delay | reorder | nothing]), then the duplicate.
 */
export function planWebhookChaos(spec: WebhookChaosSpec, draw: () => number): WebhookChaosPlan {
  const u = draw();
  const v = draw();
  const delay = spec.delay ?? 0;
  const reorder = spec.reorder ?? 0;
  let hold: WebhookChaosPlan['hold'];
  if (u < delay) hold = { kind: 'delay', ms: spec.delayMs };
  else if (u < delay + reorder) hold = { kind: 'reorder', ms: spec.reorderMaxMs };
  return { hold, duplicate: v < (spec.duplicate ?? 0) };
}

/**
 * A plan as the delivery row keeps it while held: "delay=200ms" or "reorder=5000ms", then
 * "; duplicate". Only plans with a hold are stored (the others are carried out at once).
 */
export function storedPlan(plan: WebhookChaosPlan): string {
  const hold = `${plan.hold?.kind ?? 'delay'}=${ms(plan.hold?.ms ?? 0)}`;
  return plan.duplicate ? `${hold}; duplicate` : hold;
}

/** A stored plan read back. */
export function readStoredPlan(text: string): { hold: 'delay' | 'reorder'; ms: number; duplicate: boolean } {
  const [hold = '', ...rest] = text.split(';').map((part) => part.trim());
  const match = /^(delay|reorder)=(\d+)ms$/.exec(hold);
  return {
    hold: match?.[1] === 'reorder' ? 'reorder' : 'delay',
    ms: Number(match?.[2] ?? 0),
    duplicate: rest.includes('duplicate'),
  };
}
