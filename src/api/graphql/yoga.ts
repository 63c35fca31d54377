import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError } from 'graphql';
import { createYoga } from 'graphql-yoga';
import type { AppDeps } from '../../deps.ts';
import type { GraphQLContext } from '../../graphql/builder.ts';
import type { GraphQLRequestRecord } from '../../http/request-log-record.ts';
import { systemClock } from '../../kernel/clock.ts';
import { ERROR_REGISTRY, SandbankError } from '../../kernel/errors.ts';
import { isDatabaseUnavailable } from '../../modules/context.ts';
import { authenticate, type Principal } from '../../modules/merchants/authentication.ts';
import type { Credential } from '../../modules/merchants/credential-watch.ts';
import { chaosPlugin, type GraphQLChaosRecord } from './chaos.ts';
import { queryCostPlugin } from './cost.ts';
import { dashboardSessionPrincipal, graphiqlOptionsFor } from './dashboard-session.ts';
import { renderGraphiQL } from './graphiql.ts';
import { requestLogPlugin } from './request-log.ts';
import { schema } from './schema.ts';

export interface YogaServerContext {
  deps: AppDeps;
  requestId: string;
  /** Set for operations over graphql-ws: the key the connection authenticated with (ws.ts)... */
  principal?: Principal;
  /** ...and the credential it presented, which ends the operation's live stream when it stops authenticating. */
  credential?: Credential;
  /** Set for HTTP requests: what chaos injected (chaos.ts), for the response's headers and /metrics. */
  chaos?: GraphQLChaosRecord;
  /** Set for HTTP requests: what the request log keeps of it (request-log.ts; the context adds the merchant). */
  requestLog?: GraphQLRequestRecord;
}

function extensionsOf(error: SandbankError) {
  return {
    code: error.code,
    type: ERROR_REGISTRY[error.code].type,
    status: error.status,
    ...(error.param ? { param: error.param } : {}),
    ...(error.declineCode ? { decline_code: error.declineCode } : {}),
  };
}

/**
 * A database that cannot be reached: database_unavailable, answered with HTTP 503 and Retry-After
 * (as REST does), whatever else the operation returned.
 */
function unavailable(error?: GraphQLError): GraphQLError {
  const known = new SandbankError('database_unavailable');
  return new GraphQLError(known.message, {
    ...(error ? { nodes: error.nodes, path: error.path } : {}),
    extensions: {
      ...extensionsOf(known),
      http: {
        status: known.status,
        headers: { 'Retry-After': String(ERROR_REGISTRY[known.code].retryAfter) },
      },
    },
  });
}

/**
 * Registered errors keep their code; a database that cannot be reached is database_unavailable;
 * anything else unexpected is masked as internal_error (nothing leaks).
 */
function maskError(error: unknown): Error {
  if (!(error instanceof GraphQLError)) {
    if (isDatabaseUnavailable(error)) return unavailable();
    return new GraphQLError('Something went wrong on our side.', { extensions: { code: 'internal_error' } });
  }
  const original = error.originalError;
  if (isDatabaseUnavailable(original)) return unavailable(error);
  if (original instanceof SandbankError) {
    return new GraphQLError(original.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: extensionsOf(original),
    });
  }
  if (!original || original instanceof GraphQLError) return error;
  return new GraphQLError('Something went wrong on our side.', {
    nodes: error.nodes,
    path: error.path,
    extensions: { code: 'internal_error' },
  });
}

/** Abuse-limit rejections carry the registry's code, like every other error. */
const tagRejection = {
  onReject: [
    (_context: unknown, error: GraphQLError) => Object.assign(error.extensions, { code: 'query_rejected' }),
  ],
};

/**
 * GraphQL at /graphql: GraphiQL (its files served locally, graphiql.ts) on GET, abuse limits before
 * execution. Browsers may call it cross-origin only from the server's own public origin (CORS names
 * that one origin and never allows credentials: the HTTP endpoint authenticates with a key, or, for
 * GraphiQL opened from a signed-in dashboard, with the session cookie and its CSRF token from a
 * same-origin page: dashboard-session.ts).
 */
export function buildYoga({ publicUrl }: { publicUrl: string }) {
  return createYoga<YogaServerContext, GraphQLContext>({
    schema,
    cors: { origin: new URL(publicUrl).origin, credentials: false },
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    renderGraphiQL,
    graphiql: (request, { deps }) => graphiqlOptionsFor(deps, request),
    maskedErrors: { maskError: (error) => maskError(error) },
    plugins: [
      // First: the operation's name is known even when a limit refuses it.
      requestLogPlugin(),
      maxDepthPlugin({ n: 10, ...tagRejection }),
      maxAliasesPlugin({ n: 15, ...tagRejection }),
      maxTokensPlugin({ n: 2000, ...tagRejection }),
      blockFieldSuggestionsPlugin(),
      // Before chaos: an operation refused for its cost does nothing at all, not even wait.
      queryCostPlugin(),
      chaosPlugin(),
    ],
    context: async ({
      request,
      deps,
      requestId,
      principal,
      credential,
      requestLog,
    }): Promise<GraphQLContext> => {
      if (principal) {
        const clock = await deps.clockFor(principal.merchant.id);
        return {
          deps,
          requestId,
          idempotencyKey: null,
          principal,
          credential: credential ?? null,
          signal: null,
          clock,
          authError: null,
        };
      }
      const base = {
        deps,
        requestId,
        idempotencyKey: request.headers.get('idempotency-key'),
        signal: request.signal,
      };
      // Read before the check: a credential change heard meanwhile makes a live stream check again.
      const epoch = deps.credentialWatch?.epoch ?? 0;
      try {
        const authorization = request.headers.get('authorization');
        const viaSession = authorization === null ? await dashboardSessionPrincipal(deps, request) : null;
        if (viaSession) {
          const { principal, token, expiresAt } = viaSession;
          const merchantId = principal.merchant.id;
          if (requestLog) Object.assign(requestLog, { merchantId, viaSession: true });
          return {
            ...base,
            principal,
            credential: { kind: 'session', merchantId, token, expiresAt, epoch },
            clock: await deps.clockFor(merchantId),
            authError: null,
          };
        }
        const principal = await authenticate(deps.database.db, authorization);
        const merchantId = principal.merchant.id;
        if (requestLog) requestLog.merchantId = merchantId;
        return {
          ...base,
          principal,
          credential: { kind: 'key', merchantId, authorization: authorization ?? '', epoch },
          clock: await deps.clockFor(merchantId),
          authError: null,
        };
      } catch (error) {
        if (error instanceof SandbankError)
          return { ...base, principal: null, credential: null, clock: systemClock, authError: error };
        throw error;
      }
    },
  });
}
