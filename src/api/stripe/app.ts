import { type Context, Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MAX_BODY_BYTES, readBodyText } from '../../http/body-limit.ts';
import { parseFormBody } from '../../http/form-body-parse.ts';
import { SandbankError } from '../../kernel/errors.ts';
import {
  fingerprintOf,
  parseIdempotencyKey,
  runIdempotent,
} from '../../modules/idempotency/idempotency.service.ts';
import { authenticate, requireSecretKey } from '../../modules/merchants/authentication.ts';
import { StripeError } from '../../modules/stripe/stripe.errors.ts';
import { STRIPE_EVENT_API_VERSION } from '../../modules/stripe/stripe.events.rules.ts';
import { retrieveIntent } from '../../modules/stripe/stripe.payment-intents.read.ts';
import { type RenderScope, renderIntent } from '../../modules/stripe/stripe.render.ts';
import { serviceContext } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { canonicalBody } from '../rest/middleware/idempotency.ts';
import { rateLimit } from '../rest/middleware/rate-limit.ts';
import { stripeErrorBody, toStripeError } from './errors.ts';
import { Params } from './params.ts';
import { mountBalance } from './routes-balance.ts';
import { mountCharges } from './routes-charges.ts';
import { mountCheckout } from './routes-checkout.ts';
import { changesClock } from './routes-clocks.ts';
import { mountCustomers } from './routes-customers.ts';
import { mountPaymentMethods } from './routes-customers-methods.ts';
import { mountEvents } from './routes-events.ts';
import { mountPaymentIntents } from './routes-payment-intents.ts';
import { unsupported } from './unsupported.ts';

/**
 * The Stripe dialect: Stripe's API over Sandbank's engine, for Stripe's own clients
 * (docs/guide/stripe.md). Mounted at /stripe on the main port (/stripe/v1/…) and served at the
 * root of its own port (STRIPE_PORT, /v1/…). Same merchants and keys; form bodies with bracket
 * notation; Stripe's errors, lists, expansions and idempotency.
 */

export interface StripeEnv {
  Variables: RestEnv['Variables'] & { params: Params };
}

/** The API version answered when a request names none (any named one is accepted and echoed). */
export const STRIPE_API_VERSION = STRIPE_EVENT_API_VERSION;

async function readParams(c: Context<StripeEnv>): Promise<Params> {
  const query = new URL(c.req.url).search.slice(1);
  const fromQuery = query ? parseFormBody(query) : {};
  if (c.req.method === 'GET' || c.req.method === 'DELETE') return new Params(fromQuery);
  const text = await readBodyText(c.req.raw, c.req.header('content-length'));
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (text.trim() !== '' && type.includes('json'))
    throw new StripeError(400, {
      type: 'invalid_request_error',
      message:
        'Stripe takes form-encoded bodies (application/x-www-form-urlencoded), not JSON; so does its dialect.',
    });
  return new Params({ ...fromQuery, ...(text ? parseFormBody(text) : {}) });
}

export function buildStripeApp(rateLimitPerSecond: number): Hono<StripeEnv> {
  const app = new Hono<StripeEnv>();
  app.onError(async (error, c) => {
    const known = toStripeError(error);
    if (known.status >= 500 && !(error instanceof StripeError) && !(error instanceof SandbankError))
      c.get('deps').logger.error(
        { err: error, request_id: c.get('requestId') },
        'unhandled error (Stripe dialect)',
      );
    // A declined confirmation names its PaymentIntent, as it now stands, as Stripe does.
    const intentId = known.fields.paymentIntentId;
    const intent = intentId
      ? renderIntent(await retrieveIntent(contextOf(c), intentId), scopeOf(c, new Set()))
      : undefined;
    return c.json(stripeErrorBody(known, intent), known.status as ContentfulStatusCode);
  });
  app.use(
    '*',
    createMiddleware<StripeEnv>(async (c, next) => {
      c.header('Stripe-Version', c.req.header('stripe-version') ?? STRIPE_API_VERSION);
      // A body declared too big is refused first, whatever the method (read bodies: readBodyText).
      if (Number(c.req.header('content-length')) > MAX_BODY_BYTES)
        throw new SandbankError('payload_too_large');
      await next();
    }),
    createMiddleware<StripeEnv>(async (c, next) => {
      const principal = await authenticate(c.get('deps').database.db, c.req.header('authorization'));
      c.set('principal', principal);
      requireSecretKey(principal);
      c.set('clock', await c.get('deps').clockFor(principal.merchant.id));
      await next();
    }),
    rateLimit(rateLimitPerSecond) as never,
    createMiddleware<StripeEnv>(async (c, next) => {
      c.set('params', await readParams(c));
      await next();
    }),
    stripeIdempotency,
  );
  // Stripe's search of the resources served here but customers: before their `/{id}` routes.
  for (const resource of ['payment_intents', 'charges', 'payment_methods', 'refunds'])
    app.get(`/v1/${resource}/search`, (c) => unsupported(c));
  mountPaymentIntents(app);
  mountPaymentMethods(app);
  mountCharges(app);
  mountCustomers(app);
  mountCheckout(app);
  mountEvents(app);
  mountBalance(app);
  app.all('*', (c) => unsupported(c));
  return app;
}

/**
 * Stripe's Idempotency-Key on a POST: the first answer (a success, or a declined card, whose attempt
 * is kept) is stored with the writes, in one transaction, and replayed with Idempotent-Replayed;
 * the same key with other parameters is an idempotency_error. The keys are the merchant's, shared
 * with the native API (a key used there and reused here differs in its request).
 */
const stripeIdempotency = createMiddleware<StripeEnv>(async (c, next) => {
  const header = c.req.header('idempotency-key');
  if (c.req.method !== 'POST' || header === undefined) return next();
  const key = parseIdempotencyKey(header);
  const deps = c.get('deps');
  const fingerprint = fingerprintOf(
    'stripe',
    c.req.method,
    c.req.path,
    canonicalBody(c.get('params').snapshot()),
  );
  const { outcome, replayed } = await runIdempotent(
    deps.database.db,
    c.get('clock'),
    { merchantId: c.get('principal').merchant.id, key, fingerprint },
    async (tx) => {
      c.set('tx', tx);
      try {
        await next();
      } finally {
        c.set('tx', undefined);
      }
      const error = c.error;
      const keep = c.res.status < 400 || (error instanceof StripeError && error.commitWrites);
      if (!keep) return { outcome: null, store: false };
      return { outcome: { status: c.res.status, body: await c.res.clone().text() }, store: true };
    },
    // A test clock's advance commits batch by batch: its answer is stored after it (as REST's advance).
    { ownTransactions: changesClock(c.req.method, c.req.path) },
  );
  if (replayed && outcome)
    c.res = new Response(outcome.body, {
      status: outcome.status,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'Idempotent-Replayed': 'true',
        'Stripe-Version': c.req.header('stripe-version') ?? STRIPE_API_VERSION,
      },
    });
});

/** The service context of a dialect request (the native one's: its merchant, clock and transaction). */
export function contextOf(c: Context<StripeEnv>) {
  return serviceContext(c as unknown as Context<RestEnv>);
}

/** How a request's objects are rendered: the hosted pages' address, the clock's time, the expansions. */
export function scopeOf(c: Context<StripeEnv>, expand: ReadonlySet<string>): RenderScope {
  return { publicUrl: c.get('deps').publicUrl, now: c.get('clock').now(), expand };
}
