import type { OpenAPIHono } from '@hono/zod-openapi';
import { sendObject } from '../../rest/render.ts';
import { operation, serviceContext } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { refuseIdempotentReset, resetMerchant } from './sandbox.reset.ts';
import { ResetWire, resetResource } from './sandbox.resource.ts';

export function registerSandboxRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/reset',
      operationId: 'resetMerchant',
      response: ResetWire,
      // Never stored for replay: the reset deletes the idempotency records.
      idempotent: false,
      heavy: true,
      errors: ['idempotency_key_invalid'],
      tags: ['Simulation'],
      summary:
        'Delete every object of the merchant and put its clock back to real time, in one transaction; keeps the merchant, its keys and its webhook endpoints. Takes no Idempotency-Key',
    }),
    async (c) => {
      refuseIdempotentReset(c.req.header('idempotency-key'));
      return sendObject(c, resetResource(await resetMerchant(serviceContext(c))));
    },
  );
}
