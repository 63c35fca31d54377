import type { OpenAPIHono } from '@hono/zod-openapi';
import { sendObject } from '../../rest/render.ts';
import { jsonRequestBody, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { advanceClock, freezeClock, resetClock, unfreezeClock } from './clock.change.ts';
import { ClockWire, clockResource } from './clock.resource.ts';
import { advanceClockFieldCodes, advanceClockSchema } from './clock.schema.ts';
import { getClock } from './clock.service.ts';

export function registerClockRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'get',
      path: '/clock',
      operationId: 'getClock',
      response: ClockWire,
      tags: ['Clock'],
      summary: "The merchant's simulated clock",
    }),
    async (c) => sendObject(c, clockResource(await getClock(serviceContext(c)))),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/clock/advance',
      operationId: 'advanceClock',
      response: ClockWire,
      errors: ['clock_backwards'],
      tags: ['Clock'],
      summary: 'Move the clock forward, running every piece of due work on the way before answering',
      request: jsonRequestBody(advanceClockSchema),
      ownTransactions: true,
      heavy: true,
    }),
    async (c) => sendObject(c, clockResource(await advanceClock(serviceContext(c), c.req.valid('json')))),
    validationHook(advanceClockFieldCodes),
  );

  for (const [path, change, operationId, summary] of [
    ['/clock/freeze', freezeClock, 'freezeClock', 'Stop the clock where it is'],
    ['/clock/unfreeze', unfreezeClock, 'unfreezeClock', 'Let a frozen clock run again from where it stands'],
    ['/clock/reset', resetClock, 'resetClock', 'Back to real time, unfrozen'],
  ] as const) {
    api.openapi(
      operation({
        method: 'post',
        path,
        operationId,
        response: ClockWire,
        tags: ['Clock'],
        summary,
        ownTransactions: true,
      }),
      async (c) => sendObject(c, clockResource(await change(serviceContext(c)))),
    );
  }
}
