import { type ErrorCode, SandbankError } from '../../kernel/errors.ts';
import { defineOperation } from '../operation.ts';
import {
  recipeResource,
  TriggerEventSchema,
  TriggeredEventWire,
  TriggerRecipeWire,
  triggeredEventResource,
} from './trigger.resource.ts';
import { listRecipes, triggerEvent } from './trigger.service.ts';

/** The trigger's operations, each declared once: its REST route and its GraphQL field. */

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

/** A run is many operations, each written as it goes: it is not stored for replay. */
function refuseKey(key: string | null | undefined): void {
  if (key !== undefined && key !== null)
    throw new SandbankError('idempotency_key_invalid', {
      message: 'Triggering an event takes no Idempotency-Key: each call triggers a new run.',
    });
}

const TAGS = ['Simulation'];

export const triggerOperations = [
  defineOperation({
    name: 'triggerEvent',
    method: 'post',
    path: '/simulate/events',
    tags: TAGS,
    summary:
      "Produce an event of any type on demand, by driving real objects through their own operations (may advance the merchant's clock). Takes no Idempotency-Key",
    description:
      'Runs the recipe of `type` (GET /v1/simulate/events/recipes lists them with the overrides each accepts). Overrides are checked before anything is written: a key the recipe does not accept is 400 override_not_applicable, a bad value the error of the operation it goes to. Answers with the triggered event, its object and every event the run emitted.',
    body: TriggerEventSchema,
    refuseKey,
    heavy: true,
    errors: TRIGGER_ERRORS,
    output: { name: 'TriggeredEvent', wire: TriggeredEventWire, render: triggeredEventResource },
    run: (ctx, { body }) => triggerEvent(ctx, body),
    graphql: { reload: false },
  }),
  defineOperation({
    name: 'listTriggerRecipes',
    method: 'get',
    path: '/simulate/events/recipes',
    tags: TAGS,
    summary:
      'Every event type POST /v1/simulate/events can produce: what it drives and the overrides it accepts',
    output: { name: 'TriggerRecipe', wire: TriggerRecipeWire, render: recipeResource },
    // One page, all of them (REST); GraphQL answers the list whole.
    list: true,
    run: async () => ({ data: listRecipes(), hasMore: false, nextCursor: null }),
    graphql: { name: 'triggerRecipes', many: true },
  }),
];
