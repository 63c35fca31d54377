import { SandbankError } from '../../kernel/errors.ts';
import { CHAOS_HEADER, type ChaosFault, type ChaosSpec, planChaos, seededDraws } from './chaos.grammar.ts';
import { nextInSequence } from './chaos.service.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What chaos did to one API request (REST or GraphQL), before its operation runs. */
export interface InjectedChaos {
  /** The parts of the Sandbank-Chaos-Injected header ("latency=200ms", "error=503"…); empty when none. */
  injected: string[];
  /** The faults, as /metrics counts them. */
  faults: ChaosFault[];
  /** The Retry-After of a simulated rate limit. */
  retryAfter: number | null;
  /** The error to answer instead of running the operation; null when it runs (after any latency). */
  error: SandbankError | null;
}

/**
 * Draws one request's faults from `spec` (the next position of its seed's sequence for the
 * merchant, shared by REST and GraphQL) and waits out its latency or timeout hold; the caller
 * answers `error` when there is one and otherwise runs the operation.
 */
export async function injectChaos(spec: ChaosSpec, merchantId: string): Promise<InjectedChaos> {
  const draw =
    spec.seed === undefined ? Math.random : seededDraws(spec.seed, nextInSequence(merchantId, spec.seed));
  const plan = planChaos(spec, draw);
  const result: InjectedChaos = { injected: [], faults: [], retryAfter: null, error: null };
  if (plan.latencyMs > 0) {
    await sleep(plan.latencyMs);
    result.injected.push(`latency=${plan.latencyMs}ms`);
    result.faults.push('latency');
  }
  if (plan.fault === 'timeout') {
    await sleep(spec.timeoutMs);
    result.injected.push(`timeout=504; held=${spec.timeoutMs}ms`);
    result.faults.push('timeout');
    result.error = new SandbankError('chaos_injected', {
      status: 504,
      message: `Simulated timeout (${CHAOS_HEADER}): the request was held ${spec.timeoutMs}ms, then answered 504; nothing was done. Retry the request.`,
    });
  } else if (plan.fault === 'error') {
    result.injected.push(`error=${spec.status}`);
    result.faults.push('error');
    result.error = new SandbankError('chaos_injected', {
      status: spec.status,
      message: `Simulated ${spec.status} error (${CHAOS_HEADER}); nothing was done. Retry the request.`,
    });
  } else if (plan.fault === 'rate_limit') {
    result.injected.push(`rate_limit=429; retry_after=${spec.retryAfter}`);
    result.faults.push('rate_limit');
    result.retryAfter = spec.retryAfter;
    result.error = new SandbankError('chaos_injected', {
      status: 429,
      message: `Simulated rate limit (${CHAOS_HEADER}); nothing was done. Retry after ${spec.retryAfter}s (Retry-After).`,
    });
  }
  return result;
}
