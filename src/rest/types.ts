import type { GraphQLRequestRecord } from '../http/request-log-record.ts';
import type { Clock } from '../kernel/clock.ts';
import type { AppDeps, Principal, Tx } from '../modules/context.ts';

export interface RestEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    principal: Principal;
    /** The authenticated merchant's clock. */
    clock: Clock;
    /** The parsed JSON body of a POST (an object), or {} when the request had no body. */
    body: Record<string, unknown>;
    /** The transaction an idempotent request runs in. */
    tx: Tx | undefined;
    /** The chaos faults injected into this request (docs/guide/chaos.md), for /metrics. */
    chaosFaults: readonly ('latency' | 'error' | 'rate_limit' | 'timeout')[] | undefined;
    /** The JSON text of the answer sendJson wrote (render.ts): the request log keeps it without a copy. */
    responseText: string | undefined;
    /** A body that could not be read as JSON or a form, as sent: what the request log keeps of it. */
    unparsedBody: string | undefined;
    /** What the GraphQL server told the request log about a /graphql request (app.ts). */
    graphqlLog: GraphQLRequestRecord | undefined;
  };
}

export type { AppDeps };
