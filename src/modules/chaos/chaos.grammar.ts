import { SandbankError } from '../../kernel/errors.ts';

/**
 * The chaos grammar, shared by the `Sandbank-Chaos` request header and the merchant's stored setting
 * (docs/guide/chaos.md): directives `name=value` separated by `;`, names case-insensitive, each at most once.
 *
 *   latency=200ms | latency=1.5s | latency=100ms-2s   delay before the operation (≤ 30 s)
 *   error=0.3            probability of an error answer; status=500|502|503|504 (default 503)
 *   rate_limit=0.1       probability of a 429; retry_after=1..60 seconds (default 1)
 *   timeout=0.05         probability of a timeout: held timeout_after (default 10 s, ≤ 30 s), then 504
 *   seed=42              0..4294967295: the same seed and request sequence give the same faults
 *   none                 no faults (alone): a request opts out of its merchant's setting
 */

export const CHAOS_HEADER = 'Sandbank-Chaos';
export const CHAOS_INJECTED_HEADER = 'Sandbank-Chaos-Injected';
/** The longest latency or timeout hold, in milliseconds. */
export const MAX_CHAOS_MS = 30_000;
export const CHAOS_ERROR_STATUSES = [500, 502, 503, 504] as const;
export type ChaosErrorStatus = (typeof CHAOS_ERROR_STATUSES)[number];
const MAX_LENGTH = 500;

export interface ChaosSpec {
  /** The delay's range in ms (min = max for a fixed delay). */
  latency?: { min: number; max: number };
  error?: number;
  status: ChaosErrorStatus;
  rateLimit?: number;
  retryAfter: number;
  timeout?: number;
  timeoutMs: number;
  seed?: number;
}

/** The spec that injects nothing (`none`). */
export const NO_CHAOS: ChaosSpec = { status: 503, retryAfter: 1, timeoutMs: 10_000 };

export function duration(value: string, name: string, fail: (message: string) => never): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(value);
  if (!match) fail(`${name} must be a duration such as 200ms or 1.5s, not "${value}".`);
  const ms = Math.round(Number(match[1]) * (match[2] === 's' ? 1000 : 1));
  if (ms > MAX_CHAOS_MS) fail(`${name} is at most 30s (got ${value}).`);
  return ms;
}

export function probability(value: string, name: string, fail: (message: string) => never): number {
  if (!/^(?:0|1|0?\.\d+|[01]\.\d+)$/.test(value))
    fail(`${name} must be a probability from 0 to 1, not "${value}".`);
  const p = Number(value);
  if (p < 0 || p > 1) fail(`${name} must be a probability from 0 to 1, not "${value}".`);
  return p;
}

type Fail = (message: string) => never;

/** One grammar's directives: each reads its value into the spec, or fails with what is wrong. */
export interface DirectiveGrammar<S> {
  /** The spec that injects nothing; every parse starts from a copy of it. */
  none: S;
  /** Directives in the order the unknown-directive message lists them (then "none"). */
  directives: Record<string, (value: string, spec: S, fail: Fail) => void>;
  /** What the message about an empty text suggests sending. */
  example: string;
  /** Pairs [qualifier, fault]: a qualifier is only given with its fault. */
  qualifiers: readonly (readonly [string, string])[];
  /** Checks across directives once all are read (the faults' probabilities). */
  check: (spec: S, fail: Fail) => void;
}

/**
 * Reads a text of directives `name=value` separated by `;` (names case-insensitive, each at most
 * once, or `none` alone) with a grammar; a malformed one is a 400 parameter_invalid naming `param`
 * and what is wrong.
 */
export function parseDirectives<S extends object>(
  text: string,
  param: string,
  grammar: DirectiveGrammar<S>,
): S {
  const fail: Fail = (message) => {
    throw new SandbankError('parameter_invalid', {
      param,
      message: `${param}: ${message} See docs/guide/chaos.md.`,
    });
  };
  if (text.length > MAX_LENGTH) fail(`at most ${MAX_LENGTH} characters.`);
  const directives = text
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (directives.length === 0) fail(`empty; send directives such as "${grammar.example}", or "none".`);
  if (directives.length === 1 && directives[0]?.toLowerCase() === 'none') return { ...grammar.none };
  const spec: S = { ...grammar.none };
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
    const read = Object.hasOwn(grammar.directives, name) ? grammar.directives[name] : undefined;
    if (!read)
      fail(
        `unknown directive "${name}" (known: ${[...Object.keys(grammar.directives), 'none'].join(', ')}).`,
      );
    read(value, spec, fail);
  }
  for (const [qualifier, fault] of grammar.qualifiers) {
    if (seen.has(qualifier) && !seen.has(fault)) fail(`${qualifier} qualifies ${fault}, which is missing.`);
  }
  grammar.check(spec, fail);
  return spec;
}

/** The `seed` directive of both grammars: 0..4294967295. */
export function parseSeed(value: string, fail: Fail): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) > 0xffff_ffff)
    fail(`seed is a whole number from 0 to 4294967295, not "${value}".`);
  return Number(value);
}

