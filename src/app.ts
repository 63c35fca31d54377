import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { routePath } from 'hono/route';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { getPath } from 'hono/utils/url';
import type { GraphQLChaosRecord } from './api/graphql/chaos.ts';
import { buildGraphiQLAssets, GRAPHIQL_CSP } from './api/graphql/graphiql.ts';
import { graphqlLanes } from './api/graphql/lanes.ts';
import { type LazyYoga, lazyYoga, printedSchemaOnce } from './api/graphql/lazy.ts';
import { buildRestApp } from './api/rest/app.ts';
import { buildStripeApp } from './api/stripe/app.ts';
import type { AppDeps } from './deps.ts';
import { MAX_BODY_BYTES } from './http/body-limit.ts';
import { graphqlRequestRecord } from './http/request-log-record.ts';
import { pageSecurityHeaders } from './http/security.ts';
import { refuseUnstorableInput, refuseUnstorablePath } from './http/storable-text.ts';
import { SandbankError } from './kernel/errors.ts';
import { newId } from './kernel/ids.ts';
import { CHAOS_INJECTED_HEADER } from './modules/chaos/chaos.grammar.ts';
import { countWebhookChaosInto } from './modules/chaos/chaos.service.ts';
import { bindFixtureDispatcher, FIXTURE_STEP } from './modules/fixtures/fixtures.service.ts';
import { registerModules } from './modules/index.ts';
import { registerReactions } from './modules/reactions.ts';
import { requestLogWriter } from './modules/request-log/request-log.writer.ts';
import type { Metrics } from './observability.ts';
import { keepGraphQLAnswer, type RequestLogCapture, requestLogCapture } from './request-log-capture.ts';
import { retryAfterOf, sendError, toSandbankError } from './rest/render.ts';
import type { RestEnv } from './rest/types.ts';
import { buildChallengePages } from './web/challenge.ts';
import { buildCheckout } from './web/checkout.ts';
import { buildDashboard } from './web/dashboard/app.ts';
import { buildDocs } from './web/docs.ts';
import { buildFavicon } from './web/favicon.ts';
import { landingPage } from './web/landing.ts';
import { buildPageAssets } from './web/layout.ts';

export interface AppOptions {
  deps: AppDeps;
  metrics?: Metrics;
  /** False while the server is shutting down: /readyz answers 503. */
  isReady?: () => boolean;
  /** The Yoga instance to serve /graphql with (server.ts shares it with graphql-ws); built if absent. */
  yoga?: LazyYoga;
}

/** How long /readyz waits for the database's answer before it says 503. */
const READY_PROBE_MS = 900;

/** The metrics already counting this process's webhook chaos. */
const countingWebhookChaos = new WeakSet<Metrics>();

/** Paths answered with the API's JSON error envelope (the others are pages). */
function isApiPath(path: string): boolean {
  return path.startsWith('/v1') || path.startsWith('/graphql');
}

