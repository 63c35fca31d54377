import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ERROR_CODES } from '../../kernel/errors.ts';
import { FixtureFailureWire } from '../../modules/fixtures/fixtures.resource.ts';
import {
  ATTEMPT_TIMEOUT_MS,
  DISABLE_AFTER_FAILING_MS,
  RETRY_SCHEDULE_SECONDS,
} from '../../modules/webhooks/webhooks.attempt.ts';
import { eventTypePayloads } from '../../modules/webhooks/webhooks.payloads.ts';
import { PREVIOUS_SECRET_SECONDS } from '../../modules/webhooks/webhooks.service.ts';
import { CHAOS_FREE_PATHS, IDEMPOTENT_EXTENSION } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';

/**
 * The parts of the OpenAPI document no single operation owns: the error envelope, the headers,
 * the tags, the security schemes, and the servers (absolute, so a document saved to a file still
 * points at the server it came from).
 */

export const ErrorEnvelope = z
  .object({
    status: z.literal('error'),
    error: z.object({
      type: z
        .enum([
          'invalid_request_error',
          'authentication_error',
          'permission_error',
          'not_found_error',
          'conflict_error',
          'card_error',
          'rate_limit_error',
          'api_error',
        ])
        .meta({ description: 'The family of the error.' }),
      code: z.enum(ERROR_CODES).meta({ description: 'What went wrong; each operation lists its codes.' }),
      message: z.string().meta({ description: 'A sentence for the developer, not for end users.' }),
      param: z.string().optional().meta({ description: 'The request field at fault, when one is.' }),
      decline_code: z.string().optional().meta({ description: 'Why a card was declined (card_declined).' }),
      payment_id: z
        .string()
        .optional()
        .meta({ description: 'The declined payment, which is recorded (card_declined).' }),
      fixture: FixtureFailureWire.optional().meta({
        description: 'The failed step and the steps that ran before it (fixture_step_failed).',
      }),
    }),
    request_id: z.string().meta({ description: 'The Request-Id of this request (quote it in reports).' }),
  })
  .meta({ id: 'Error', description: 'The body of every 4xx and 5xx answer.' });

const TAGS = [
  ['Merchants', 'Sandbox sign-up and API keys.'],
  ['Collections', 'Hosted checkout: ask a payer for an amount, by card or bank.'],
  ['Card payments', 'Card tokens, authorizations, captures, voids and refunds.'],
  ['Disputes', 'Disputes of card payments: chargebacks and inquiries, evidence, acceptance.'],
  ['Transfers', 'ACH, Same-Day ACH, RTP, FedNow and wire transfers on the Federal Reserve calendar.'],
  ['Payouts', 'Payouts from the balance to a bank account.'],
  ['Inbound transfers', 'Money from outside originators: ACH credits and debits, RTP and FedNow credits.'],
  ['Payment requests', 'Requests for payment on RTP and FedNow, sent and received.'],
  ['Counterparties', 'Saved bank accounts transfers name: notifications of change, account verification.'],
  ['Virtual cards', 'Issued virtual cards, their spending controls and authorizations.'],
  ['Foreign exchange', 'Rates, quotes, conversions and settlements abroad (EUR, GBP, JPY).'],
  ['Balances', 'Balances and the ledger entries behind them.'],
  [
    'Statements',
    "Bank statements (BAI2, camt.053, the intraday camt.052), the merchant's ACH files (NACHA) and the ISO 20022 messages of its instant and wire payments.",
  ],
  ['Reconciliation', 'Expected payments, matched automatically against the bank movements.'],
  ['Transactions', 'Every money movement in one list.'],
  ['Clock', "The merchant's simulated clock: banking time moves when it does."],
  ['Events', 'Every state change, as an event; types and redeliveries.'],
  ['Webhooks', 'Endpoints that receive events, signed; their delivery logs.'],
  [
    'Conformance',
    "Conformance runs: a fixed suite of deliveries that judges the merchant's webhook handler.",
  ],
  ['Request log', 'Every API request of the merchant, with what it answered: filters and assertions.'],
  ['Simulation', 'Steps a real bank or payer would take, on demand.'],
] as const;

