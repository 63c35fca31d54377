import type { OpenAPIHono } from '@hono/zod-openapi';
import { sendObject } from '../../rest/render.ts';
import { jsonRequestBody, operation, serviceContext } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { ChaosWire, chaosResource, SetChaosSchema } from './chaos.resource.ts';
import { getChaosSetting, setChaosSetting } from './chaos.service.ts';

export function registerChaosRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'get',
      path: '/simulate/chaos',
      operationId: 'getChaos',
      response: ChaosWire,
      tags: ['Simulation'],
      summary: "The merchant's chaos setting (never faulted itself)",
    }),
    async (c) => sendObject(c, chaosResource(await getChaosSetting(serviceContext(c)))),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/chaos',
      operationId: 'setChaos',
      response: ChaosWire,
      tags: ['Simulation'],
      summary:
        'Set or clear the faults injected into every keyed API request (never into this operation, so it can always be cleared) and into the webhook deliveries of the merchant',
      request: jsonRequestBody(SetChaosSchema),
    }),
    async (c) => {
      const body = c.req.valid('json');
      const setting = await setChaosSetting(serviceContext(c), {
        faults: body.faults,
        webhookFaults: body.webhook_faults,
      });
      return sendObject(c, chaosResource(setting));
    },
  );
}
