import { z } from 'zod';
import { idOf, timestamp, type Wire, wireAnswer } from '../../kernel/wire-resources.ts';
import type { EventRow } from '../events/events.service.ts';
import type { Recipe } from '../recipe.ts';
import { EventWire, eventResource } from '../webhooks/webhooks.payloads.ts';
import type { TriggerResult } from './trigger.service.ts';

const overrideValue = z.union([z.string().max(1000), z.number(), z.boolean()]);

export const TriggerEventSchema = z
  .strictObject({
    type: z
      .string()
      .max(100)
      .describe(
        "The event type to produce, e.g. transfer.returned (GET /v1/event_types lists them, and GraphQL's eventTypes).",
      ),
    set: z
      .union([
        z.record(z.string().max(60), overrideValue),
        z
          .array(z.strictObject({ key: z.string().max(60), value: overrideValue }))
          .max(60)
          .meta({ description: 'The same as a list of {key, value} (as GraphQL sends it).' }),
      ])
      .optional()
      .describe(
        "Overrides: keys the type's recipe accepts (GET /v1/simulate/events/recipes), e.g. amount, currency, reference, metadata.<key>, return_code, as an object (REST) or a list of {key, value}. A key the recipe does not accept is override_not_applicable.",
      ),
  })
  .meta({ description: 'The event type to produce, and the overrides of its recipe.' });

export type TriggerEventInput = z.output<typeof TriggerEventSchema>;

const EmittedEventWire = z
  .object({
    id: idOf('event'),
    type: z.string().meta({ description: 'The event type.' }),
    object_id: z.string().meta({ description: 'The id of the object the event is about.' }),
    created_at: timestamp,
  })
  .meta({
    id: 'TriggeredRunEvent',
    description: 'An event a trigger run emitted (GET /v1/events/{id} has it whole).',
  });

export const TriggeredEventWire = wireAnswer('triggered_event', {
  type: z.string().meta({ description: 'The event type asked for.' }),
  object_id: z
    .string()
    .meta({ description: 'The id of the primary object: the one the triggered event is about.' }),
  event: EventWire,
  events: z.array(EmittedEventWire).meta({
    description:
      "Every event written for the merchant while the run went on (a concurrent request's too), oldest first; the triggered one among them.",
  }),
}).meta({
  id: 'TriggeredEvent',
  description:
    'An event produced on demand: its recipe drove real objects through their own operations (the ledger and every related event are consistent).',
});

export function triggeredEventResource(result: TriggerResult): Wire<typeof TriggeredEventWire> {
  return {
    object: 'triggered_event',
    type: result.type,
    object_id: result.event.objectId,
    event: eventResource(result.event),
    events: result.events.map(emittedResource),
  };
}

function emittedResource(row: EventRow) {
  return { id: row.id, type: row.type, object_id: row.objectId, created_at: row.createdAt.toISOString() };
}

export const TriggerRecipeWire = wireAnswer('trigger_recipe', {
  type: z.string().meta({ description: 'The event type the recipe produces.' }),
  drives: z.string().meta({ description: 'What the recipe does, in words.' }),
  accepts: z
    .array(z.string())
    .meta({ description: 'The override keys it accepts (`metadata.*`: any metadata.<key>).' }),
  moves_clock: z.boolean().meta({ description: "Whether it advances the merchant's simulated clock." }),
}).meta({ id: 'TriggerRecipe', description: 'How POST /v1/simulate/events produces one event type.' });

export function recipeResource(recipe: Recipe): Wire<typeof TriggerRecipeWire> {
  return {
    object: 'trigger_recipe',
    type: recipe.type,
    drives: recipe.drives,
    accepts: [...recipe.accepts],
    moves_clock: recipe.movesClock,
  };
}