/** Registers the shared components on the REST app's registry (once, before the operations). */
export function registerSharedComponents(api: OpenAPIHono<RestEnv>): void {
  const registry = api.openAPIRegistry;
  registry.register('Error', ErrorEnvelope);
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'sk_test_… secret key (pk_test_… public key for tokenization only)',
  });
  registry.registerComponent('securitySchemes', 'basic', {
    type: 'http',
    scheme: 'basic',
    description: 'The same key as the user name, any password (curl -u sk_test_…:)',
  });
  const headers: Record<string, { description: string; required?: boolean; type: 'string' | 'integer' }> = {
    'Request-Id': {
      description: 'The id of this request (in logs and error bodies).',
      required: true,
      type: 'string',
    },
    'Idempotent-Replayed': {
      description:
        '"true" when this answer is the stored one of an earlier request with the same Idempotency-Key.',
      type: 'string',
    },
    'RateLimit-Limit': {
      description: 'Requests allowed per second for this key (when the server limits).',
      type: 'integer',
    },
    'RateLimit-Remaining': { description: 'Requests left in the current second.', type: 'integer' },
    'RateLimit-Reset': { description: 'Seconds until the allowance refills.', type: 'integer' },
    'Retry-After': { description: 'Seconds to wait before retrying.', type: 'integer' },
    'Sandbank-Chaos-Injected': {
      description:
        'The faults chaos injected into this request (docs/guide/chaos.md), e.g. "latency=200ms; error=503"; absent when none.',
      type: 'string',
    },
  };
  for (const [name, { description, required, type }] of Object.entries(headers)) {
    registry.registerComponent('headers', name, {
      description,
      ...(required ? { required } : {}),
      schema: { type },
    });
  }
  registry.registerComponent('parameters', 'IdempotencyKey', {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a POST safe to retry: the first answer is stored for 24 hours and replayed for the same key and body; another body with the key is idempotency_key_reused.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  });
  registry.registerComponent('parameters', 'SandbankChaos', {
    name: 'Sandbank-Chaos',
    in: 'header',
    required: false,
    description:
      'Faults to inject before the operation runs, to test retries and timeouts (docs/guide/chaos.md): e.g. "latency=200ms; error=0.3; status=503; seed=42", or "none" to opt out of the merchant\'s chaos setting. Malformed: 400 parameter_invalid.',
    schema: { type: 'string', minLength: 1, maxLength: 500 },
  });
}

type Document = ReturnType<OpenAPIHono<RestEnv>['getOpenAPI31Document']>;

/**
 * The document as served from `publicUrl`: generated from the operations, with the servers made
 * absolute, the Sandbank-Chaos header on every keyed operation (but the chaos setting's) and the
 * Idempotency-Key header on every keyed POST (but those marked `x-idempotent: false`).
 */
export function buildDocument(api: OpenAPIHono<RestEnv>, publicUrl: string): Document {
  const document = api.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Sandbank API',
      version: '1',
      description:
        'A self-hosted payment simulation sandbox. Every 2xx body has "status": "success"; every error body is an Error. Request bodies are JSON, or form-encoded with bracket notation (metadata[order]=1, enabled_events[]=a) as Stripe clients send them.',
    },
    servers: [{ url: `${publicUrl}/v1`, description: 'This Sandbank server' }],
    tags: TAGS.map(([name, description]) => ({ name, description })),
  });
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (!CHAOS_FREE_PATHS.has(path))
      for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
        const op = item?.[method];
        if (!op || (Array.isArray(op.security) && op.security.length === 0)) continue;
        op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/SandbankChaos' }];
      }
    const post = item?.post;
    if (!post || (Array.isArray(post.security) && post.security.length === 0)) continue;
    if ((post as Record<string, unknown>)[IDEMPOTENT_EXTENSION] === false) continue;
    post.parameters = [...(post.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
  }
  document.webhooks = webhooksSection();
  declareFormBodies(document);
  return document;
}