/** The whole HTTP surface: /v1 (REST), /graphql, /checkout, /docs and the health endpoints. */
export function buildApp({
  deps,
  metrics,
  isReady = () => true,
  yoga = lazyYoga(deps.publicUrl),
}: AppOptions) {
  registerModules();
  registerReactions();
  // Webhook chaos is injected by the delivery worker, outside any request: counted here too.
  if (metrics && !countingWebhookChaos.has(metrics)) {
    countingWebhookChaos.add(metrics);
    countWebhookChaosInto((fault, status) => metrics.chaos.inc({ fault, status }));
  }
  const app = new Hono<RestEnv>({ getPath: routedPath });
  // The request log (docs/guide/request-log.md): set once the REST app is built, null when it is off.
  let capture: RequestLogCapture | null = null;

  app.use('*', async (c, next) => {
    const requestId = newId('request');
    const started = performance.now();
    const arrived = capture ? Date.now() : 0;
    c.set('deps', deps);
    c.set('requestId', requestId);
    if (metrics) metrics.inFlight.value++;
    try {
      await next();
    } finally {
      if (metrics) metrics.inFlight.value--;
    }
    c.res.headers.set('Request-Id', requestId);
    // While shutting down, keep-alive clients are told to go: no new request rides an old socket.
    if (!isReady()) c.res.headers.set('Connection', 'close');
    const seconds = (performance.now() - started) / 1000;
    const route = routePath(c);
    metrics?.requests.inc({ method: c.req.method, route, status: String(c.res.status) });
    metrics?.duration.observe({ method: c.req.method, route }, seconds);
    for (const fault of c.get('chaosFaults') ?? [])
      metrics?.chaos.inc({ fault, status: String(c.res.status) });
    if (capture && isApiPath(c.req.path)) {
      try {
        const reading = capture(c, arrived, Math.round(seconds * 1000));
        if (reading) await reading;
      } catch (error) {
        deps.logger.warn({ err: error, request_id: requestId }, 'request log: the request was not captured');
      }
    }
    const level = c.res.status >= 500 ? 'error' : 'debug';
    deps.logger[level](
      {
        request_id: requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(seconds * 1000),
      },
      'request',
    );
  });

  app.onError((error, c) => {
    const known = toSandbankError(error);
    if (known.code === 'internal_error')
      deps.logger.error({ err: error, request_id: c.get('requestId') }, 'unhandled error');
    if (!isApiPath(c.req.path)) {
      const retryAfter = retryAfterOf(known);
      if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
      return c.text(known.message, known.status as ContentfulStatusCode);
    }
    return sendError(c, known);
  });

  app.notFound((c) => {
    if (isApiPath(c.req.path)) {
      return sendError(
        c,
        new SandbankError('route_not_found', { message: `No route ${c.req.method} ${c.req.path}.` }),
      );
    }
    // The Stripe dialect's paths answer as Stripe does (an id no column can hold reaches here).
    if (c.req.path.startsWith('/stripe/'))
      return c.json(
        { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${c.req.method}).` } },
        404,
      );
    return c.text('Not found', 404);
  });

  app.use(
    '*',
    refuseUnstorablePath(isApiPath, (c) => c.notFound()),
  );
  const rest = buildRestApp(deps.rateLimitPerSecond);
  app.route('/v1', rest);
  // The Stripe dialect (docs/guide/stripe.md): here under /stripe, and at the root of its own port (stripeFetch).
  app.route('/stripe', buildStripeApp(deps.rateLimitPerSecond) as never);
  const writer = requestLogWriter(deps.database.db, deps.requestLog, deps.logger);
  if (writer.settings.enabled) capture = requestLogCapture(deps, writer, rest);
  // Fixtures run each step as a request to this app, as the merchant that applies them.
  bindFixtureDispatcher(deps.database.db, {
    async send(principal, { method, path, body }) {
      const response = await app.fetch(
        new Request(`http://sandbank.internal${path}`, {
          method,
          ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
        }),
        { [FIXTURE_STEP]: principal },
      );
      // Every operation of /v1 answers a JSON object; anything else fails the step, never the run.
      const text = await response.text();
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        answer = undefined;
      }
      if (answer === null || typeof answer !== 'object' || Array.isArray(answer))
        answer = {
          error: {
            type: 'api_error',
            code: 'fixture_step_failed',
            message: `The step's answer is not a JSON object (${response.headers.get('content-type') ?? 'no content type'}).`,
          },
        };
      return { status: response.status, body: answer as Record<string, unknown> };
    },
    operations: () =>
      rest.openAPIRegistry.definitions.flatMap((definition) =>
        definition.type === 'route'
          ? [
              {
                method: definition.route.method.toUpperCase(),
                path: `/v1${definition.route.path}`,
                keyless: definition.route.security?.length === 0,
              },
            ]
          : [],
      ),
  });
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => sendError(c as never, new SandbankError('payload_too_large')),
  });
  app.use('/graphql', limitBody);
  // GraphiQL is a page like the others (GET /graphql; JSON answers carry the headers harmlessly),
  // except that its editor applies inline styles (graphiql.ts).
  app.use('/graphql', pageSecurityHeaders({ csp: GRAPHIQL_CSP }));
  app.route('/graphql/assets', buildGraphiQLAssets());
  app.use('/checkout/*', limitBody, refuseUnstorableInput);
  app.use('/3ds/*', limitBody, refuseUnstorableInput);
  app.get('/graphql/schema.graphql', async (c) =>
    c.text(await printedSchemaOnce(), 200, { 'content-type': 'text/plain; charset=utf-8' }),
  );
  const inLane = graphqlLanes();
  app.on(['GET', 'POST', 'OPTIONS'], '/graphql', async (c) => {
    const chaos: GraphQLChaosRecord = { injected: [], faults: [], retryAfter: null };
    const requestLog = capture ? graphqlRequestRecord() : undefined;
    c.set('graphqlLog', requestLog);
    const answer = await inLane(c.req.raw, async () =>
      (await yoga()).fetch(c.req.raw, { deps, requestId: c.get('requestId'), chaos, requestLog }),
    );
    const response = requestLog ? await keepGraphQLAnswer(answer, requestLog) : answer;
    if (chaos.injected.length === 0) return response;
    // Chaos faulted or slowed the operation (api/graphql/chaos.ts): said in headers, counted in /metrics.
    c.set('chaosFaults', chaos.faults);
    const headers = new Headers(response.headers);
    headers.set(CHAOS_INJECTED_HEADER, chaos.injected.join('; '));
    if (chaos.retryAfter !== null) headers.set('Retry-After', String(chaos.retryAfter));
    return new Response(response.body, { status: response.status, headers });
  });
  app.route('/checkout', buildCheckout());
  app.route('/3ds', buildChallengePages());
  app.route('/assets', buildPageAssets());
  app.route('/docs', buildDocs());
  app.route('/dashboard', buildDashboard() as never);
  app.get('/', pageSecurityHeaders(), landingPage);
  app.route('/', buildFavicon());
  app.get('/healthz', (c) => c.json({ status: 'success' }));
  // Ready when the database answers a probe within READY_PROBE_MS; at once 503 while it is known to
  // be unreachable (db/availability.ts), with the API's code and Retry-After.
  app.get('/readyz', async (c) => {
    if (!isReady()) return c.json({ status: 'error', reason: 'shutting down' }, 503);
    const { availability } = deps.database;
    try {
      if (!availability.up) throw new Error('the database is unreachable');
      await availability.probe(READY_PROBE_MS);
      return c.json({ status: 'success', database: deps.database.driver });
    } catch {
      const known = new SandbankError('database_unavailable');
      c.header('Retry-After', String(retryAfterOf(known)));
      return c.json({ status: 'error', code: known.code, reason: 'database unavailable' }, 503);
    }
  });
  app.get('/metrics', async (c) => {
    if (!metrics) return c.text('', 404);
    return c.text(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType });
  });
  return app;
}

/** Marks a request that came to the Stripe dialect's own port (the key of the environment). */
const ON_STRIPE_PORT = Symbol('sandbank.stripe-port');

/**
 * The path the app routes a request by: its own, or on the Stripe dialect's port the dialect's
 * (`/v1/charges` is `/stripe/v1/charges`). The request itself is passed on untouched: its body is
 * still read straight from the socket.
 */
function routedPath(request: Request, options?: { env?: unknown }): string {
  const path = getPath(request);
  const env = options?.env;
  return env && typeof env === 'object' && ON_STRIPE_PORT in env ? `/stripe${path}` : path;
}

/**
 * The app as the Stripe dialect's own port serves it: every path is the dialect's, so that a Stripe
 * client needs only its host and port.
 */
export function stripeFetch(app: ReturnType<typeof buildApp>): typeof app.fetch {
  return (request, env, executionContext) =>
    app.fetch(
      request,
      { ...(env && typeof env === 'object' ? env : {}), [ON_STRIPE_PORT]: true },
      executionContext,
    );
}
