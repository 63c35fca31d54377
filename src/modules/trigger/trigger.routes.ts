import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ErrorCode } from '../../kernel/errors.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { sendJson, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import {
  recipeResource,
  TriggerEventSchema,
  TriggeredEventWire,
  TriggerRecipeWire,
  triggeredEventResource,
} from './trigger.resource.ts';
import { listRecipes, triggerEvent } from './trigger.service.ts';

/** What a trigger can be refused for: its own checks, and those of the operations its recipes drive. */
export const TRIGGER_ERRORS = [
  'override_not_applicable',
  'amount_invalid',
  'currency_unsupported',
  'reference_invalid',
  'email_invalid',
  'duplicate_reference',
  'amount_exceeds_rail_limit',
  'insufficient_balance',
  'destination_invalid',
  'resource_not_found',
  'invalid_state',
  'limit_exceeded',
  'idempotency_key_invalid',
] as const satisfies readonly ErrorCode[];

export function registerTriggerRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/events',
      operationId: 'triggerEvent',
      response: TriggeredEventWire,
      // A run is many operations, each written as it goes: it is not stored for replay.
      idempotent: false,
      heavy: true,
      errors: TRIGGER_ERRORS,
      tags: ['Simulation'],
      summary:
        "Produce an event of any type on demand, by driving real objects through their own operations (may advance the merchant's clock). Takes no Idempotency-Key",
      description:
        'Runs the recipe of `type` (GET /v1/simulate/events/recipes lists them with the overrides each accepts). Overrides are checked before anything is written: a key the recipe does not accept is 400 override_not_applicable, a bad value the error of the operation it goes to. Answers with the triggered event, its object and every event the run emitted.',
      request: jsonRequestBody(TriggerEventSchema),
    }),
    async (c) => {
      if (c.req.header('idempotency-key') !== undefined)
        throw new SandbankError('idempotency_key_invalid', {
          message: 'POST /v1/simulate/events takes no Idempotency-Key: each call triggers a new run.',
        });
      const result = await triggerEvent(serviceContext(c), c.req.valid('json'));
      return sendObject(c, triggeredEventResource(result));
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/simulate/events/recipes',
      operationId: 'listTriggerRecipes',
      response: listOf(TriggerRecipeWire, 'TriggerRecipe'),
      tags: ['Simulation'],
      summary:
        'Every event type POST /v1/simulate/events can produce: what it drives and the overrides it accepts',
    }),
    (c) =>
      sendJson(c, 200, {
        status: 'success',
        data: listRecipes().map(recipeResource),
        has_more: false,
        next_cursor: null,
      }),
  );
}
