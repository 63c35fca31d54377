import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { simulateAuthorization } from './issuing.authorize.ts';
import { createVirtualCard, updateVirtualCard } from './issuing.cards.ts';
import { getAuthorization, getVirtualCard, listAuthorizations, listVirtualCards } from './issuing.read.ts';
import {
  issuingAuthorizationResource,
  virtualCardDetailsResource,
  virtualCardResource,
} from './issuing.resource.ts';
import * as bodies from './issuing.schema.ts';
import { captureAuthorization, refundAuthorization, reverseAuthorization } from './issuing.settle.ts';

const idParam = z.object({ id: z.string().min(1).max(255) });
const TAG = 'Virtual cards';

export function registerIssuingRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/virtual_cards',
      tags: [TAG],
      summary:
        'Issue a virtual Visa or Mastercard with spending controls (the only response with number and CVC besides /details)',
      request: jsonRequestBody(bodies.createVirtualCardSchema),
    }),
    async (c) =>
      sendObject(
        c,
        virtualCardDetailsResource(await createVirtualCard(serviceContext(c), c.req.valid('json'))),
      ),
    validationHook(bodies.virtualCardFieldCodes),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/virtual_cards',
      tags: [TAG],
      summary: 'List virtual cards, newest first',
      request: {
        query: listQuerySchema.extend({ state: z.enum(['active', 'frozen', 'canceled']).optional() }),
      },
    }),
    async (c) =>
      sendList(c, await listVirtualCards(serviceContext(c), c.req.valid('query')), virtualCardResource),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/virtual_cards/{id}',
      tags: [TAG],
      summary: 'Get a virtual card (brand and last 4 digits only)',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(c, virtualCardResource(await getVirtualCard(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/virtual_cards/{id}/details',
      tags: [TAG],
      summary: "A virtual card's full number, CVC and expiry",
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(
        c,
        virtualCardDetailsResource(await getVirtualCard(serviceContext(c), c.req.valid('param').id)),
      ),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/virtual_cards/{id}',
      tags: [TAG],
      summary: 'Freeze, unfreeze or cancel a virtual card, or replace its spending controls or metadata',
      request: { params: idParam, ...jsonRequestBody(bodies.updateVirtualCardSchema) },
    }),
    async (c) =>
      sendObject(
        c,
        virtualCardResource(
          await updateVirtualCard(serviceContext(c), c.req.valid('param').id, c.req.valid('json')),
        ),
      ),
    validationHook(bodies.updateVirtualCardFieldCodes),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/virtual_cards/{id}/authorizations',
      tags: ['Simulation'],
      summary: 'A merchant asks to charge the virtual card: approved (funds held) or declined with a reason',
      request: { params: idParam, ...jsonRequestBody(bodies.simulateAuthorizationSchema) },
    }),
    async (c) =>
      sendObject(
        c,
        issuingAuthorizationResource(
          await simulateAuthorization(serviceContext(c), c.req.valid('param').id, c.req.valid('json')),
        ),
      ),
    validationHook(bodies.authorizationFieldCodes),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/virtual_cards/{id}/authorizations',
      tags: [TAG],
      summary: "A virtual card's authorizations, newest first",
      request: { params: idParam, query: listQuerySchema },
    }),
    async (c) =>
      sendList(
        c,
        await listAuthorizations(serviceContext(c), c.req.valid('param').id, c.req.valid('query')),
        issuingAuthorizationResource,
      ),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/issuing_authorizations/{id}',
      tags: [TAG],
      summary: 'Get an issuing authorization',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(
        c,
        issuingAuthorizationResource(await getAuthorization(serviceContext(c), c.req.valid('param').id)),
      ),
    validationHook(),
  );

  const steps = [
    [
      'capture',
      'Clear an approved authorization (the amount may differ from the authorized one)',
      captureAuthorization,
    ],
    [
      'reverse',
      'Reverse an approved authorization in full or in part (frees the hold and the limit)',
      reverseAuthorization,
    ],
    [
      'refund',
      'Refund a captured authorization in full or in part (money back; the limit stays used)',
      refundAuthorization,
    ],
  ] as const;
  for (const [name, summary, run] of steps) {
    api.openapi(
      operation({
        method: 'post',
        path: `/simulate/issuing_authorizations/{id}/${name}`,
        tags: ['Simulation'],
        summary,
        request: { params: idParam, ...jsonRequestBody(bodies.authorizationAmountSchema, false) },
      }),
      async (c) =>
        sendObject(
          c,
          issuingAuthorizationResource(
            await run(serviceContext(c), c.req.valid('param').id, c.req.valid('json')),
          ),
        ),
      validationHook(bodies.authorizationAmountFieldCodes),
    );
  }
}
