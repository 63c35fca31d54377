import type { z } from 'zod';
import { SandbankError } from '../kernel/errors.ts';
import { parseInput } from '../kernel/validation.ts';
import type { ServiceContext } from '../modules/context.ts';
import type { OperationDecl } from '../modules/operation.ts';
import { builder, type GraphQLContext } from './builder.ts';
import { idempotentMutation, listQueryOf, nullIfNotFound, serviceContext, toConnection } from './context.ts';
import { graphqlInput, idArguments, inputFields, objectTypeNamed } from './derive.ts';
import { IDEMPOTENCY_KEY } from './texts.ts';
import { wireInput } from './wire-input.ts';

/**
 * The GraphQL field of each declared operation (src/modules/operation.ts): a list is a connection,
 * a GET of one object a nullable query, a POST a mutation replayed by its idempotency key. Its
 * arguments are the path parameters and the body (top level, or one input object), derived from
 * the same zod schemas REST validates with, and parsed with them.
 */

// biome-ignore lint/suspicious/noExplicitAny: fields built from data, not from Pothos's inference.
type Args = Record<string, any>;

function pick(args: Args, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    names.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]),
  );
}

/** A connection's filter arguments (`filters`), typed and described by the query fields they stand for. */
function filterArgs(
  t: { arg: (o: never) => unknown },
  op: OperationDecl,
  filters: Record<string, string>,
  types: Record<string, string | [string]> = {},
) {
  const shape = op.query?.shape ?? {};
  const fields = Object.fromEntries(Object.entries(filters).map(([arg, key]) => [arg, shape[key]]));
  const named = (n: string | [string]) => (Array.isArray(n) ? [objectTypeNamed(n[0])] : objectTypeNamed(n));
  const refs = Object.fromEntries(Object.entries(types).map(([arg, n]) => [arg, named(n)]));
  return inputFields((o) => t.arg(o as never), fields as z.ZodRawShape, [], refs);
}

/** The query fields a connection's filter arguments give (those not given are left out). */
function filterValues(args: Args, filters: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(filters)
      .filter(([arg]) => args[arg] !== null && args[arg] !== undefined)
      .map(([arg, key]) => [key, args[arg]]),
  );
}

export function mountGraphqlOperations(operations: readonly OperationDecl[]): void {
  for (const op of operations) {
    const gql = op.graphql;
    if (gql === false) continue;
    const name = gql.name ?? op.name;
    const description = `${op.summary}.`;
    const type = objectTypeNamed(gql.returns ?? op.output.name);
    const paramNames = Object.keys(op.params?.shape ?? {});
    const params = (args: Args) => (op.params ? parseInput(op.params, pick(args, paramNames)) : undefined);
    if (op.method === 'get') {
      const paged = op.list && !gql.many;
      builder.queryFields((t) => ({
        [name]: paged
          ? t.connection({
              type,
              description,
              ...(gql.filters ? { args: filterArgs(t, op, gql.filters, gql.filterTypes) } : {}),
              resolve: async (_root: unknown, args: Args, ctx: GraphQLContext) => {
                const svc = serviceContext(ctx);
                const page = await op.run(svc, {
                  params: undefined,
                  query: { ...listQueryOf(args), ...filterValues(args, gql.filters ?? {}) },
                  body: undefined,
                });
                return toConnection(page as never, args);
              },
            } as never)
          : t.field({
              type: gql.many ? [type] : type,
              // By its id: null when there is none; the merchant's own (its clock) is always there.
              nullable: op.params !== undefined,
              description,
              args: inputFields((o) => t.arg(o as never), op.params?.shape ?? {}),
              resolve: (_root: unknown, args: Args, ctx: GraphQLContext) =>
                nullIfNotFound(
                  op.run(serviceContext(ctx), { params: params(args), query: undefined, body: undefined }),
                ).then((found) => (op.list ? (found as { data: unknown }).data : found)),
            } as never),
      }));
      continue;
    }
    const { reload, inputArg } = gql;
    if (reload === undefined)
      throw new Error(`The mutation ${name} declares no reload for a replayed idempotency key.`);
    const body = op.body
      ? wireInput(name, op.body, op.codes, {
          ...(inputArg ? { inputArg: inputArg.name } : {}),
          moves: idArguments((op.body as z.ZodObject).shape ?? {}),
          path: paramNames,
        })
      : null;
    const input = inputArg
      ? graphqlInput(inputArg.type, `The body of ${name}: ${op.summary}.`, op.body as z.ZodObject)
      : null;
    builder.mutationFields((t) => ({
      [name]: t.field({
        type,
        errors: { types: [SandbankError] },
        description,
        args: {
          ...inputFields((o) => t.arg(o as never), op.params?.shape ?? {}),
          ...(input && inputArg
            ? { [inputArg.name]: t.arg({ type: input, required: true, description: inputArg.description }) }
            : op.body
              ? inputFields((o) => t.arg(o as never), (op.body as z.ZodObject).shape, gql.omit)
              : {}),
          ...(reload ? { idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }) } : {}),
        },
        resolve: (_root: unknown, args: Args, ctx: GraphQLContext) => {
          const raw = body ? body.body(args) : undefined;
          const run = (svc: ServiceContext) =>
            op.run(svc, {
              params: params(args),
              query: undefined,
              body: body && raw ? body.parse(raw) : undefined,
            });
          op.refuseKey?.(ctx.idempotencyKey);
          if (!reload) return run(serviceContext(ctx));
          return idempotentMutation(
            ctx,
            { name, key: args.idempotencyKey, input: { ...pick(args, paramNames), ...raw } },
            (svc) => run(svc) as Promise<{ id: string }>,
            reload,
          );
        },
      } as never),
    }));
  }
}
