import { and, asc, eq, gt } from 'drizzle-orm';
import { events } from '../../db/events.table.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { ServiceContext } from '../context.ts';
import { type EventRow, eventColumns } from '../events/events.service.ts';
import type { Overrides, Recipe } from '../recipe.ts';
import { listEventTypes } from '../webhooks/webhooks.event-types.ts';
import { Driver } from './trigger.driver.ts';
import { recipes } from './trigger.recipes.ts';

/**
 * Triggering an event on demand: the recipe of its type drives real objects through their own
 * operations (docs/guide/trigger.md), and the answer names the event it produced among all the run emitted.
 */

type OverrideValue = string | number | boolean;

export interface TriggerInput {
  type: string;
  /** As an object, or a list of {key, value} (a key given twice is refused). */
  set?:
    | Readonly<Record<string, OverrideValue>>
    | readonly { key: string; value: OverrideValue }[]
    | undefined;
}

export interface TriggerResult {
  type: string;
  event: EventRow;
  /** Every event the run wrote for the merchant, oldest first (the triggered one among them). */
  events: EventRow[];
}

/** The recipe of an event type, or 400 naming the types there are. */
export function recipeOf(type: string): Recipe {
  const recipe = recipes().get(type);
  if (!recipe)
    throw new SandbankError('parameter_invalid', {
      param: 'type',
      message: `${type.slice(0, 60)} is not an event type this sandbox sends (GET /v1/event_types lists them).`,
    });
  return recipe;
}

/** Whether a recipe accepts an override key (`metadata.*` stands for every `metadata.<key>`). */
function accepts(recipe: Recipe, key: string): boolean {
  if (recipe.accepts.includes(key)) return true;
  return recipe.accepts.includes('metadata.*') && /^metadata\..+$/.test(key);
}

/** The overrides as text, each key one the recipe accepts; 400 naming the first one it does not. */
export function checkOverrides(recipe: Recipe, set: TriggerInput['set']): Overrides {
  // A Map: a key such as `constructor` or `__proto__` is only a key (an object would inherit them).
  const out = new Map<string, string>();
  const pairs = Array.isArray(set)
    ? set.map(({ key, value }) => [key, value] as const)
    : Object.entries((set ?? {}) as Record<string, OverrideValue>);
  for (const [key, value] of pairs) {
    if (out.has(key))
      throw new SandbankError('parameter_invalid', {
        param: `set.${key.slice(0, 60)}`,
        message: `${key.slice(0, 60)} is set twice.`,
      });
    if (!accepts(recipe, key))
      throw new SandbankError('override_not_applicable', {
        param: `set.${key.slice(0, 60)}`,
        message: `${key.slice(0, 60)} cannot be set on ${recipe.type}; it accepts ${recipe.accepts.join(', ') || 'no override'}.`,
      });
    out.set(key, String(value));
  }
  return Object.fromEntries(out);
}

/**
 * Produces an event of `type` by running its recipe for the merchant. The overrides are checked
 * (keys, then values with the real operations' schemas) before anything is written.
 */
export async function triggerEvent(ctx: ServiceContext, input: TriggerInput): Promise<TriggerResult> {
  const recipe = recipeOf(input.type);
  const run = recipe.prepare(checkOverrides(recipe, input.set));
  // Ids are ordered by creation in this process: every event the run writes sorts after this one.
  const since = newId('event');
  const { tx: _tx, ...outside } = ctx;
  const own = await run(new Driver(outside));
  const emitted = await ctx.db
    .select(eventColumns)
    .from(events)
    .where(and(eq(events.merchantId, ctx.merchant.id), gt(events.id, since)))
    .orderBy(asc(events.id));
  // The run's own event: of its type, about the object the run made (or the event it sent). Other
  // events of the type written meanwhile (a concurrent run of the merchant) are not it.
  const event = emitted.findLast(
    (row) => row.type === recipe.type && (row.objectId === own || row.id === own),
  );
  if (!event)
    throw new SandbankError('invalid_state', {
      message: `The run did not lead to ${recipe.type} with these overrides (its objects stay as they are).`,
    });
  return { type: recipe.type, event, events: emitted };
}

/** Every recipe, in the order of GET /v1/event_types. */
export function listRecipes(): Recipe[] {
  return listEventTypes().flatMap((type) => {
    const recipe = recipes().get(type);
    return recipe ? [recipe] : [];
  });
}
