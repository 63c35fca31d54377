import type { OpenAPIHono } from '@hono/zod-openapi';
import { clientAddress } from '../../http/client-address.ts';
import { systemClock } from '../../kernel/clock.ts';
import { sendObject } from '../../rest/render.ts';
import { jsonRequestBody, operation, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { MerchantWithKeysWire, merchantWithKeysResource } from './merchants.resource.ts';
import { signUpFieldCodes, signUpSchema } from './merchants.schema.ts';
import { signUp } from './merchants.service.ts';

/**
 * The sandbox sign-up (what the dashboard's form and the CLI's fallback call): no key needed, so it
 * is no declared operation (those run as a merchant); merchants.operations.ts has the others.
 */
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
}
