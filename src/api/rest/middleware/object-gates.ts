import { createMiddleware } from 'hono/factory';
import { gate } from '../../../kernel/object-taps.ts';
import type { RestEnv } from '../../../rest/types.ts';

/** `/v1/<kind>/<key>…`: a call on one object, named by its id or reference. */
const OBJECT_PATH = /^\/v1\/[a-z_]+\/([^/]+)/;

/**
 * A call on an object with a tap (kernel/object-taps.ts) passes its gate first — before its body's
 * Idempotency-Key opens a transaction, so a gate that waits holds no rows and no connection.
 */
export const objectGates = createMiddleware<RestEnv>(async (c, next) => {
  const match = OBJECT_PATH.exec(c.req.path);
  const principal = c.get('principal');
  if (match?.[1] && principal) {
    let key: string;
    try {
      key = decodeURIComponent(match[1]);
    } catch {
      key = match[1];
    }
    await gate(principal.merchant.id, key, c.req.method === 'GET' ? 'read' : 'write');
  }
  await next();
});
