import { GraphQLError, getOperationAST, Kind, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../../graphql/builder.ts';
import { ERROR_REGISTRY, SandbankError } from '../../kernel/errors.ts';
import { CHAOS_HEADER, type ChaosFault, parseChaos } from '../../modules/chaos/chaos.grammar.ts';
import { injectChaos } from '../../modules/chaos/chaos.inject.ts';
import { merchantChaos } from '../../modules/chaos/chaos.service.ts';

/**
 * What chaos did to one POST /graphql request, filled by the plugin and read by the HTTP handler
 * (app.ts): the Sandbank-Chaos-Injected and Retry-After headers, and the /metrics counter.
 */
export interface GraphQLChaosRecord {
  injected: string[];
  faults: ChaosFault[];
  retryAfter: number | null;
}

/** Root fields that are never faulted: the chaos setting itself (so it can always be cleared) and introspection. */
const CHAOS_FREE_FIELDS = new Set(['chaos', 'setChaos', '__typename', '__schema', '__type']);

/** Whether every root field of the operation is chaos-free (a fragment at the root counts as not). */
function chaosFree(operation: OperationDefinitionNode): boolean {
  return operation.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && CHAOS_FREE_FIELDS.has(selection.name.value),
  );
}

/** A registered error in GraphQL's shape, with the HTTP status Yoga answers it with. */
function graphqlError(error: SandbankError): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: {
      code: error.code,
      type: ERROR_REGISTRY[error.code].type,
      status: error.status,
      ...(error.param ? { param: error.param } : {}),
      http: { status: error.status },
    },
  });
}

type ChaosContext = GraphQLContext & { request?: Request; chaos?: GraphQLChaosRecord };

/**
 * Chaos on GraphQL (docs/guide/chaos.md): the Sandbank-Chaos header, or else the merchant's setting,
 * faults a keyed HTTP query or mutation before it executes, exactly as a REST request: latency, then
 * at most one of a 5xx, a 429 or a timeout answered as `errors[0].extensions.code =
 * "chaos_injected"` with that HTTP status. A faulted mutation never runs (nothing is written, its
 * idempotency key is not used). Subscriptions, operations over graphql-ws (no record to fill),
 * requests signed in by the dashboard's session (no key) and operations made only of the chaos
 * setting and introspection are passed over.
 */
export function chaosPlugin(): Plugin {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as unknown as ChaosContext;
      const record = ctx.chaos;
      const request = ctx.request;
      if (!record || !request || !ctx.principal || request.headers.get('authorization') === null) return;
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation || operation.operation === 'subscription' || chaosFree(operation)) return;
      const header = request.headers.get(CHAOS_HEADER);
      const merchantId = ctx.principal.merchant.id;
      let spec: Awaited<ReturnType<typeof merchantChaos>>;
      try {
        spec =
          header !== null
            ? parseChaos(header, CHAOS_HEADER)
            : await merchantChaos(ctx.deps.database.db, merchantId);
      } catch (error) {
        if (!(error instanceof SandbankError)) throw error;
        setResultAndStopExecution({ errors: [graphqlError(error)] });
        return;
      }
      if (!spec) return;
      const injected = await injectChaos(spec, merchantId);
      record.injected.push(...injected.injected);
      record.faults.push(...injected.faults);
      record.retryAfter = injected.retryAfter;
      if (injected.error) setResultAndStopExecution({ errors: [graphqlError(injected.error)] });
    },
  };
}
