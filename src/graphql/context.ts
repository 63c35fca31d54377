import { SandbankError } from '../kernel/errors.ts';
import { DEFAULT_PAGE_LIMIT, type ListQuery, listQuerySchema, type Page } from '../kernel/pagination.ts';
import { parseInput } from '../kernel/validation.ts';
import { processContextOf, type ServiceContext, type Tx } from '../modules/context.ts';
import {
  fingerprintOf,
  parseIdempotencyKey,
  runIdempotent,
} from '../modules/idempotency/idempotency.service.ts';
import type { GraphQLContext } from './builder.ts';

/** The service context of an authenticated GraphQL operation (scope-auth has checked the key). */
export function serviceContext(ctx: GraphQLContext, tx?: Tx): ServiceContext {
  if (!ctx.principal) throw ctx.authError ?? new SandbankError('api_key_missing');
  const { merchant } = ctx.principal;
  return { ...processContextOf(ctx.deps), ...(tx ? { tx } : {}), clock: ctx.clock, merchant };
}

interface StoredMutation {
  id?: string;
  error?: {
    code: SandbankError['code'];
    message: string;
    param?: string;
    declineCode?: string;
    objectId?: string;
  };
}

function storedError(error: SandbankError): StoredMutation {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.param ? { param: error.param } : {}),
      ...(error.declineCode ? { declineCode: error.declineCode } : {}),
      ...(error.objectId ? { objectId: error.objectId } : {}),
    },
  };
}

/**
 * Runs a mutation under an idempotency key (the `idempotencyKey` argument or the HTTP header), with
 * the same rules as REST: the first outcome is stored with the writes, a replay reloads the object,
 * a different request with the same key is idempotency_key_reused.
 */
export async function idempotentMutation<T>(
  ctx: GraphQLContext,
  mutation: { name: string; key: string | null | undefined; input: unknown },
  run: (svc: ServiceContext) => Promise<T & { id: string }>,
  reload: (svc: ServiceContext, id: string) => Promise<T>,
): Promise<T> {
  const rawKey = mutation.key ?? ctx.idempotencyKey;
  if (rawKey === null || rawKey === undefined) return run(serviceContext(ctx));
  const svc = serviceContext(ctx);
  const key = parseIdempotencyKey(rawKey);
  const fingerprint = fingerprintOf('graphql', mutation.name, JSON.stringify(mutation.input));
  let fresh: (T & { id: string }) | null = null;
  const { outcome, replayed } = await runIdempotent(
    svc.db,
    svc.clock,
    { merchantId: svc.merchant.id, key, fingerprint },
    async (tx) => {
      try {
        fresh = await run({ ...svc, tx });
        return {
          outcome: { status: 200, body: JSON.stringify({ id: fresh.id } satisfies StoredMutation) },
          store: true,
        };
      } catch (error) {
        if (error instanceof SandbankError && error.commitWrites) {
          return { outcome: { status: error.status, body: JSON.stringify(storedError(error)) }, store: true };
        }
        throw error;
      }
    },
  );
  if (!replayed && fresh) return fresh;
  const stored = JSON.parse(outcome?.body ?? '{}') as StoredMutation;
  if (stored.error) {
    const { code, ...details } = stored.error;
    throw new SandbankError(code, details);
  }
  if (!stored.id) throw new SandbankError('internal_error');
  return reload(svc, stored.id);
}

/**
 * The mutations on one kind of object, replayed by their idempotency key like their REST twins:
 * `reload` answers a replay with the object as it is now.
 */
export function mutationsOf<T>(reload: (svc: ServiceContext, id: string) => Promise<T>) {
  return (
    ctx: GraphQLContext,
    name: string,
    key: string | null | undefined,
    input: Record<string, unknown>,
    run: (svc: ServiceContext) => Promise<T & { id: string }>,
  ): Promise<T> => idempotentMutation<T>(ctx, { name, key, input }, run, reload);
}

/**
 * Relay arguments read with the same rules as REST's limit and starting_after. Pages run forward
 * from the newest item only: `last` and `before` are refused rather than silently ignored.
 */
export function listQueryOf(args: {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}): ListQuery {
  for (const param of ['last', 'before'] as const) {
    if (args[param] !== null && args[param] !== undefined)
      throw new SandbankError('parameter_invalid', {
        param,
        message: `${param} is not supported: pages run forward from the newest item (use first and after).`,
      });
  }
  return parseInput(
    listQuerySchema,
    { limit: args.first ?? DEFAULT_PAGE_LIMIT, ...(args.after ? { starting_after: args.after } : {}) },
    { limit: 'parameter_invalid', starting_after: 'parameter_invalid' },
  );
}

/** A page of the service layer as a Relay connection; cursors are the objects' ids. */
export function toConnection<T extends { id: string }>(page: Page<T>, args: { after?: string | null }) {
  return {
    edges: page.data.map((node) => ({ cursor: node.id, node })),
    pageInfo: {
      hasNextPage: page.hasMore,
      hasPreviousPage: Boolean(args.after),
      startCursor: page.data[0]?.id ?? null,
      endCursor: page.data.at(-1)?.id ?? null,
    },
  };
}

/** A single-object query answers null, not an error, when the merchant has no such object. */
export async function nullIfNotFound<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof SandbankError && error.code === 'resource_not_found') return null;
    throw error;
  }
}
