import { z } from 'zod';
import type { ObjectDecl } from '../../kernel/declare.ts';
import { RawJson } from '../../kernel/wire-json.ts';
import { timestamp, type Wire } from '../../kernel/wire-resources.ts';
import { CardPaymentWire, RefundWire } from '../card-payments/card-payments.resource.ts';
import { CollectionWire } from '../collections/collections.resource.ts';
import { DisputeWire } from '../disputes/disputes.resource.ts';
import type { EventRow } from '../events/events.service.ts';
import { FxConversionWire, FxQuoteWire, FxSettlementWire } from '../fx/fx.resource.ts';
import { InboundTransferWire } from '../inbound-transfers/inbound-transfers.resource.ts';
import { IssuingAuthorizationWire, VirtualCardWire } from '../issuing/issuing.resource.ts';
import { BalanceTransactionWire } from '../ledger/ledger.resource.ts';
import { PayoutWire, TransferWire } from '../transfers/transfers.resource.ts';
import { eventTypeGroups } from './webhooks.event-types.ts';

/**
 * What an event carries, by the kind of object it is about: every event is the envelope
 * `{id, object: "event", type, created_at, data: {object}}`, `data.object` being the object as its
 * render function produced it at the change. Each kind's events are one component (`<Kind>Event`,
 * its `type` one of the kind's event types); the REST answers name the union of them (`Event`) and
 * the OpenAPI document's `webhooks` section one entry per type (src/api/rest/openapi.ts).
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

/** The schema of `data.object`, by the object kinds of webhooks.event-types.ts. */
const OBJECT_WIRES = {
  collection: CollectionWire,
  card_payment: CardPaymentWire,
  refund: RefundWire,
  dispute: DisputeWire,
  transfer: TransferWire,
  payout: PayoutWire,
  inbound_transfer: InboundTransferWire,
  balance_transaction: BalanceTransactionWire,
  virtual_card: VirtualCardWire,
  issuing_authorization: IssuingAuthorizationWire,
  fx_quote: FxQuoteWire,
  fx_conversion: FxConversionWire,
  fx_settlement: FxSettlementWire,
  webhook: WebhookTestObjectWire,
} as const;
type ObjectKind = keyof typeof OBJECT_WIRES;

/** `card_payment` → `CardPaymentEvent`, `webhook` → `WebhookTestEvent`: a kind's event component. */
function componentOf(kind: string): string {
  if (kind === 'webhook') return 'WebhookTestEvent';
  const pascal = kind.replace(/(^|_)([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase());
  return `${pascal}Event`;
}

/** A kind's event envelope: `type` one of `types`, `data.object` the kind's object. */
function eventOf<const K extends ObjectKind>(kind: K, types: readonly string[]) {
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
      data: z
        .object({
          object: OBJECT_WIRES[kind] as (typeof OBJECT_WIRES)[K],
        })
        .meta({ description: 'The object as it stood right after the change.' }),
    })
    .meta({
      id: component,
      description: `An event about a ${kind === 'webhook' ? 'webhook endpoint (webhook.test)' : kind.replaceAll('_', ' ')}: ${types.join(', ')}.`,
    });
}

const GROUPS = eventTypeGroups();

function typesOfKind(kind: ObjectKind): string[] {
  const group = GROUPS.find((candidate) => candidate.object === kind);
  if (!group) throw new Error(`no event types for ${kind}`);
  return group.types;
}

export const CollectionEventWire = eventOf('collection', typesOfKind('collection'));
export const CardPaymentEventWire = eventOf('card_payment', typesOfKind('card_payment'));
export const RefundEventWire = eventOf('refund', typesOfKind('refund'));
export const DisputeEventWire = eventOf('dispute', typesOfKind('dispute'));
export const TransferEventWire = eventOf('transfer', typesOfKind('transfer'));
export const PayoutEventWire = eventOf('payout', typesOfKind('payout'));
export const InboundTransferEventWire = eventOf('inbound_transfer', typesOfKind('inbound_transfer'));
export const BalanceTransactionEventWire = eventOf('balance_transaction', typesOfKind('balance_transaction'));
export const VirtualCardEventWire = eventOf('virtual_card', typesOfKind('virtual_card'));
export const IssuingAuthorizationEventWire = eventOf(
  'issuing_authorization',
  typesOfKind('issuing_authorization'),
);
export const FxQuoteEventWire = eventOf('fx_quote', typesOfKind('fx_quote'));
export const FxConversionEventWire = eventOf('fx_conversion', typesOfKind('fx_conversion'));
export const FxSettlementEventWire = eventOf('fx_settlement', typesOfKind('fx_settlement'));
export const WebhookTestEventWire = eventOf('webhook', typesOfKind('webhook'));

const EVENT_WIRES = {
  collection: CollectionEventWire,
  card_payment: CardPaymentEventWire,
  refund: RefundEventWire,
  dispute: DisputeEventWire,
  transfer: TransferEventWire,
  payout: PayoutEventWire,
  inbound_transfer: InboundTransferEventWire,
  balance_transaction: BalanceTransactionEventWire,
  virtual_card: VirtualCardEventWire,
  issuing_authorization: IssuingAuthorizationEventWire,
  fx_quote: FxQuoteEventWire,
  fx_conversion: FxConversionEventWire,
  fx_settlement: FxSettlementEventWire,
  webhook: WebhookTestEventWire,
} as const satisfies Record<ObjectKind, z.ZodType>;

/** Any event, as GET /v1/events answers it: one of the kinds' envelopes, told apart by `type`. */
export const EventWire = z.union(Object.values(EVENT_WIRES)).meta({
  id: 'Event',
  description:
    'A state change: `type` names it and `data.object` is the object right after it (the component of its kind).',
});

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
  return GROUPS.flatMap((group) => {
    if (!Object.hasOwn(EVENT_WIRES, group.object))
      throw new Error(`the events of ${group.object} have no payload schema (webhooks.payloads.ts)`);
    return group.types.map((type) => ({ type, kind: group.object, component: componentOf(group.object) }));
  });
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
  description: EventWire.description ?? '',
  fields: {},
  wire: EventWire,
  render: eventResource,
} as unknown as ObjectDecl<EventRow>;
