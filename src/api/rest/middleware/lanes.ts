import { createMiddleware } from 'hono/factory';
import { SandbankError } from '../../../kernel/errors.ts';
import { LaneFull, Lanes } from '../../../kernel/lanes.ts';
import { isHeavy } from '../../../rest/routes.ts';
import type { RestEnv } from '../../../rest/types.ts';

/** Heavy operations of one merchant that run at once; the others wait their turn. */
export const HEAVY_PER_MERCHANT = 2;
/** Heavy operations of one merchant that may wait; one more is answered 429 at once. */
export const HEAVY_WAITING_PER_MERCHANT = 64;

/**
 * The merchant's lane for operations declared `heavy` (clock advances, fixtures, trigger recipes,
 * resets): at most HEAVY_PER_MERCHANT run at once, the rest wait in arrival order, so a merchant
 * that sends many of them waits behind itself and never fills the database's queue ahead of
 * other merchants' requests. Past HEAVY_WAITING_PER_MERCHANT waiting: 429 rate_limited.
 */
export function heavyLanes(lanes = new Lanes(HEAVY_PER_MERCHANT, HEAVY_WAITING_PER_MERCHANT)) {
  return createMiddleware<RestEnv>(async (c, next) => {
    if (!isHeavy(c.req.method, c.req.path)) return next();
    try {
      await lanes.run(c.get('principal').merchant.id, () => next());
    } catch (error) {
      if (!(error instanceof LaneFull)) throw error;
      c.header('Retry-After', '1');
      throw new SandbankError('rate_limited', {
        message: `This merchant already has ${HEAVY_PER_MERCHANT} heavy operations running and ${HEAVY_WAITING_PER_MERCHANT} waiting; retry after the time in Retry-After.`,
      });
    }
  });
}
