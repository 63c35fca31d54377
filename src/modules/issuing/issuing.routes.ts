import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { simulateAuthorization } from './issuing.authorize.ts';
import { createVirtualCard, updateVirtualCard } from './issuing.cards.ts';
import { virtualCardMachine } from './issuing.machine.ts';
import { getAuthorization, getVirtualCard, listAuthorizations, listVirtualCards } from './issuing.read.ts';
import {
  IssuingAuthorizationWire,
  issuingAuthorizationResource,
  VirtualCardDetailsWire,
  VirtualCardWire,
  virtualCardDetailsResource,
  virtualCardResource,
} from './issuing.resource.ts';
import * as bodies from './issuing.schema.ts';
import { captureAuthorization, refundAuthorization, reverseAuthorization } from './issuing.settle.ts';

const idParam = z.object({ id: z.string().min(1).max(255) });
const TAG = 'Virtual cards';
const VirtualCardList = listOf(VirtualCardWire, 'VirtualCard');
const IssuingAuthorizationList = listOf(IssuingAuthorizationWire, 'IssuingAuthorization');

export function registerIssuingRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/virtual_cards',
      operationId: 'createVirtualCard',
      response: VirtualCardDetailsWire,
      errors: ['currency_unsupported', 'amount_invalid'],
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
      operationId: 'listVirtualCards',
      response: VirtualCardList,
      tags: [TAG],
      summary: 'List virtual cards, newest first',
      request: {
        query: listQuerySchema.extend({
          state: z.enum(virtualCardMachine.states).optional().describe('Only the cards in this state.'),
        }),
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
      operationId: 'getVirtualCard',
      response: VirtualCardWire,
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
      operationId: 'getVirtualCardDetails',
      response: VirtualCardDetailsWire,
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
      operationId: 'updateVirtualCard',
      response: VirtualCardWire,
      errors: ['invalid_state', 'amount_invalid'],
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
      operationId: 'authorizeVirtualCard',
      response: IssuingAuthorizationWire,
      errors: ['amount_invalid', 'currency_unsupported'],
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
      operationId: 'listVirtualCardAuthorizations',
      response: IssuingAuthorizationList,
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
      operationId: 'getIssuingAuthorization',
      response: IssuingAuthorizationWire,
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
        operationId: `${name}IssuingAuthorization`,
        response: IssuingAuthorizationWire,
        errors: ['invalid_state', 'amount_invalid'],
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
