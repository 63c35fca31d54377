import { builder } from '../../graphql/builder.ts';
import { inputFor, registerObjectType } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import type { EventRow } from '../events/events.service.ts';
import { EventRef } from '../events/events.subscriptions.graphql.ts';
import type { Recipe } from '../recipe.ts';
import { triggerOperations } from './trigger.operations.ts';
import { TriggerEventSchema } from './trigger.resource.ts';
import type { TriggerResult } from './trigger.service.ts';

const TriggeredEventRef = builder.objectRef<TriggerResult>('TriggeredEvent').implement({
  description:
    "An event produced on demand (POST /v1/simulate/events): its recipe drove real objects through their own operations, so the ledger, the objects' timelines and every related event are consistent. See docs/guide/trigger.md.",
  fields: (t) => ({
    type: t.exposeString('type', { description: 'The event type asked for.' }),
    objectId: t.string({
      description: 'The id of the primary object: the one the triggered event is about.',
      resolve: (result) => result.event.objectId,
    }),
    event: t.expose('event', {
      type: EventRef,
      description: 'The triggered event (the last one of its type the run emitted).',
    }),
    events: t.field({
      type: [EventRef],
      description:
        "Every event written for the merchant while the run went on (a concurrent request's too), oldest first; the triggered one among them.",
      resolve: (result): EventRow[] => result.events,
    }),
  }),
});

const TriggerRecipeRef = builder.objectRef<Recipe>('TriggerRecipe').implement({
  description: 'How triggerEvent produces one event type: what it drives and the overrides it accepts.',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'The event type the recipe produces.' }),
    drives: t.exposeString('drives', { description: 'What the recipe does, in words.' }),
    accepts: t.stringList({
      description: 'The override keys it accepts (`metadata.*`: any metadata.<key>).',
      resolve: (recipe) => [...recipe.accepts],
    }),
    movesClock: t.exposeBoolean('movesClock', {
      description: "Whether it advances the merchant's simulated clock.",
    }),
  }),
});

const TriggerOverrideInput = builder.inputType('TriggerOverrideInput', {
  description: "One override of a trigger's recipe: a key it accepts and its value, as text.",
  fields: (t) => ({
    key: t.string({
      required: true,
      description: 'The key, e.g. amount, currency, reference, return_code, metadata.order.',
    }),
    value: t.string({ required: true, description: 'The value, e.g. 12.50, R01.' }),
  }),
});

// GraphQL sends the overrides as a list of {key, value} (REST takes an object too).
inputFor(TriggerEventSchema.shape.set.unwrap(), [TriggerOverrideInput]);
registerObjectType('TriggeredEvent', TriggeredEventRef);
registerObjectType('TriggerRecipe', TriggerRecipeRef);
mountGraphqlOperations(triggerOperations);
