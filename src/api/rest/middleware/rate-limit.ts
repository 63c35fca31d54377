import { createMiddleware } from 'hono/factory';
import { TokenBucket } from 'limiter';
import { SandbankError } from '../../../kernel/errors.ts';
import type { RestEnv } from '../../../rest/types.ts';

const MAX_BUCKETS = 10_000;

/**
 * Per-key token bucket (RATE_LIMIT_PER_SECOND; 0 disables). A bucket holds one second of tokens.
 * Over the limit: 429 rate_limited with Retry-After; every response carries RateLimit-* headers.
 */
export function rateLimit(perSecond: number) {
  const buckets = new Map<string, TokenBucket>();
  return createMiddleware<RestEnv>(async (c, next) => {
    if (perSecond <= 0) return next();
    const principal = c.get('principal');
    const id = `${principal.merchant.id}:${principal.keyKind}`;
    let bucket = buckets.get(id);
    if (!bucket) {
      if (buckets.size >= MAX_BUCKETS) buckets.clear();
      bucket = new TokenBucket({ bucketSize: perSecond, tokensPerInterval: perSecond, interval: 'second' });
      // limiter's buckets start empty; a key's first second must get its full burst, not a 429.
      bucket.content = perSecond;
      buckets.set(id, bucket);
    }
    const allowed = bucket.tryRemoveTokens(1);
    const remaining = Math.max(0, Math.floor(bucket.content));
    const resetSeconds = Math.max(1, Math.ceil((perSecond - bucket.content) / perSecond));
    c.header('RateLimit-Limit', String(perSecond));
    c.header('RateLimit-Remaining', String(remaining));
    c.header('RateLimit-Reset', String(resetSeconds));
    if (!allowed) {
      const retryAfter = Math.max(1, Math.ceil(bucket.getWaitTime(1) / 1000));
      c.header('Retry-After', String(retryAfter));
      throw new SandbankError('rate_limited');
    }
    await next();
  });
}
