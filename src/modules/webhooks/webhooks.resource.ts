import { z } from 'zod';
import { defineObject, field, type ObjectDecl, type RenderContext, withWire } from '../../kernel/declare.ts';
import { timestamp, type Wire, wireAnswer } from '../../kernel/wire-resources.ts';
import { derived } from '../registry.ts';
import { ALL_EVENTS, listEventTypes } from './webhooks.event-types.ts';
import type { AttemptRow, DeliveryLog } from './webhooks.log.ts';
import type { EventTypePayload } from './webhooks.payloads.ts';
import { faultOfLabel, WEBHOOK_CHAOS_FAULTS } from './webhooks.sending.ts';
import { webhookDeliveries, type webhookEndpoints } from './webhooks.table.ts';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

const nullableText = (description: string) => z.string().nullable().meta({ description });
const nullableTimestamp = (description: string) => timestamp.nullable().meta({ description });
/** An event type the sandbox sends (the list of GET /v1/event_types), one component for every use. */
export const EventTypeNameWire = z.lazy(
  derived(() =>
    z
      .enum(listEventTypes() as [string, ...string[]])
      .meta({ id: 'EventTypeName', description: 'An event type the sandbox sends (GET /v1/event_types).' }),
  ),
);

const endpointFields = {
  url: field.url<EndpointRow>('Where events are POSTed (http or https).', (row) => row.url),
  description: field.nullableText("The merchant's note about it, given on create or update."),
  enabled_events: field.strings<EndpointRow>(
    z
      .array(
        z
          .union([z.literal(ALL_EVENTS).meta({ description: 'Every type.' }), EventTypeNameWire])
          .meta({ description: 'An event type, or "*" for every type.' }),
      )
      .meta({ description: 'The event types delivered to it, or ["*"] for all (eventTypes lists them).' }),
  ),
  enabled: field.boolean('Whether events are delivered to it.'),
  disabled_reason: field.nullableText(
    'Why it is disabled: the receiver answered 410 Gone, deliveries failed for 5 days, or the merchant disabled it; null while enabled.',
  ),
  failing_since: field.nullableTimestamp(
    "When its deliveries started failing (the merchant's clock); null while they succeed.",
  ),
  created_at: field.createdAt(),
  updated_at: field.updatedAt(),
};

export const WebhookEndpoint = defineObject<EndpointRow>()(
  'WebhookEndpoint',
  'webhook_endpoint',
  'Where the merchant receives events, signed per Standard Webhooks. Its secret is shown on create and rotate only.',
  endpointFields,
);

export const WebhookEndpointWithSecret = defineObject<EndpointRow>()(
  'WebhookEndpointWithSecret',
  'webhook_endpoint',
  'A webhook endpoint with its signing secret: the answer of create and rotate_secret, the only ones that show it.',
  {
    ...endpointFields,
    secret: field.custom<EndpointRow>(
      z.string().meta({
        pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
        description:
          'The Standard Webhooks signing secret: whsec_ and the base64 of 32 random bytes. After a rotation the previous one signs too, for 24 h of clock time.',
      }),
      (row) => row.secret,
    ),
  },
);

export const DeletedWebhookEndpointWire = z
  .object({
    id: z.string().meta({ description: 'The id of the deleted webhook endpoint.' }),
    object: z.literal('webhook_endpoint').meta({ description: 'The kind of object.' }),
    deleted: z.literal(true).meta({ description: 'Always true.' }),
  })
  .meta({
    id: 'DeletedWebhookEndpoint',
    description: 'A deleted webhook endpoint: its pending deliveries ended as failed.',
  });

export const WebhookAttemptWire = z
  .object({
    id: z.string().meta({ description: 'Unique id of the attempt.' }),
    attempted_at: timestamp.meta({
      format: 'date-time',
      description: "When the attempt was made, on the merchant's clock.",
    }),
    status: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The receiver's HTTP status; null when no answer came (see error)." }),
    duration_ms: z.number().int().meta({ description: 'How long the attempt took, in real milliseconds.' }),
    response_body: nullableText("The start of the receiver's answer (at most 2048 bytes)."),
    error: nullableText('Why no answer came (connection refused, timeout, address refused).'),
    next_retry_at: nullableTimestamp('When the next attempt is due after this one; null when none follows.'),
    chaos: nullableText(
      'The webhook chaos this attempt carried (docs/guide/chaos.md): "duplicate" (the event sent a second time, same webhook-id), "delayed 5000ms" (held that long before it was sent), "reordered" (held back until a later event of the endpoint was sent) or "held back 5000ms (no later event passed it)"; null when none.',
    ),
    chaos_fault: z.enum(WEBHOOK_CHAOS_FAULTS).nullable().meta({
      description: 'The kind of webhook chaos of this attempt (duplicate, delay, reorder); null when none.',
    }),
  })
  .meta({ id: 'WebhookAttempt', description: 'One HTTP POST of a delivery and its outcome.' });

