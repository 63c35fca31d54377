import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import { CSRF_HEADER, dashboardSessionPrincipal } from './api/graphql/dashboard-session.ts';
import type { AppDeps } from './deps.ts';
import type { GraphQLRequestRecord } from './http/request-log-record.ts';
import { fixtureStepPrincipal } from './modules/fixtures/fixtures.service.ts';
import { authenticate } from './modules/merchants/authentication.ts';
import { type CapturedBody, errorCodeOf, sourceOf } from './modules/request-log/request-log.entry.ts';
import { UNLOGGED_OPERATIONS } from './modules/request-log/request-log.operations.ts';
import type { RequestLogWriter } from './modules/request-log/request-log.writer.ts';
import type { RestEnv } from './rest/types.ts';

/**
 * The request log's capture, at the top of the HTTP stack (app.ts's first middleware, once the
 * answer is final): a request to /v1 or /graphql that identified a merchant — by its key or, for
 * GraphiQL on the dashboard, its session — is handed to the log's writer, answered or refused. Left
 * out: the log's own reads (a tail would see itself), a fixture's steps (the request that applies
 * the fixture is logged), and GraphQL over WebSocket.
 */

type Definitions = OpenAPIHono['openAPIRegistry']['definitions'];

/** The operationId of each REST route, by its method and Hono path (`POST /v1/card_payments/:id/capture`). */
function operationIds(definitions: Definitions): Map<string, string> {
  const ids = new Map<string, string>();
  for (const definition of definitions) {
    if (definition.type !== 'route' || !definition.route.operationId) continue;
    const path = definition.route.path.replace(/\{([^}/]+)\}/g, ':$1');
    ids.set(`${definition.route.method.toUpperCase()} /v1${path}`, definition.route.operationId);
  }
  return ids;
}

/** The operation of the first route the request matched (its handler's, as Hono runs the first). */
function restOperation(c: Context<RestEnv>, ids: Map<string, string>): string | null {
  for (const route of matchedRoutes(c)) {
    const id = ids.get(`${route.method} ${route.path}`);
    if (id) return id;
  }
  return null;
}

/** The code of a GraphQL answer's first error, or of a mutation's SandbankError result. */
function graphqlErrorCode(text: string | null): string | null {
  if (text === null) return null;
  const at = text.indexOf('"errors":[');
  if (at >= 0) return errorCodeOf(text.slice(at));
  const typed = text.indexOf('"__typename":"SandbankError"');
  return typed >= 0 ? errorCodeOf(text.slice(typed)) : null;
}

/**
 * The merchant of a GraphQL request Yoga refused before it ran the operation (a syntax or validation
 * error, an abuse limit), so before its context authenticated: found here, on that rare path only.
 */
async function refusedGraphQLMerchant(
  deps: AppDeps,
  request: Request,
): Promise<{ merchantId: string; viaSession: boolean } | null> {
  try {
    const authorization = request.headers.get('authorization');
    if (authorization !== null) {
      const principal = await authenticate(deps.database.db, authorization);
      return { merchantId: principal.merchant.id, viaSession: false };
    }
    if (request.headers.get(CSRF_HEADER) === null) return null;
    const session = await dashboardSessionPrincipal(deps, request);
    return session ? { merchantId: session.principal.merchant.id, viaSession: true } : null;
  } catch {
    return null;
  }
}

function queryOf(url: string): string | null {
  const at = url.indexOf('?');
  return at < 0 || at === url.length - 1 ? null : url.slice(at + 1);
}

function restBody(c: Context<RestEnv>): CapturedBody | null {
  const method = c.req.method;
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return null;
  const unparsed = c.get('unparsedBody');
  if (unparsed !== undefined) return { kind: 'text', text: unparsed };
  const body = c.get('body');
  return body === undefined ? null : { kind: 'json', value: body };
}

/** Whether an answer is JSON that sendJson did not write (a replayed answer): read from a copy. */
function unwrittenJson(c: Context<RestEnv>): boolean {
  return (
    c.get('responseText') === undefined &&
    !!c.res.body &&
    !!c.res.headers.get('content-type')?.includes('json')
  );
}

/**
 * Hands a request to the writer, if it is to be logged (`arrived`: when it came, epoch ms). Done at
 * once, but for the rare request whose capture reads something first (it then answers a promise).
 */
export type RequestLogCapture = (
  c: Context<RestEnv>,
  arrived: number,
  latencyMs: number,
) => Promise<void> | undefined;

/** The capture of an app: `rest`'s routes name the operations. */
export function requestLogCapture(
  deps: AppDeps,
  writer: RequestLogWriter,
  rest: OpenAPIHono<RestEnv>,
): RequestLogCapture {
  let ids: Map<string, string> | undefined;
  return (c, arrived, latencyMs) => {
    const graphql = c.get('graphqlLog');
    const principal = graphql ? undefined : c.get('principal');
    if ((!graphql && (!principal || !c.req.path.startsWith('/v1'))) || fixtureStepPrincipal(c.env)) return;
    const headers = c.req.raw.headers;
    const common = {
      id: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      idempotencyKey: headers.get('idempotency-key'),
      latencyMs,
      query: queryOf(c.req.raw.url),
      createdAt: new Date(arrived),
    };
    const userAgent = headers.get('user-agent');
    if (graphql) {
      if (graphql.readsLog) return;
      const add = (found: { merchantId: string; viaSession: boolean } | null) => {
        if (!found) return;
        writer.add({
          ...common,
          merchantId: found.merchantId,
          operation: graphql.operation,
          errorCode: graphqlErrorCode(graphql.responseText),
          source: sourceOf(userAgent, found.viaSession),
          requestBody:
            graphql.query === null && graphql.variables === undefined
              ? null
              : {
                  kind: 'graphql',
                  query: graphql.query,
                  operationName: graphql.operationName,
                  variables: graphql.variables,
                },
          responseBody: graphql.responseText,
        });
      };
      if (graphql.merchantId === null) return refusedGraphQLMerchant(deps, c.req.raw).then(add);
      add({ merchantId: graphql.merchantId, viaSession: graphql.viaSession });
      return;
    }
    if (!principal) return;
    ids ??= operationIds(rest.openAPIRegistry.definitions);
    const operation = restOperation(c, ids);
    if (operation !== null && UNLOGGED_OPERATIONS.has(operation)) return;
    const add = (responseBody: string | null) => {
      writer.add({
        ...common,
        merchantId: principal.merchant.id,
        operation,
        errorCode: c.res.status >= 400 ? errorCodeOf(responseBody) : null,
        source: sourceOf(userAgent, false),
        requestBody: restBody(c),
        responseBody,
      });
    };
    if (unwrittenJson(c)) return c.res.clone().text().then(add);
    add(c.get('responseText') ?? null);
  };
}

/**
 * A GraphQL answer kept for the log: its JSON text read once and the response made again from it
 * (a stream — a subscription's events, an incremental delivery — is passed on untouched).
 */
export async function keepGraphQLAnswer(response: Response, record: GraphQLRequestRecord): Promise<Response> {
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json') || !response.body) return response;
  const text = await response.text();
  record.responseText = text;
  return new Response(text, { status: response.status, headers: response.headers });
}
