import { createMiddleware } from 'hono/factory';
import { CHAOS_HEADER, CHAOS_INJECTED_HEADER, parseChaos } from '../../../modules/chaos/chaos.grammar.ts';
import { injectChaos } from '../../../modules/chaos/chaos.inject.ts';
import { merchantChaos } from '../../../modules/chaos/chaos.service.ts';
import { CHAOS_FREE_PATHS } from '../../../rest/routes.ts';
import type { RestEnv } from '../../../rest/types.ts';

/**
 * Injects the faults of the request's Sandbank-Chaos header, or else of its merchant's chaos
 * setting (docs/guide/chaos.md), before the operation runs: a faulted request reaches no handler and no
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
    const injected = await injectChaos(spec, merchantId);
    if (injected.injected.length > 0) {
      c.header(CHAOS_INJECTED_HEADER, injected.injected.join('; '));
      c.set('chaosFaults', injected.faults);
    }
    if (injected.retryAfter !== null) c.header('Retry-After', String(injected.retryAfter));
    if (injected.error) throw injected.error;
    await next();
  });
}
