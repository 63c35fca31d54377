import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { systemClock } from '../../kernel/clock.ts';
import { sendObject } from '../../rest/render.ts';
import { validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { createMerchant } from './merchants.service.ts';

export const signUpSchema = z.strictObject({ name: z.string().min(1).max(100) });

/** The sandbox sign-up (what the dashboard's form and the CLI's fallback call): no key needed. */
export function registerMerchantRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    createRoute({
      method: 'post',
      path: '/merchants',
      tags: ['Merchants'],
      summary: 'Sign up a new sandbox merchant; returns its keys once',
      request: { body: { content: { 'application/json': { schema: signUpSchema } }, required: true } },
      responses: { 201: { description: 'The merchant and its keys' } },
    }),
    async (c) => {
      const deps = c.get('deps');
      const created = await createMerchant(deps.database.db, systemClock, { name: c.req.valid('json').name });
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
    validationHook({ name: 'parameter_invalid' }),
  );
}
