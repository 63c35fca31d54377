import type { OpenAPIHono } from '@hono/zod-openapi';
import { clientAddress } from '../../http/client-address.ts';
import { systemClock } from '../../kernel/clock.ts';
import { sendObject } from '../../rest/render.ts';
import { jsonRequestBody, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import {
  ApiKeysWire,
  apiKeysResource,
  MerchantWithKeysWire,
  merchantWithKeysResource,
} from './merchants.resource.ts';
import { signUpFieldCodes, signUpSchema } from './merchants.schema.ts';
import { refuseIdempotentRoll, rollKeys, signUp } from './merchants.service.ts';

/** The sandbox sign-up (what the dashboard's form and the CLI's fallback call): no key needed. */
export function registerMerchantRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/merchants',
      operationId: 'createMerchant',
      response: MerchantWithKeysWire,
      // rate_limited: the sign-ups per minute of one client address.
      errors: ['rate_limited'],
      keyless: true,
      successStatus: 201,
      tags: ['Merchants'],
      summary:
        'Sign up a new sandbox merchant; returns its keys once (at most SIGNUPS_PER_MINUTE per client address)',
      request: jsonRequestBody(signUpSchema),
    }),
    async (c) => {
      const deps = c.get('deps');
      const created = await signUp(deps.database.db, systemClock, c.req.valid('json'), {
        signups: deps.signups,
        address: clientAddress(c),
      });
      return sendObject(c, merchantWithKeysResource(created), 201);
    },
    validationHook(signUpFieldCodes),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/keys/roll',
      operationId: 'rollKeys',
      response: ApiKeysWire,
      // Never stored for replay (the answer holds a secret key): an Idempotency-Key is refused.
      idempotent: false,
      errors: ['idempotency_key_invalid'],
      tags: ['Merchants'],
      summary:
        "Issue a new key pair and revoke the caller's keys at once; signs out every dashboard session of the merchant. Takes no Idempotency-Key",
    }),
    async (c) => {
      refuseIdempotentRoll(c.req.header('idempotency-key'));
      const svc = serviceContext(c);
      return sendObject(c, apiKeysResource(await rollKeys(svc.db, systemClock, svc.merchant.id)));
    },
  );
}
