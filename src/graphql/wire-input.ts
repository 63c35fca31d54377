import type { z } from 'zod';
import { SandbankError } from '../kernel/errors.ts';
import { type FieldCodes, parseInput } from '../kernel/validation.ts';

/**
 * GraphQL arguments as the body of the same REST operation, so that one zod schema — the REST
 * body's — reads both (docs/internals/architecture.md, "Input is parsed once"). The mapping is generic:
 * camelCase names become snake_case, null and undefined are left out (GraphQL's "not given"),
 * nested input objects and lists of them are mapped the same way, and JSON values (`metadata`) are
 * kept as they are. Where a GraphQL argument sits elsewhere in the body, `moves` says where, as a
 * dotted path (`merchantName` → `merchant.name`); `path` names the arguments that are a REST path
 * parameter (an id, a reference), which are not part of the body.
 */
export interface WireInput<S extends z.ZodType> {
  /** The mutation whose arguments these are (its name in the schema). */
  mutation: string;
  /** The REST body's schema, which parses the mapped arguments, and its fields' error codes. */
  schema: S;
  codes?: FieldCodes;
  /** The argument that holds the input object (`input`), when the fields are not top-level args. */
  inputArg?: string;
  moves?: Record<string, string>;
  path?: readonly string[];
}

/** Arguments that every mutation may take and that are never part of a body. */
const NOT_BODY = new Set(['idempotencyKey']);
/** Values that are JSON of the merchant's own: their keys are data, not names to map. */
const OPAQUE = new Set(['metadata']);

export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

function mapValue(value: unknown, opaque: boolean): unknown {
  if (value instanceof Date) return value.toISOString(); // a DateTime, ISO 8601 text on the wire
  if (opaque || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => mapValue(item, false));
  return mapObject(value as Record<string, unknown>, {});
}

function mapObject(record: Record<string, unknown>, moves: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record)) {
    if (value === null || value === undefined) continue;
    const path = (moves[name] ?? snakeCase(name)).split('.');
    let target = body;
    for (const key of path.slice(0, -1)) {
      target[key] ??= {};
      target = target[key] as Record<string, unknown>;
    }
    const key = path.at(-1) as string;
    // Two arguments for one field (`counterparty` and `counterpartyId`): REST's one field holds one.
    if (target[key] !== undefined)
      throw new SandbankError('parameter_invalid', {
        param: path.join('.'),
        message: `Give ${path.join('.')} once: ${name} and another argument both set it.`,
      });
    target[key] = mapValue(value, OPAQUE.has(name));
  }
  return body;
}

/** Every mapping declared with wireInput(), by mutation name (read by the test that checks them). */
export const wireInputs = new Map<string, WireInput<z.ZodType>>();

/** A mutation's arguments as its REST body, and that body parsed as REST parses it. */
export interface WireMapper<S extends z.ZodType> {
  /** The body (not yet parsed): also what an idempotency key's fingerprint is taken over. */
  body(args: object): Record<string, unknown>;
  /** The operation's typed input, or the registry's error for the first problem (as on REST). */
  parse(body: Record<string, unknown>): z.output<S>;
}

/**
 * Declares how a mutation's arguments map to its REST body (wireInputs keeps the declaration):
 * the mutation's name, the body's schema and its fields' error codes, and where the arguments do
 * not simply become the body's fields, how (`inputArg`, `moves`, `path`).
 */
export function wireInput<S extends z.ZodType>(
  mutation: string,
  schema: S,
  codes?: FieldCodes,
  options: Pick<WireInput<S>, 'inputArg' | 'moves' | 'path'> = {},
): WireMapper<S> {
  const spec: WireInput<S> = { mutation, schema, ...(codes ? { codes } : {}), ...options };
  wireInputs.set(spec.mutation, spec as WireInput<z.ZodType>);
  const skip = new Set([...NOT_BODY, ...(spec.path ?? [])]);
  return {
    body(args) {
      const source = spec.inputArg
        ? ((args as Record<string, unknown>)[spec.inputArg] as Record<string, unknown>)
        : (args as Record<string, unknown>);
      const fields = Object.fromEntries(Object.entries(source).filter(([name]) => !skip.has(name)));
      return mapObject(fields, spec.moves ?? {});
    },
    parse: (body) => parseInput(spec.schema, body, spec.codes),
  };
}