const CHAOS_GRAMMAR: DirectiveGrammar<ChaosSpec> = {
  none: NO_CHAOS,
  example: 'error=0.3; status=503',
  directives: {
    latency: (value, spec, fail: Fail) => {
      const [low, high, ...rest] = value.split('-');
      if (low === undefined || rest.length > 0)
        fail(`latency must be 200ms or a range 100ms-2s, not "${value}".`);
      const min = duration(low, 'latency', fail);
      const max = high === undefined ? min : duration(high, 'latency', fail);
      if (max < min) fail(`latency's range goes from low to high, not "${value}".`);
      spec.latency = { min, max };
    },
    error: (value, spec, fail) => {
      spec.error = probability(value, 'error', fail);
    },
    status: (value, spec, fail) => {
      const status = Number(value) as ChaosErrorStatus;
      if (!CHAOS_ERROR_STATUSES.includes(status) || String(status) !== value)
        fail(`status is one of ${CHAOS_ERROR_STATUSES.join(', ')}, not "${value}".`);
      spec.status = status;
    },
    rate_limit: (value, spec, fail) => {
      spec.rateLimit = probability(value, 'rate_limit', fail);
    },
    retry_after: (value, spec, fail) => {
      const seconds = Number(value);
      if (!/^\d+$/.test(value) || seconds < 1 || seconds > 60)
        fail(`retry_after is a whole number of seconds from 1 to 60, not "${value}".`);
      spec.retryAfter = seconds;
    },
    timeout: (value, spec, fail) => {
      spec.timeout = probability(value, 'timeout', fail);
    },
    timeout_after: (value, spec, fail) => {
      spec.timeoutMs = duration(value, 'timeout_after', fail);
    },
    seed: (value, spec, fail) => {
      spec.seed = parseSeed(value, fail);
    },
  },
  qualifiers: [
    ['status', 'error'],
    ['retry_after', 'rate_limit'],
    ['timeout_after', 'timeout'],
  ],
  check: (spec, fail) => {
    const total = (spec.error ?? 0) + (spec.rateLimit ?? 0) + (spec.timeout ?? 0);
    if (total > 1 + 1e-9)
      fail('error, rate_limit and timeout are exclusive: their probabilities add up to at most 1.');
  },
};

/**
 * Reads a chaos text; a malformed one is a 400 parameter_invalid naming `param` (the header, or the
 * setting's `faults` field) and what is wrong.
 */
export function parseChaos(text: string, param: string): ChaosSpec {
  return parseDirectives(text, param, CHAOS_GRAMMAR);
}

const ms = (value: number) => `${value}ms`;

/** The canonical text of a spec (what GET /v1/simulate/chaos shows); "none" when it injects nothing. */
export function formatChaos(spec: ChaosSpec): string {
  const parts: string[] = [];
  if (spec.latency)
    parts.push(
      `latency=${spec.latency.min === spec.latency.max ? ms(spec.latency.min) : `${ms(spec.latency.min)}-${ms(spec.latency.max)}`}`,
    );
  if (spec.error !== undefined) parts.push(`error=${spec.error}`, `status=${spec.status}`);
  if (spec.rateLimit !== undefined)
    parts.push(`rate_limit=${spec.rateLimit}`, `retry_after=${spec.retryAfter}`);
  if (spec.timeout !== undefined)
    parts.push(`timeout=${spec.timeout}`, `timeout_after=${ms(spec.timeoutMs)}`);
  if (spec.seed !== undefined) parts.push(`seed=${spec.seed}`);
  return parts.length === 0 ? 'none' : parts.join('; ');
}

/** The kinds of fault, as /metrics counts them. */
export type ChaosFault = 'latency' | 'error' | 'rate_limit' | 'timeout';

/** What one request gets: a delay, then at most one fault. */
export interface ChaosPlan {
  latencyMs: number;
  fault: 'error' | 'rate_limit' | 'timeout' | undefined;
}

/**
 * Mulberry32 (a small 32-bit PRNG) started from the seed mixed with the request's position `n` in
 * its sequence: draw k of request n depends only on (seed, n, k).
 */
export function seededDraws(seed: number, n: number): () => number {
  let state = (seed ^ Math.imul(n + 1, 0x9e37_79b9)) >>> 0;
  return () => {
    state = (state + 0x6d2b_79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The plan of one request from two draws, always taken in this order: the fault (one draw over
 * [timeout | error | rate_limit | nothing]), then the latency within its range.
 */
export function planChaos(spec: ChaosSpec, draw: () => number): ChaosPlan {
  const u = draw();
  const v = draw();
  const timeout = spec.timeout ?? 0;
  const error = spec.error ?? 0;
  const rateLimit = spec.rateLimit ?? 0;
  let fault: ChaosPlan['fault'];
  if (u < timeout) fault = 'timeout';
  else if (u < timeout + error) fault = 'error';
  else if (u < timeout + error + rateLimit) fault = 'rate_limit';
  const latencyMs = spec.latency
    ? spec.latency.min + Math.floor(v * (spec.latency.max - spec.latency.min + 1))
    : 0;
  return { latencyMs: Math.min(latencyMs, spec.latency?.max ?? 0), fault };
}
