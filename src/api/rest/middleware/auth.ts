import { createMiddleware } from 'hono/factory';
import { fixtureStepPrincipal } from '../../../modules/fixtures/fixtures.service.ts';
import { authenticate, requireSecretKey } from '../../../modules/merchants/authentication.ts';
import type { RestEnv } from '../../../rest/types.ts';

/**
 * Authenticates the Bearer key; every /v1 operation but tokenization needs the secret key. A
 * fixture's step (called in-process, modules/fixtures) runs as the merchant that applied it.
 */
export function requireKey(options: { publicKeyAllowed: (method: string, path: string) => boolean }) {
  return createMiddleware<RestEnv>(async (c, next) => {
    const principal =
      fixtureStepPrincipal(c.env) ??
      (await authenticate(c.get('deps').database.db, c.req.header('authorization')));
    // Set before the secret-key check: a public key refused here is still its merchant's request (the request log).
    c.set('principal', principal);
    if (!options.publicKeyAllowed(c.req.method, c.req.path)) requireSecretKey(principal);
    c.set('clock', await c.get('deps').clockFor(principal.merchant.id));
    await next();
  });
}
