import type { GraphQLContext } from '../../graphql/builder.ts';
import { builder } from '../../graphql/builder.ts';
import { describedEnum } from '../../graphql/enums.ts';
import { NodeRef } from '../../graphql/node.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { EventFilter } from './events.filter.ts';
import { OBJECT_KINDS, type ObjectKind } from './events.kinds.ts';
import type { EventRow } from './events.service.ts';
import type { BusEvent, EventStream } from './events.subscriber.ts';

const parsedData = new WeakMap<EventRow, Record<string, unknown>>();

/** An event's data as a JSON object, parsed once however many subscribers render it. */
function dataOf(row: EventRow): Record<string, unknown> {
  let data = parsedData.get(row);
  if (!data) {
    data = JSON.parse(row.dataJson) as Record<string, unknown>;
    parsedData.set(row, data);
  }
  return data;
}

/** The object's state after the change: data.object.state, else the type's last segment. */
function stateOf(row: EventRow): string {
  const object = dataOf(row).object as { state?: unknown } | undefined;
  return typeof object?.state === 'string' ? object.state : row.type.slice(row.type.lastIndexOf('.') + 1);
}

const ObjectKindEnum = describedEnum(
  'TransactionUpdateKind',
  'The kinds of object transactionUpdated streams the state changes of.',
  {
    collection: 'A hosted checkout session (Collection).',
    payment_attempt:
      'A payment attempt of a collection, from before bank payments were ACH debits (PaymentAttempt).',
    card_payment: 'A card payment (CardPayment).',
    refund: 'A card refund (Refund).',
    dispute: 'A dispute of a card payment (Dispute).',
    balance_transaction: 'A ledger posting (BalanceTransaction).',
    transfer: 'A bank transfer (Transfer).',
    payout: 'A payout (Payout).',
    inbound_transfer: 'Money from an outside originator (InboundTransfer).',
    issuing_authorization: 'An authorization on a virtual card (IssuingAuthorization).',
    fx_conversion: 'An FX conversion (FxConversion).',
    fx_settlement: 'A settlement abroad (FxSettlement).',
  } satisfies Record<ObjectKind, string>,
);

/** The GraphQL Event type (reuse this ref for other fields that return events). */
export const EventRef = builder.objectRef<EventRow>('Event').implement({
  description:
    'A state change of an object, as GET /v1/events/{id} and webhooks render it: `<object>.<state>` with the object after the change.',
  interfaces: [NodeRef],
  fields: (t) => ({
    type: t.exposeString('type', {
      description: 'The event type, `<object>.<state>`, e.g. collection.succeeded (eventTypes lists them).',
    }),
    objectId: t.exposeString('objectId', { description: 'The id of the object that changed.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it happened, clock time.' }),
    data: t.field({
      type: 'JSONObject',
      description: '{object}: the object as the API renders it after the change.',
      resolve: (row) => dataOf(row),
    }),
  }),
});

const TransactionUpdateRef = builder.objectRef<BusEvent>('TransactionUpdate').implement({
  description: 'A transaction object changed state.',
  fields: (t) => ({
    kind: t.field({
      type: ObjectKindEnum,
      description: 'The kind of object that changed.',
      resolve: (event) => event.objectKind as ObjectKind,
    }),
    id: t.id({
      description: "The object's id (node(id:) reads it as it is now; this is not the update's own id).",
      resolve: (event) => event.objectId,
    }),
    state: t.string({
      description:
        "The state after the change: the object's state in the event, else the event type's last segment.",
      resolve: (event) => stateOf(event),
    }),
    eventType: t.exposeString('type', { description: "The event's type, e.g. card_payment.captured." }),
    event: t.field({
      type: EventRef,
      description: 'The event that recorded the change.',
      resolve: (event) => event,
    }),
  }),
});

/** Why a live stream ended early: its last message, raised by the field's resolver as the error. */
class StreamEnded {
  constructor(readonly error: SandbankError) {}
}

/** The event, or the error that ended the stream (as the operation's last result). */
function eventOrEnd(message: BusEvent | StreamEnded): BusEvent {
  if (message instanceof StreamEnded) throw message.error;
  return message;
}

/**
 * The stream as GraphQL reads it: a stream ended by a registered error (a credential that stopped
 * authenticating, a subscriber that fell behind) yields that error as a last result and then
 * completes, so every transport ends the operation cleanly (SSE sends it and closes the response)
 * instead of failing the transport mid-stream.
 */
function endingWithItsError(stream: EventStream): AsyncIterableIterator<BusEvent | StreamEnded> {
  return {
    next: () =>
      stream.next().catch((error: unknown) => {
        if (error instanceof SandbankError) return { done: false, value: new StreamEnded(error) };
        throw error;
      }),
    return: () => stream.return(),
    throw: (error?: unknown) => stream.throw?.(error) ?? Promise.reject(error),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * The authenticated merchant's live stream; never another merchant's events. It lasts as long as
 * the credential that opened it: a key roll, a sign-out or an expired session ends it at once on
 * every instance (credential-watch.ts), over whichever transport, and frees its slot of the
 * merchant's cap; so does an HTTP client that goes away.
 */
async function streamFor(
  ctx: GraphQLContext,
  filter: EventFilter,
): Promise<AsyncIterableIterator<BusEvent | StreamEnded>> {
  if (!ctx.principal) throw ctx.authError ?? new SandbankError('api_key_missing');
  if (ctx.principal.keyKind !== 'secret') throw new SandbankError('secret_key_required');
  const { eventBus: bus, credentialWatch: watch } = ctx.deps;
  const credential = ctx.credential;
  if (!bus || !watch || !credential)
    throw new SandbankError('internal_error', { message: 'Live events are not available on this server.' });
  const stream = await bus.subscribe(ctx.principal.merchant.id, filter);
  stream.whenEnded(watch.watch(credential, (error) => stream.abort(error)));
  const { signal } = ctx;
  if (signal) {
    const leave = () => void stream.return();
    if (signal.aborted) leave();
    signal.addEventListener('abort', leave, { once: true });
    stream.whenEnded(() => signal.removeEventListener('abort', leave));
  }
  return endingWithItsError(stream);
}

builder.subscriptionType({
  authScopes: { secretKey: true },
  description:
    'Live events over graphql-ws on /graphql (connectionParams: {authorization: "Bearer sk_test_..."}). Delivery is live and at most once; GET /v1/events is the durable record.',
});

builder.subscriptionFields((t) => ({
  events: t.field({
    type: EventRef,
    description: 'Every committed event of the merchant, in commit order; `types` narrows them ("*" is all).',
    args: {
      types: t.arg.stringList({ description: 'Event types, e.g. ["collection.succeeded"] (default: all).' }),
    },
    subscribe: (_root, args, ctx) => streamFor(ctx, { types: args.types }),
    resolve: eventOrEnd,
  }),
  transactionUpdated: t.field({
    type: TransactionUpdateRef,
    description: `State changes of transaction objects (${OBJECT_KINDS.join(', ')}), optionally only some kinds or ids.`,
    args: {
      kinds: t.arg({ type: [ObjectKindEnum], description: 'Only objects of these kinds (default: all).' }),
      ids: t.arg.idList({ description: 'Only these objects, by id (default: all).' }),
    },
    subscribe: (_root, args, ctx) =>
      streamFor(ctx, {
        kinds: args.kinds ?? OBJECT_KINDS,
        objectIds: args.ids?.map(String),
      }),
    resolve: eventOrEnd,
  }),
}));
