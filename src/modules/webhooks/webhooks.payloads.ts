import { z } from 'zod';
import type { ObjectDecl } from '../../kernel/declare.ts';
import { RawJson } from '../../kernel/wire-json.ts';
import { timestamp, type Wire } from '../../kernel/wire-resources.ts';
import type { EventRow } from '../events/events.service.ts';
import { derived } from '../registry.ts';
import { eventSources, eventTypeGroups } from './webhooks.event-types.ts';

/**
 * What an event carries, by the kind of object it is about: every event is the envelope
 * `{id, object: "event", type, created_at, data: {object}}`, `data.object` being the object as its
 * render function produced it at the change. Each kind's events are one component (`<Kind>Event`,
 * its `type` one of the kind's event types); the REST answers name the union of them (`Event`) and
 * the OpenAPI document's `webhooks` section one entry per type (src/api/rest/openapi.ts). The schema of
 * each kind's object is declared with its events in its module's manifest (`events`); the
 * envelopes are built on first use.
 */

/** The object of a `webhook.test` event: the endpoint it was sent to (webhooks.service.ts). */
export const WebhookTestObjectWire = z
  .object({
    id: z.string().meta({ description: 'The id of the webhook endpoint the test was sent to.' }),
    object: z.literal('webhook_endpoint').meta({ description: 'The kind of object.' }),
    url: z.string().meta({ format: 'uri', description: "The endpoint's URL." }),
  })
  .meta({
    id: 'WebhookTestObject',
    description: 'The object of a webhook.test event: the endpoint the test was sent to.',
  });

/** `card_payment` → `CardPaymentEvent`, `webhook` → `WebhookTestEvent`: a kind's event component. */
function componentOf(kind: string): string {
  if (kind === 'webhook') return 'WebhookTestEvent';
  const pascal = kind.replace(/(^|_)([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase());
  return `${pascal}Event`;
}

/** A kind's event envelope: `type` one of `types`, `data.object` the kind's object. */
function eventOf(kind: string, types: readonly string[], object: z.ZodType) {
  const component = componentOf(kind);
  return z
    .object({
      id: z
        .string()
        .meta({ description: 'Unique id of the event (also the webhook-id header of a delivery).' }),
      object: z.literal('event').meta({ description: 'The kind of object.' }),
      type: z
        .enum(types as [string, ...string[]])
        .meta({ description: 'What happened: `<object>.<change>`.' }),
      created_at: timestamp.meta({
        format: 'date-time',
        description: "When the change happened, on the merchant's clock (ISO 8601, UTC).",
      }),
      data: z.object({ object }).meta({ description: 'The object as it stood right after the change.' }),
    })
    .meta({
      id: component,
      description: `An event about a ${kind === 'webhook' ? 'webhook endpoint (webhook.test)' : kind.replaceAll('_', ' ')}: ${types.join(', ')}.`,
    });
}

/** Each kind's envelope, by kind, in the order of listEventTypes(). */
const eventWires = derived(() => {
  const groups = eventTypeGroups();
  return new Map(
    eventSources().map((source, i) => [
      source.object,
      eventOf(source.object, groups[i]?.types ?? [], source.wire),
    ]),
  );
});

function eventWireOf(kind: string): z.ZodType {
  const wire = eventWires().get(kind);
  if (!wire) throw new Error(`no events of ${kind} are declared (a manifest's \`events\`)`);
  return wire;
}

/** The envelope of webhook.test (POST /v1/webhook_endpoints/{id}/test answers the event it sent). */
export const WebhookTestEventWire = z.lazy(() => eventWireOf('webhook'));

const EVENT_DESCRIPTION =
  'A state change: `type` names it and `data.object` is the object right after it (the component of its kind).';

const eventWire = derived(() =>
  z.union([...eventWires().values()]).meta({ id: 'Event', description: EVENT_DESCRIPTION }),
);

/** Any event, as GET /v1/events answers it: one of the kinds' envelopes, told apart by `type`. */
export const EventWire = z.lazy(eventWire);

export interface EventTypePayload {
  /** The event type (`card_payment.authorized`). */
  type: string;
  /** The kind of its object (`card_payment`; `webhook` for webhook.test). */
  kind: string;
  /** The component of its kind's envelope (`CardPaymentEvent`). */
  component: string;
}

/** Every event type with the component of its payload, in the order of listEventTypes(). */
export function eventTypePayloads(): EventTypePayload[] {
  return eventTypeGroups().flatMap((group) =>
    group.types.map((type) => ({ type, kind: group.object, component: componentOf(group.object) })),
  );
}

/**
 * An event as the API and webhooks render it: `{id, object, type, created_at, data: {object}}`.
 * `data` is embedded as recorded, exact JSON text: its object was typed by its kind's Wire when its
 * render function produced it at the change; which kind it is follows from `type`, a pairing the
 * type checker cannot see in a stored row (the suite checks it: every answer and delivery is
 * validated against the document).
 */
export function eventResource(row: EventRow): Wire<typeof EventWire> {
  const event = {
    id: row.id,
    object: 'event',
    type: row.type,
    created_at: row.createdAt.toISOString(),
    data: new RawJson(row.dataJson),
  } as const;
  return event as unknown as Wire<typeof EventWire>;
}

/**
 * Events as operations answer them: REST's union of the kinds' envelopes, each rendered as recorded
 * (GraphQL's Event type is written by hand, events.subscriptions.graphql.ts).
 */
export const Event = {
  name: 'Event',
  object: 'event',
  description: EVENT_DESCRIPTION,
  fields: {},
  wire: EventWire,
  render: eventResource,
} as unknown as ObjectDecl<EventRow>;
