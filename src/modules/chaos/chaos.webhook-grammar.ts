import { SandbankError } from '../../kernel/errors.ts';
import { duration, probability } from './chaos.grammar.ts';

/**
 * The webhook chaos grammar (docs/chaos.md), the merchant setting's `webhook_faults`: directives
 * `name=value` separated by `;`, names case-insensitive, each at most once.
 *
 *   duplicate=0.1        probability that a delivered event is sent a second time (same webhook-id)
 *   delay=0.2            probability that a delivery is held delay_for (default 5 s, ≤ 30 s) before it is sent
 *   reorder=0.2          probability that a delivery is held back until a later event of its endpoint
 *                        has been sent, at most reorder_max (default 5 s, ≤ 30 s)
 *   seed=42              0..4294967295: the same seed and delivery sequence give the same faults
 *   none                 no faults (alone)
 */

const MAX_LENGTH = 500;

export interface WebhookChaosSpec {
  duplicate?: number;
  delay?: number;
  delayMs: number;
  reorder?: number;
  reorderMaxMs: number;
  seed?: number;
}

export const NO_WEBHOOK_CHAOS: WebhookChaosSpec = { delayMs: 5_000, reorderMaxMs: 5_000 };

/** The kinds of webhook fault, as the attempt log and /metrics name them. */
export const WEBHOOK_CHAOS_FAULTS = ['duplicate', 'delay', 'reorder'] as const;
export type WebhookChaosFault = (typeof WEBHOOK_CHAOS_FAULTS)[number];

/** Reads a webhook chaos text; a malformed one is a 400 parameter_invalid naming `param`. */
export function parseWebhookChaos(text: string, param: string): WebhookChaosSpec {
  const fail: (message: string) => never = (message) => {
    throw new SandbankError('parameter_invalid', {
      param,
      message: `${param}: ${message} See docs/chaos.md.`,
    });
  };
  if (text.length > MAX_LENGTH) fail(`at most ${MAX_LENGTH} characters.`);
  const directives = text
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (directives.length === 0) fail('empty; send directives such as "duplicate=0.1; seed=42", or "none".');
  if (directives.length === 1 && directives[0]?.toLowerCase() === 'none') return { ...NO_WEBHOOK_CHAOS };
  const spec: WebhookChaosSpec = { ...NO_WEBHOOK_CHAOS };
  const seen = new Set<string>();
  for (const directive of directives) {
    const match = /^([A-Za-z_]+)\s*=\s*(\S+)$/.exec(directive);
    if (!match)
      fail(
        `"${directive}" is not name=value${directive.toLowerCase() === 'none' ? ' ("none" stands alone)' : ''}.`,
      );
    const name = (match[1] ?? '').toLowerCase();
    const value = match[2] ?? '';
    if (seen.has(name)) fail(`${name} is given twice.`);
    seen.add(name);
    switch (name) {
      case 'duplicate':
        spec.duplicate = probability(value, name, fail);
        break;
      case 'delay':
        spec.delay = probability(value, name, fail);
        break;
      case 'reorder':
        spec.reorder = probability(value, name, fail);
        break;
      case 'delay_for':
        spec.delayMs = duration(value, name, fail);
        if (spec.delayMs < 1) fail('delay_for is at least 1ms.');
        break;
      case 'reorder_max':
        spec.reorderMaxMs = duration(value, name, fail);
        if (spec.reorderMaxMs < 1) fail('reorder_max is at least 1ms.');
        break;
      case 'seed':
        if (!/^\d{1,10}$/.test(value) || Number(value) > 0xffff_ffff)
          fail(`seed is a whole number from 0 to 4294967295, not "${value}".`);
        spec.seed = Number(value);
        break;
      default:
        fail(
          `unknown directive "${name}" (known: duplicate, delay, delay_for, reorder, reorder_max, seed, none).`,
        );
    }
  }
  for (const [qualifier, fault] of [
    ['delay_for', 'delay'],
    ['reorder_max', 'reorder'],
  ] as const) {
    if (seen.has(qualifier) && !seen.has(fault)) fail(`${qualifier} qualifies ${fault}, which is missing.`);
  }
  if ((spec.delay ?? 0) + (spec.reorder ?? 0) > 1 + 1e-9)
    fail('delay and reorder are exclusive: their probabilities add up to at most 1.');
  return spec;
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

/** The fault an attempt's chaos label names ("duplicate", "delayed 200ms", "reordered", "held back …"). */
export function faultOfLabel(label: string): WebhookChaosFault {
  if (label === 'duplicate') return 'duplicate';
  if (label.startsWith('delayed')) return 'delay';
  return 'reorder';
}
