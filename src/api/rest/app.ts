import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { fixtureStepPrincipal } from '../../modules/fixtures/fixtures.service.ts';
import { MODULES, registerModules } from '../../modules/index.ts';
import { mountOperations } from '../../rest/mount.ts';
import { validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { bodySchemaLookup } from './form-body.ts';
import { requireKey } from './middleware/auth.ts';
import { chaos } from './middleware/chaos.ts';
import { idempotency } from './middleware/idempotency.ts';
import { requestBody } from './middleware/json-body.ts';
import { heavyLanes } from './middleware/lanes.ts';
import { objectGates } from './middleware/object-gates.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { buildDocument, registerSharedComponents } from './openapi.ts';

/** Routes that answer without an API key: the OpenAPI document and the sandbox sign-up. */
const PUBLIC_ROUTES = new Set(['GET /v1/openapi.json', 'POST /v1/merchants']);
/** The public key may call only tokenization. */
const PUBLIC_KEY_ROUTES = new Set(['POST /v1/tokens']);

/** The /v1 REST API: conventions applied once, then every module's routes. */
export function buildRestApp(rateLimitPerSecond: number): OpenAPIHono<RestEnv> {
  // The registries some schemas are derived from (event types, reset kinds), filled first: the
  // document may be built without an app (npm run schema:print).
  registerModules();
  // Every operation's validation failures are the registry's errors, including operations that
  // register no hook of their own.
  const api = new OpenAPIHono<RestEnv>({ defaultHook: validationHook() });
  const auth = requireKey({ publicKeyAllowed: (method, path) => PUBLIC_KEY_ROUTES.has(`${method} ${path}`) });
  const limiter = rateLimit(rateLimitPerSecond);
  const unlessPublic = (handler: MiddlewareHandler<RestEnv>) =>
    createMiddleware<RestEnv>(async (c, next) =>
      PUBLIC_ROUTES.has(`${c.req.method} ${c.req.path}`) ? next() : handler(c, next),
    );
  // A fixture's steps (modules/fixtures) count once, as the request that applies them: no rate limit
  // and no chaos of their own.
  const unlessStep = (handler: MiddlewareHandler<RestEnv>) =>
    createMiddleware<RestEnv>(async (c, next) => (fixtureStepPrincipal(c.env) ? next() : handler(c, next)));
  // A form body is read with the schema of the operation it reaches (rest/form-body.ts).
  const body = requestBody(bodySchemaLookup(() => api.openAPIRegistry.definitions));
  // Chaos faults a request before its body is read or its Idempotency-Key is looked at.
  api.use(
    '*',
    unlessPublic(auth),
    unlessPublic(unlessStep(limiter)),
    // A fixture's steps run in the lane of the request that applies them.
    unlessPublic(unlessStep(heavyLanes())),
    unlessPublic(unlessStep(chaos())),
    body,
    unlessPublic(objectGates),
    unlessPublic(idempotency),
  );
  registerSharedComponents(api);
  // Every module's operations, then its hand-written routes, in the modules' order (src/modules/index.ts).
  for (const module of MODULES) {
    if (module.operations) mountOperations(api, module.operations);
    module.routes?.(api);
  }
  const documents = new Map<string, ReturnType<typeof buildDocument>>();
  api.get('/openapi.json', (c) => {
    const { publicUrl } = c.get('deps');
    let document = documents.get(publicUrl);
    if (!document) {
      document = buildDocument(api, publicUrl);
      documents.set(publicUrl, document);
    }
    return c.json(document);
  });
  return api;
}
