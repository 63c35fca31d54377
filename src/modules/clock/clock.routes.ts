import type { OpenAPIHono } from '@hono/zod-openapi';
import { sendObject } from '../../rest/render.ts';
import { operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { advanceClock, freezeClock, resetClock, unfreezeClock } from './clock.change.ts';
import { advanceClockFieldCodes, advanceClockSchema } from './clock.schema.ts';
import { type ClockView, getClock } from './clock.service.ts';

export function clockResource(clock: ClockView): Record<string, unknown> {
  return {
    object: 'clock',
    now: clock.now.toISOString(),
    frozen: clock.frozen,
    offset_ms: clock.offsetMs,
    ran: clock.ran.map((job) => ({
      id: job.id,
      kind: job.kind,
      object_id: job.objectId,
      due_at: job.dueAt.toISOString(),
      state: job.state,
      error: job.error,
    })),
  };
}

export function registerClockRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({ method: 'get', path: '/clock', tags: ['Clock'], summary: "The merchant's simulated clock" }),
    async (c) => sendObject(c, clockResource(await getClock(serviceContext(c)))),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/clock/advance',
      tags: ['Clock'],
      summary: 'Move the clock forward, running every piece of due work on the way before answering',
      request: { body: { content: { 'application/json': { schema: advanceClockSchema } }, required: true } },
    }),
    async (c) => sendObject(c, clockResource(await advanceClock(serviceContext(c), c.req.valid('json')))),
    validationHook(advanceClockFieldCodes),
  );

  for (const [path, change, summary] of [
    ['/clock/freeze', freezeClock, 'Stop the clock where it is'],
    ['/clock/unfreeze', unfreezeClock, 'Let a frozen clock run again from where it stands'],
    ['/clock/reset', resetClock, 'Back to real time, unfrozen'],
  ] as const) {
    api.openapi(operation({ method: 'post', path, tags: ['Clock'], summary }), async (c) =>
      sendObject(c, clockResource(await change(serviceContext(c)))),
    );
  }
}