/** A delivery with its attempt log and its event's type (e.g. collection.succeeded). */
export type DeliveryNode = DeliveryLog & { id: string };
export const deliveryNode = (log: DeliveryLog): DeliveryNode => ({ ...log, id: log.delivery.id });
const pending = (log: DeliveryNode) => log.delivery.state === 'pending';

export const WebhookDelivery = defineObject<DeliveryNode>()(
  'WebhookDelivery',
  'webhook_delivery',
  'One event delivered (or being delivered) to one endpoint: its state and the log of its attempts.',
  {
    event: field.ref<DeliveryNode>('event', (log) => log.delivery.eventId),
    // A String on GraphQL; REST names its component (and may leave it out).
    event_type: withWire(field.text<DeliveryNode>(''), EventTypeNameWire.optional()),
    endpoint: field.ref<DeliveryNode>('webhook endpoint', (log) => log.delivery.endpointId),
    state: field.enum<DeliveryNode, typeof webhookDeliveries.state.enumValues>(
      webhookDeliveries.state.enumValues,
      'pending (an attempt is due at next_attempt_at), delivered (a receiver answered 2xx) or failed (retries exhausted, endpoint disabled or deleted).',
      (log) => log.delivery.state,
    ),
    attempt_count: field.int<DeliveryNode>(
      'Attempts made in the current series.',
      (log) => log.delivery.attempts,
    ),
    next_attempt_at: field.nullableTimestamp<DeliveryNode>(
      'When the next attempt is due (state pending); null otherwise.',
      (log) => (pending(log) ? log.delivery.nextAttemptAt : null),
    ),
    held_until: field.nullableTimestamp<DeliveryNode>(
      'While webhook chaos holds the delivery back (a delay, or a reorder at most until then): the real time (not the clock) at which it is sent; null otherwise.',
      (log) => (pending(log) ? log.delivery.heldUntil : null),
    ),
    // GraphQL answers them as objects of their own (webhooks.graphql.ts).
    attempts: field.custom<DeliveryNode>(
      z.array(WebhookAttemptWire).meta({ description: 'Every attempt, oldest first.' }),
      (log) => log.attempts.map(attemptResource),
    ),
    created_at: field.timestamp<DeliveryNode>(
      'When it was queued (with its event), clock time.',
      (log) => log.delivery.createdAt,
    ),
  },
);

export const EventTypeWire = wireAnswer('event_type', {
  type: EventTypeNameWire,
  schema: z
    .object({
      $ref: z.string().meta({
        format: 'uri-reference',
        description:
          "The payload's JSON Schema in this server's OpenAPI document: its webhooks entry's request body schema.",
      }),
    })
    .meta({
      description:
        "The payload's schema, as a JSON Schema reference into GET /v1/openapi.json (the entry of the document's webhooks section for this type).",
    }),
}).meta({ id: 'EventType', description: 'An event type the sandbox sends, with its payload schema.' });

function attemptResource(attempt: AttemptRow): Wire<typeof WebhookAttemptWire> {
  return {
    id: attempt.id,
    attempted_at: attempt.attemptedAt.toISOString(),
    status: attempt.status,
    duration_ms: attempt.durationMs,
    response_body: attempt.responseBody,
    error: attempt.error,
    next_retry_at: attempt.nextRetryAt?.toISOString() ?? null,
    chaos: attempt.chaos,
    chaos_fault: attempt.chaos ? faultOfLabel(attempt.chaos) : null,
  };
}

/**
 * An event type with a pointer to its payload's schema: the request body of its entry in the
 * document's webhooks section, at `documentUrl` (a `$ref`, not the schema inlined, so the list
 * stays small; a JSON Schema tool resolves it against the document).
 */
export function eventTypeResource(
  payload: EventTypePayload,
  documentUrl: string,
): Wire<typeof EventTypeWire> {
  return {
    object: 'event_type',
    type: payload.type,
    schema: { $ref: `${documentUrl}#${webhookPayloadPointer(payload.type)}` },
  };
}

/** The event types as GET /v1/event_types answers them, each with its payload's schema in this server's document. */
export const EventType = {
  name: 'EventType',
  object: 'event_type',
  description: EventTypeWire.description ?? '',
  fields: {},
  wire: EventTypeWire,
  render: (payload: EventTypePayload, rc: RenderContext) =>
    eventTypeResource(payload, `${rc.publicUrl}/v1/openapi.json`),
} as unknown as ObjectDecl<EventTypePayload>;

/** The JSON Pointer of a type's payload schema in the OpenAPI document. */
export function webhookPayloadPointer(type: string): string {
  const escapeToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');
  return ['', 'webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema']
    .map(escapeToken)
    .join('/');
}