/** 5 → "5 s", 300 → "5 min", 7200 → "2 h", 86400 → "24 h", 432000 → "5 days". */
function duration(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds > 86_400) return `${seconds / 86_400} days`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The Standard Webhooks headers of every delivery (webhooks.signing.ts), as header parameters. */
const WEBHOOK_HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      "The message id: the event's id (the body's `id`), the same on every attempt and redelivery, so a receiver can drop duplicates.",
    schema: { type: 'string', pattern: '^evt_[A-Za-z0-9]+$' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description:
      "When this attempt was signed, in Unix seconds of real time (not the merchant's clock): receivers refuse one too far from their own clock.",
    schema: { type: 'integer', minimum: 0 },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description: `v1, and the base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" keyed with the endpoint's secret (the bytes whose base64 follows whsec_). For ${duration(PREVIOUS_SECRET_SECONDS)} of clock time after a rotation, a second signature by the previous secret follows, after a space.`,
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?$' },
  },
] as const;

/** What a receiver's answer does (webhooks.attempt.ts). */
const ACKNOWLEDGED = `Any 2xx answer (within ${duration(ATTEMPT_TIMEOUT_MS / 1000)}) acknowledges the delivery; redirects are not followed. Any other answer, or none, is retried after ${RETRY_SCHEDULE_SECONDS.map(duration).join(', ')} of the merchant's clock (up to 10% later); an endpoint whose deliveries failed for ${duration(DISABLE_AFTER_FAILING_MS / 1000)} is disabled.`;

/** `card_payment.authorized` → `cardPaymentAuthorized`. */
const camel = (type: string) =>
  type.replace(/[._]([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * The document's `webhooks`: one entry per event type the server can emit (the list GET
 * /v1/event_types answers), each a POST the server makes to the merchant's endpoint, with the
 * event envelope of its kind (`data.object` the kind's component) and the type pinned, signed with
 * the Standard Webhooks headers.
 */
function webhooksSection(): NonNullable<Document['webhooks']> {
  const webhooks: NonNullable<Document['webhooks']> = {};
  for (const { type, component } of eventTypePayloads()) {
    webhooks[type] = {
      post: {
        operationId: `${camel(type)}Webhook`,
        tags: ['Webhooks'],
        summary: type,
        description: `${
          type === 'webhook.test'
            ? 'Sent only to the endpoint POST /v1/webhook_endpoints/{id}/test names, whatever its enabled_events'
            : `Sent to each enabled endpoint subscribed to ${type} (or to "*")`
        }; POST /v1/events/{id}/redeliver sends it again. Verify the signature over the raw body before parsing it.`,
        security: [],
        parameters: WEBHOOK_HEADERS.map((header) => ({ ...header, schema: { ...header.schema } })),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                allOf: [
                  { $ref: `#/components/schemas/${component}` },
                  { type: 'object', properties: { type: { const: type } }, required: ['type'] },
                ],
              },
            },
          },
        },
        responses: {
          '200': { description: ACKNOWLEDGED },
          '410': { description: 'Gone: the endpoint is disabled at once, and nothing more is sent to it.' },
        },
      },
    };
  }
  return webhooks;
}

/**
 * Every JSON request body may also be sent form-encoded (`rest/form-body.ts`): the same schema,
 * under `application/x-www-form-urlencoded`, its nested fields in bracket notation.
 */
function declareFormBodies(document: Document): void {
  for (const item of Object.values(document.paths ?? {})) {
    const body = item?.post?.requestBody;
    if (!body || '$ref' in body) continue;
    const json = body.content['application/json'];
    if (json?.schema) body.content['application/x-www-form-urlencoded'] = { schema: json.schema };
  }
}
