import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { ALL_EVENTS, listEventTypes } from './webhooks.event-types.ts';
import type { WebhookChaosFault } from './webhooks.sending.ts';

const eventType = z
  .string()
  .regex(/^(\*|[a-z_]+\.[a-z_]+)$/, 'an event type is "*" or like "collection.succeeded"')
  .refine((type) => type === ALL_EVENTS || knownEventTypes().has(type), {
    message: 'not an event type this sandbox sends (GET /v1/event_types lists them), nor "*"',
  });
const eventsList = z.array(eventType).min(1).max(100);
const webhookUrl = z.url({ protocol: /^https?$/ }).max(2048);

const URL_TEXT = 'Where deliveries are POSTed (http or https).';
const NOTE = "The merchant's note about it (at most 500 characters).";
/** Another name for enabled_events, accepted too (REST only). */
const ALIAS = 'Another name for enabled_events.';

export const createEndpointSchema = z.strictObject({
  url: webhookUrl.describe(URL_TEXT),
  secret: z
    .string()
    .regex(
      /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/,
      'a secret is whsec_ followed by the base64 of 24 to 64 bytes',
    )
    .refine((value) => {
      const bytes = Buffer.from(value.slice(6), 'base64');
      // Standard base64 only: what strict decoders of other languages read back the same.
      return bytes.length >= 24 && bytes.length <= 64 && bytes.toString('base64') === value.slice(6);
    }, 'a secret is whsec_ followed by the base64 of 24 to 64 bytes')
    .optional()
    .describe(
      'The signing secret to use (whsec_ + base64 of 24 to 64 bytes), when your receiver already has one configured; default a fresh one.',
    ),
  enabled_events: eventsList.optional().describe('Event types, or ["*"] (the default).'),
  events: eventsList.optional().describe(ALIAS),
  description: z.string().max(500).optional().describe(NOTE),
});

export const updateEndpointSchema = z.strictObject({
  url: webhookUrl.optional().describe(URL_TEXT),
  enabled_events: eventsList.optional().describe('Event types, or ["*"].'),
  events: eventsList.optional().describe(ALIAS),
  enabled: z
    .boolean()
    .optional()
    .describe('false pauses deliveries; true resumes them (and clears the disabled reason).'),
  description: z.string().max(500).nullable().optional().describe(NOTE),
});

/** POST /v1/webhook_endpoints' body as parsed: createEndpoint's input. */
export type CreateEndpointInput = z.output<typeof createEndpointSchema>;

/** POST /v1/webhook_endpoints/{id}'s body as parsed: updateEndpoint's input. */
export type UpdateEndpointInput = z.output<typeof updateEndpointSchema>;

/** The error codes of an endpoint's special fields (creating and updating one). */
export const endpointFieldCodes: FieldCodes = { url: 'url_invalid' };

let eventTypes: Set<string> | null = null;
function knownEventTypes(): Set<string> {
  eventTypes ??= new Set(listEventTypes());
  return eventTypes;
}

export const redeliverSchema = z.strictObject({ endpoint_id: z.string().min(1).max(64).optional() });

/** POST /v1/events/{id}/redeliver's body as parsed: redeliverEvent's input. */
export type RedeliverInput = z.output<typeof redeliverSchema>;

export const WebhookChaosFaultValues = describedValues(
  'WebhookChaosFault',
  "A kind of webhook chaos (the merchant's webhookFaults, docs/guide/chaos.md) an attempt carried.",
  {
    duplicate: 'The event was sent a second time right after a 2xx, with the same webhook-id.',
    delay: 'The delivery was held before it was sent (real time).',
    reorder:
      'The delivery was held back until a later event of its endpoint was sent (or at most its longest hold).',
  } satisfies Record<WebhookChaosFault, string>,
);
