import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { clientAddress } from '../../http/client-address.ts';
import { systemClock } from '../../kernel/clock.ts';
import { sendObject } from '../../rest/render.ts';
import { operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { signUpFieldCodes, signUpSchema } from './merchants.schema.ts';
import { refuseIdempotentRoll, rollKeys, signUp } from './merchants.service.ts';

/** The sandbox sign-up (what the dashboard's form and the CLI's fallback call): no key needed. */
export function registerMerchantRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    createRoute({
      method: 'post',
      path: '/merchants',
      tags: ['Merchants'],
      summary:
        'Sign up a new sandbox merchant; returns its keys once (at most SIGNUPS_PER_MINUTE per client address)',
      request: { body: { content: { 'application/json': { schema: signUpSchema } }, required: true } },
      responses: { 201: { description: 'The merchant and its keys' } },
    }),
    async (c) => {
      const deps = c.get('deps');
      const created = await signUp(deps.database.db, systemClock, c.req.valid('json'), {
        signups: deps.signups,
        address: clientAddress(c),
      });
      return sendObject(
        c,
        {
          id: created.merchant.id,
          object: 'merchant',
          name: created.merchant.name,
          secret_key: created.secretKey,
          public_key: created.publicKey,
        },
        201,
      );
    },
    validationHook(signUpFieldCodes),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/keys/roll',
      tags: ['Merchants'],
      summary:
        "Issue a new key pair and revoke the caller's keys at once; signs out every dashboard session of the merchant",
    }),
    async (c) => {
      refuseIdempotentRoll(c.req.header('idempotency-key'));
      const svc = serviceContext(c);
      const keys = await rollKeys(svc.db, systemClock, svc.merchant.id);
      return sendObject(c, { object: 'api_keys', secret_key: keys.secretKey, public_key: keys.publicKey });
    },
  );
}
