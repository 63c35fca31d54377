/**
 * GraphQL mutations read their input with the REST body's zod schema, through one generic mapping
 * (src/graphql/wire-input.ts). These tests hold every mapping to that promise: each argument and
 * input-object field of a mapped mutation lands on a field of its schema (so a field added to one
 * side only, or renamed on one side, fails here), and every mutation that takes more than ids and
 * an idempotency key declares its mapping.
 */
import {
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLInputType,
  getNamedType,
  isInputObjectType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { schema } from '../../src/api/graphql/schema.ts';
import { snakeCase, wireInputs } from '../../src/graphql/wire-input.ts';

type Def = { type: string; [key: string]: unknown };
const defOf = (node: unknown): Def => (node as { _zod: { def: Def } })._zod.def;

/** Whether `path` names a field the zod schema reads (through optionals, defaults, unions, lists, pipes). */
function hasPath(node: unknown, path: readonly string[]): boolean {
  if (path.length === 0) return true;
  const def = defOf(node);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      const [head, ...rest] = path as [string, ...string[]];
      return head in shape && hasPath(shape[head], rest);
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
      return hasPath(def.innerType, path);
    case 'union':
      return (def.options as unknown[]).some((option) => hasPath(option, path));
    case 'array':
      return hasPath(def.element, path);
    case 'record':
      // Any key (a settlement's destination: its fields depend on the currency).
      return hasPath(def.valueType, path.slice(1));
    case 'pipe':
      return hasPath(def.in, path);
    default:
      return false;
  }
}

/** Arguments that never belong to a body: the idempotency key, and ids naming the object. */
const NOT_BODY = new Set(['idempotencyKey', 'id']);
/** Arguments that name an object, as a REST path parameter does. */
const PATH_LIKE = /^(reference|name)$/;

/** Every wire path a mutation's arguments map to, with the argument or field each comes from. */
function wirePaths(
  fields: readonly (GraphQLArgument | GraphQLInputField)[],
  prefix: string[],
  moves: Record<string, string>,
  from: string,
): { path: string[]; from: string }[] {
  return fields.flatMap((field) => {
    const path = [...prefix, ...(moves[field.name] ?? snakeCase(field.name)).split('.')];
    const named = getNamedType(field.type as GraphQLInputType);
    const here = { path, from: `${from}.${field.name}` };
    if (!isInputObjectType(named) || field.name === 'metadata') return [here];
    return [here, ...wirePaths(Object.values(named.getFields()), path, {}, here.from)];
  });
}

const mutations = Object.values(schema.getMutationType()?.getFields() ?? {});

describe('GraphQL input → REST body', () => {
  it('the checker reads zod shapes, and refuses what they do not have', () => {
    const probe = z.strictObject({
      amount: z.string(),
      card: z.strictObject({ exp_month: z.number() }).optional(),
      limits: z.array(z.strictObject({ interval: z.enum(['day']) })).optional(),
      method: z.union([z.strictObject({ kind: z.literal('a') }), z.strictObject({ other: z.string() })]),
    });
    expect(hasPath(probe, ['amount'])).toBe(true);
    expect(hasPath(probe, ['card', 'exp_month'])).toBe(true);
    expect(hasPath(probe, ['limits', 'interval'])).toBe(true);
    expect(hasPath(probe, ['method', 'other'])).toBe(true);
    expect(hasPath(probe, ['ammount'])).toBe(false);
    expect(hasPath(probe, ['card', 'expMonth'])).toBe(false);
  });

  it('there are mapped mutations to check', () => {
    expect(mutations.length).toBeGreaterThan(30);
    expect(wireInputs.size).toBeGreaterThan(10);
  });

  it.each(mutations.map((mutation) => [mutation.name, mutation] as const))(
    '%s: every argument lands on a field of its body schema',
    (name, mutation) => {
      const spec = wireInputs.get(name);
      const bodyArgs = mutation.args.filter(
        (arg) => !NOT_BODY.has(arg.name) && !spec?.path?.includes(arg.name),
      );
      if (!spec) {
        // No mapping: then the mutation takes no body, only what names its object (REST's path).
        const body = bodyArgs.filter((arg) => !PATH_LIKE.test(arg.name)).map((arg) => arg.name);
        expect(body, `${name} takes a body but declares no wireInput`).toEqual([]);
        return;
      }
      const source = spec.inputArg ? bodyArgs.find((arg) => arg.name === spec.inputArg) : undefined;
      const fields = source
        ? Object.values(
            (getNamedType(source.type) as { getFields(): Record<string, GraphQLInputField> }).getFields(),
          )
        : bodyArgs;
      const missing = wirePaths(fields, [], spec.moves ?? {}, name).filter(
        ({ path }) => !hasPath(spec.schema, path),
      );
      expect(missing.map(({ from, path }) => `${from} → ${path.join('.')}`)).toEqual([]);
    },
  );
});
