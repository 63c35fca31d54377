import { z } from 'zod';
import { CURRENCY_CODES } from './currency.ts';
import { WireDecimal } from './wire-json.ts';

/**
 * The building blocks of the response side: every object the API answers with (and every event
 * payload) is described by a zod schema built from these, and the module's render function returns
 * `Wire<typeof Schema>`, so a field renamed in one and not the other fails the type check. The same
 * schemas become the OpenAPI document's `components.schemas` (their `id`), so the document
 * describes what the render functions really produce.
 */

/** What a render function returns for a resource schema. */
export type Wire<S extends z.ZodType> = z.input<S>;

/** A decimal amount: written as a JSON number with exactly the currency's minor-unit digits. */
export const wireDecimal = z
  .custom<WireDecimal>((value) => value instanceof WireDecimal)
  .meta({
    type: 'number',
    description:
      "A decimal amount in major units, with exactly the currency's minor-unit digits (100.50 USD, 1500 JPY).",
  } as z.GlobalMeta);

/** A currency, ISO 4217 (answered upper case). */
export const wireCurrency = z.enum(CURRENCY_CODES).meta({ description: 'ISO 4217 currency code.' });

/** An instant as ISO 8601 UTC text (`2027-01-04T15:00:00.000Z`). */
export const timestamp = z.string().meta({ format: 'date-time', description: 'ISO 8601 instant (UTC).' });

/** Another object's id. */
export const idOf = (kind: string) => z.string().meta({ description: `The id of the ${kind}.` });

/** A merchant's string metadata. */
export const wireMetadata = z
  .record(z.string(), z.string())
  .meta({ description: 'The metadata given on create: string keys and values.' });

/**
 * An object kind: `id`, `object` (a constant naming the kind) and its own fields, registered in the
 * document as the component `name`.
 */
/** An answer without an id (a clock, a reset, a table of rates): its `object` kind first, then its fields. */
export function wireAnswer<const O extends string, S extends z.ZodRawShape>(object: O, shape: S) {
  return z.object({ object: z.literal(object).meta({ description: 'The kind of object.' }), ...shape });
}

export function wireResource<const O extends string, S extends z.ZodRawShape>(
  name: string,
  object: O,
  description: string,
  shape: S,
) {
  return z
    .object({
      id: z.string().meta({ description: `Unique id of the ${object.replaceAll('_', ' ')}.` }),
      object: z.literal(object).meta({ description: 'The kind of object.' }),
      ...shape,
    })
    .meta({ id: name, description });
}
