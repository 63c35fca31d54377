import { createMiddleware } from 'hono/factory';
import { SandbankError } from '../../kernel/errors.ts';
import {
  CHAOS_HEADER,
  CHAOS_INJECTED_HEADER,
  type ChaosFault,
  parseChaos,
  planChaos,
  seededDraws,
} from '../../modules/chaos/chaos.grammar.ts';
import { merchantChaos, nextInSequence } from '../../modules/chaos/chaos.service.ts';
import { CHAOS_FREE_PATHS } from '../routes.ts';
import type { RestEnv } from '../types.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Injects the faults of the request's Sandbank-Chaos header, or else of its merchant's chaos
 * setting (docs/chaos.md), before the operation runs: a faulted request reaches no handler and no
 * idempotency record, so its retry runs as if it were the first. Runs after authentication and the
 * rate limit; keyless routes and the chaos setting itself never get here or are passed over.
 */
export function chaos() {
  return createMiddleware<RestEnv>(async (c, next) => {
    if (CHAOS_FREE_PATHS.has(c.req.path.replace(/^\/v1/, ''))) return next();
    const header = c.req.header(CHAOS_HEADER);
    const merchantId = c.get('principal').merchant.id;
    const spec =
      header !== undefined
        ? parseChaos(header, CHAOS_HEADER)
        : await merchantChaos(c.get('deps').database.db, merchantId);
    if (!spec) return next();
    const draw =
      spec.seed === undefined ? Math.random : seededDraws(spec.seed, nextInSequence(merchantId, spec.seed));
    const plan = planChaos(spec, draw);
    const injected: string[] = [];
    const faults: ChaosFault[] = [];
    const record = () => {
      if (injected.length > 0) {
        c.header(CHAOS_INJECTED_HEADER, injected.join('; '));
        c.set('chaosFaults', faults);
      }
    };
    if (plan.latencyMs > 0) {
      await sleep(plan.latencyMs);
      injected.push(`latency=${plan.latencyMs}ms`);
      faults.push('latency');
    }
    if (plan.fault === 'timeout') {
      await sleep(spec.timeoutMs);
      injected.push(`timeout=504; held=${spec.timeoutMs}ms`);
      faults.push('timeout');
      record();
      throw new SandbankError('chaos_injected', {
        status: 504,
        message: `Simulated timeout (${CHAOS_HEADER}): the request was held ${spec.timeoutMs}ms, then answered 504; nothing was done. Retry the request.`,
      });
    }
    if (plan.fault === 'error') {
      injected.push(`error=${spec.status}`);
      faults.push('error');
      record();
      throw new SandbankError('chaos_injected', {
        status: spec.status,
        message: `Simulated ${spec.status} error (${CHAOS_HEADER}); nothing was done. Retry the request.`,
      });
    }
    if (plan.fault === 'rate_limit') {
      injected.push(`rate_limit=429; retry_after=${spec.retryAfter}`);
      faults.push('rate_limit');
      record();
      c.header('Retry-After', String(spec.retryAfter));
      throw new SandbankError('chaos_injected', {
        status: 429,
        message: `Simulated rate limit (${CHAOS_HEADER}); nothing was done. Retry after ${spec.retryAfter}s (Retry-After).`,
      });
    }
    record();
    await next();
  });
}
