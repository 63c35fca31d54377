import { z } from 'zod';
import { idOf, timestamp, type Wire, wireResource } from '../../kernel/wire-resources.ts';
import { ALL_EVENTS, listEventTypes } from './webhooks.event-types.ts';
import type { EventTypePayload } from './webhooks.payloads.ts';
import { faultOfLabel, WEBHOOK_CHAOS_FAULTS } from './webhooks.sending.ts';
import { type webhookAttempts, webhookDeliveries, type webhookEndpoints } from './webhooks.table.ts';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

const nullableText = (description: string) => z.string().nullable().meta({ description });
const nullableTimestamp = (description: string) => timestamp.nullable().meta({ description });
/** An event type the sandbox sends (the list of GET /v1/event_types), one component for every use. */
export const EventTypeNameWire = z
  .enum(listEventTypes() as [string, ...string[]])
  .meta({ id: 'EventTypeName', description: 'An event type the sandbox sends (GET /v1/event_types).' });

const endpointShape = {
  url: z.string().meta({ format: 'uri', description: 'Where events are POSTed (http or https).' }),
  description: nullableText('The description given on create or update.'),
  enabled_events: z
    .array(
      z
        .union([z.literal(ALL_EVENTS).meta({ description: 'Every type.' }), EventTypeNameWire])
        .meta({ description: 'An event type, or "*" for every type.' }),
    )
    .meta({ description: 'The event types delivered to this endpoint; ["*"] for all.' }),
  enabled: z.boolean().meta({ description: 'Whether events are delivered to it.' }),
  disabled_reason: nullableText(
    'Why it is disabled: by the merchant, a 410 Gone from the receiver, or 5 days of failed deliveries.',
  ),
  failing_since: nullableTimestamp(
    "When its deliveries started failing (merchant's clock); null while they succeed.",
  ),
  created_at: timestamp,
  updated_at: timestamp,
};

export const WebhookEndpointWire = wireResource(
  'WebhookEndpoint',
  'webhook_endpoint',
  'Where the merchant receives events, signed per Standard Webhooks. Its secret is shown on create and rotate only.',
  endpointShape,
);

export const WebhookEndpointWithSecretWire = wireResource(
  'WebhookEndpointWithSecret',
  'webhook_endpoint',
  'A webhook endpoint with its signing secret: the answer of create and rotate_secret, the only ones that show it.',
  {
    ...endpointShape,
    secret: z.string().meta({
      pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
      description:
        'The Standard Webhooks signing secret: whsec_ and the base64 of 32 random bytes. After a rotation the previous one signs too, for 24 h of clock time.',
    }),
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
      'The webhook chaos this attempt carried (docs/chaos.md): "duplicate" (the event sent a second time, same webhook-id), "delayed 5000ms" (held that long before it was sent), "reordered" (held back until a later event of the endpoint was sent) or "held back 5000ms (no later event passed it)"; null when none.',
    ),
    chaos_fault: z.enum(WEBHOOK_CHAOS_FAULTS).nullable().meta({
      description: 'The kind of webhook chaos of this attempt (duplicate, delay, reorder); null when none.',
    }),
  })
  .meta({ id: 'WebhookAttempt', description: 'One HTTP POST of a delivery and its outcome.' });

export const WebhookDeliveryWire = wireResource(
  'WebhookDelivery',
  'webhook_delivery',
  'One event delivered to one endpoint: its state and the log of its attempts.',
  {
    event: idOf('event'),
    /** The event's type; absent when the event is no longer kept. */
    event_type: EventTypeNameWire.optional(),
    endpoint: idOf('webhook endpoint'),
    state: z.enum(webhookDeliveries.state.enumValues).meta({
      description:
        'pending (an attempt is due at next_attempt_at), delivered (a receiver answered 2xx) or failed (retries exhausted, endpoint disabled or deleted).',
    }),
    attempt_count: z.number().int().meta({ description: 'Attempts made in the current series.' }),
    next_attempt_at: nullableTimestamp('When the next attempt is due (state pending); null otherwise.'),
    held_until: nullableTimestamp(
      'While webhook chaos holds the delivery back (a delay, or a reorder at most until then): the real time (not the clock) at which it is sent; null otherwise.',
    ),
    attempts: z.array(WebhookAttemptWire).meta({ description: 'Every attempt, oldest first.' }),
    created_at: timestamp,
  },
);

export const EventTypeWire = z
  .object({
    object: z.literal('event_type').meta({ description: 'The kind of object.' }),
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
  })
  .meta({ id: 'EventType', description: 'An event type the sandbox sends, with its payload schema.' });

/** An endpoint as the API shows it; the secret only on create and rotate. */
export function endpointResource(row: EndpointRow): Wire<typeof WebhookEndpointWire> {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    description: row.description,
    enabled_events: row.enabledEvents,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    failing_since: row.failingSince?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** An endpoint with its secret: the answer of create and rotate_secret. */
export function endpointWithSecretResource(row: EndpointRow): Wire<typeof WebhookEndpointWithSecretWire> {
  return { ...endpointResource(row), secret: row.secret };
}

/** A delivery with its attempt log; `eventType` when known (the event's type, e.g. collection.succeeded). */
export function deliveryResource(
  row: typeof webhookDeliveries.$inferSelect,
  attempts: (typeof webhookAttempts.$inferSelect)[],
  eventType?: string,
): Wire<typeof WebhookDeliveryWire> {
  return {
    id: row.id,
    object: 'webhook_delivery',
    event: row.eventId,
    ...(eventType ? { event_type: eventType } : {}),
    endpoint: row.endpointId,
    state: row.state,
    attempt_count: row.attempts,
    next_attempt_at: row.state === 'pending' ? row.nextAttemptAt.toISOString() : null,
    held_until: row.state === 'pending' ? (row.heldUntil?.toISOString() ?? null) : null,
    attempts: attempts.map((attempt) => ({
      id: attempt.id,
      attempted_at: attempt.attemptedAt.toISOString(),
      status: attempt.status,
      duration_ms: attempt.durationMs,
      response_body: attempt.responseBody,
      error: attempt.error,
      next_retry_at: attempt.nextRetryAt?.toISOString() ?? null,
      chaos: attempt.chaos,
      chaos_fault: attempt.chaos ? faultOfLabel(attempt.chaos) : null,
    })),
    created_at: row.createdAt.toISOString(),
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

/** The JSON Pointer of a type's payload schema in the OpenAPI document. */
export function webhookPayloadPointer(type: string): string {
  const escapeToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');
  return ['', 'webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema']
    .map(escapeToken)
    .join('/');
}
