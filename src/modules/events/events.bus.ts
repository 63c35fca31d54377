import { inArray } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from '../../db/client.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { ID_PREFIXES } from '../../kernel/ids.ts';
import { EVENTS_CHANNEL, type EventRow, eventColumns } from './events.service.ts';
import { events } from './events.table.ts';

/**
 * Live fan-out of committed events to in-process subscribers (GraphQL subscriptions).
 *
 * Every committed event is announced with pg_notify on EVENTS_CHANNEL inside its transaction, so it
 * arrives here only after commit and never for a rollback. Each process LISTENs once; with several
 * instances on one Postgres every instance hears every event, so a subscriber on any instance sees
 * events caused through any other. The notification carries ids only (payloads must stay under
 * 8000 bytes); the row is loaded by id, once per event, only when some subscriber wants it.
 * Delivery is live and at most once: a subscriber that falls behind, or a notification lost while
 * the LISTEN connection reconnects, is not replayed (GET /v1/events is the durable record).
 */

/** The object kinds of transactionUpdated, by id prefix: the one place this mapping lives. */
const KIND_BY_PREFIX = {
  [ID_PREFIXES.collection]: 'collection',
  [ID_PREFIXES.paymentAttempt]: 'payment_attempt',
  [ID_PREFIXES.cardPayment]: 'card_payment',
  [ID_PREFIXES.refund]: 'refund',
  [ID_PREFIXES.posting]: 'balance_transaction',
  [ID_PREFIXES.transfer]: 'transfer',
  [ID_PREFIXES.payout]: 'payout',
  [ID_PREFIXES.issuingAuthorization]: 'issuing_authorization',
  [ID_PREFIXES.fxConversion]: 'fx_conversion',
  [ID_PREFIXES.fxSettlement]: 'fx_settlement',
} as const satisfies Record<string, string>;

export type ObjectKind = (typeof KIND_BY_PREFIX)[keyof typeof KIND_BY_PREFIX];

export const OBJECT_KINDS: readonly ObjectKind[] = Object.values(KIND_BY_PREFIX);

/** The kind of a transaction object from its id (`col_…` → collection), or null for other objects. */
export function objectKindOf(id: string): ObjectKind | null {
  const prefix = id.slice(0, id.indexOf('_'));
  return Object.hasOwn(KIND_BY_PREFIX, prefix) ? KIND_BY_PREFIX[prefix as keyof typeof KIND_BY_PREFIX] : null;
}

/** What a notification carries. */
export interface Announcement {
  id: string;
  merchantId: string;
  type: string;
  objectId: string;
  /** True when the event's statement queued webhook deliveries (the worker has work). */
  deliveries: boolean;
}

/** A committed event as subscribers receive it. */
export interface BusEvent extends EventRow {
  objectKind: ObjectKind | null;
}

/**
 * Which events a subscriber wants. An absent (null) list matches everything; a list matches its
 * members only (so an empty list matches nothing). `types` may contain "*". Setting `kinds` (even
 * to every kind) also restricts the stream to transaction objects.
 */
export interface EventFilter {
  types?: readonly string[] | null | undefined;
  kinds?: readonly string[] | null | undefined;
  objectIds?: readonly string[] | null | undefined;
}

const MAX_FILTER_VALUES = 100;

/** Validates a subscriber's filter (known kinds, bounded lists), throwing parameter_invalid. */
export function checkFilter(filter: EventFilter): void {
  for (const [param, values] of [
    ['types', filter.types],
    ['kinds', filter.kinds],
    ['ids', filter.objectIds],
  ] as const) {
    if (values && values.length > MAX_FILTER_VALUES)
      throw new SandbankError('parameter_invalid', {
        param,
        message: `${param} takes at most ${MAX_FILTER_VALUES} values.`,
      });
  }
  const unknown = filter.kinds?.find((kind) => !(OBJECT_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined)
    throw new SandbankError('parameter_invalid', {
      param: 'kinds',
      message: `Unknown kind "${unknown.slice(0, 40)}"; kinds are ${OBJECT_KINDS.join(', ')}.`,
    });
}

export function matchesFilter(event: Pick<Announcement, 'type' | 'objectId'>, filter: EventFilter): boolean {
  if (filter.types && !filter.types.includes(event.type) && !filter.types.includes('*')) return false;
  if (filter.objectIds && !filter.objectIds.includes(event.objectId)) return false;
  if (filter.kinds) {
    const kind = objectKindOf(event.objectId);
    if (kind === null || !filter.kinds.includes(kind)) return false;
  }
  return true;
}

/** Parses a notification payload; null when it is not one of ours. */
export function parseAnnouncement(payload: string): Announcement | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { id, merchant_id, type, object_id, deliveries } = value as Record<string, unknown>;
  if (
    typeof id !== 'string' ||
    typeof merchant_id !== 'string' ||
    typeof type !== 'string' ||
    typeof object_id !== 'string'
  )
    return null;
  return { id, merchantId: merchant_id, type, objectId: object_id, deliveries: deliveries === true };
}

/** A subscriber's stream: an async iterator over a bounded queue. */
export interface EventStream extends AsyncIterableIterator<BusEvent> {
  return(): Promise<IteratorResult<BusEvent>>;
}

const DONE: IteratorResult<BusEvent> = { done: true, value: undefined };

class Subscriber implements EventStream {
  readonly #queue: BusEvent[] = [];
  #waiting: { resolve: (result: IteratorResult<BusEvent>) => void; reject: (error: unknown) => void } | null =
    null;
  #ended = false;
  #error: unknown = null;

  constructor(
    readonly merchantId: string,
    readonly filter: EventFilter,
    private readonly maxQueue: number,
    private readonly onEnd: (subscriber: Subscriber) => void,
  ) {}

  wants(event: Pick<Announcement, 'type' | 'objectId'>): boolean {
    return !this.#ended && matchesFilter(event, this.filter);
  }

  push(event: BusEvent): void {
    if (this.#ended) return;
    if (this.#waiting) {
      const { resolve } = this.#waiting;
      this.#waiting = null;
      resolve({ done: false, value: event });
    } else if (this.#queue.length >= this.maxQueue) {
      this.fail(
        new SandbankError('rate_limited', {
          message: `The subscriber fell more than ${this.maxQueue} events behind and was dropped; subscribe again.`,
        }),
      );
    } else {
      this.#queue.push(event);
    }
  }

  /** Ends the stream with an error, after the events already queued. */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#error = error;
    this.#end();
    if (this.#waiting) {
      const { reject } = this.#waiting;
      this.#waiting = null;
      this.#error = null;
      reject(error);
    }
  }

  /** Ends the stream normally, after the events already queued. */
  finish(): void {
    this.#end();
    this.#waiting?.resolve(DONE);
    this.#waiting = null;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.onEnd(this);
  }

  next(): Promise<IteratorResult<BusEvent>> {
    const event = this.#queue.shift();
    if (event) return Promise.resolve({ done: false, value: event });
    if (this.#error !== null) {
      const error = this.#error;
      this.#error = null;
      return Promise.reject(error);
    }
    if (this.#ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<BusEvent>> {
    this.#queue.length = 0;
    this.#error = null;
    this.finish();
    return Promise.resolve(DONE);
  }

  throw(error?: unknown): Promise<IteratorResult<BusEvent>> {
    this.return();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** Live subscriptions one merchant may hold on one instance (GraphQL over graphql-ws and SSE). */
export const MAX_SUBSCRIPTIONS_PER_MERCHANT = 100;

export interface EventBusOptions {
  /** Events a subscriber may have queued before it is dropped with an error. */
  maxQueue?: number;
  /** Events loaded by one query. */
  maxBatch?: number;
  /** Notifications waiting to be loaded before every waiting subscriber is dropped. */
  maxPending?: number;
}

export class EventBus {
  readonly #subscribers = new Map<string, Set<Subscriber>>();
  readonly #announcementListeners = new Set<(announcement: Announcement) => void>();
  #pending: Announcement[] = [];
  #draining = false;
  #listening: Promise<void> | null = null;
  #unlisten: (() => Promise<void>) | null = null;
  #closed = false;
  readonly #maxQueue: number;
  readonly #maxBatch: number;
  readonly #maxPending: number;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    options: EventBusOptions = {},
  ) {
    this.#maxQueue = options.maxQueue ?? 1000;
    this.#maxBatch = options.maxBatch ?? 500;
    this.#maxPending = options.maxPending ?? 50_000;
  }

  /** LISTENs (once); resolves when notifications flow. Subscribing starts it too. */
  start(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('The event bus is closed.'));
    this.#listening ??= this.database
      .listen(EVENTS_CHANNEL, (payload) => this.#onPayload(payload))
      .then(
        (unlisten) => {
          this.#unlisten = unlisten;
        },
        (error: unknown) => {
          this.#listening = null;
          throw error;
        },
      );
    return this.#listening;
  }

  /**
   * A live stream of the merchant's events matching the filter, from the moment this resolves.
   * Ending the stream (return()) unregisters it.
   */
  async subscribe(merchantId: string, filter: EventFilter = {}): Promise<EventStream> {
    checkFilter(filter);
    await this.start();
    if (this.#closed) throw new Error('The event bus is closed.');
    let set = this.#subscribers.get(merchantId);
    if (set && set.size >= MAX_SUBSCRIPTIONS_PER_MERCHANT)
      throw new SandbankError('limit_exceeded', {
        message: `A merchant holds at most ${MAX_SUBSCRIPTIONS_PER_MERCHANT} live subscriptions on one instance; end one first.`,
      });
    const subscriber = new Subscriber(merchantId, filter, this.#maxQueue, (ended) => this.#remove(ended));
    if (!set) {
      set = new Set();
      this.#subscribers.set(merchantId, set);
    }
    set.add(subscriber);
    return subscriber;
  }

  /** Called for every committed event announced on the channel (before any loading or filtering). */
  onAnnouncement(listener: (announcement: Announcement) => void): void {
    this.#announcementListeners.add(listener);
  }

  /** Subscribers currently registered (all merchants). */
  get size(): number {
    let n = 0;
    for (const set of this.#subscribers.values()) n += set.size;
    return n;
  }

  /** Stops listening and ends every stream (normally: the server is shutting down). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    for (const set of [...this.#subscribers.values()]) for (const subscriber of [...set]) subscriber.finish();
    await this.#listening?.catch(() => {});
    const unlisten = this.#unlisten;
    this.#unlisten = null;
    await unlisten?.().catch((error: unknown) => this.logger.warn({ err: error }, 'UNLISTEN failed'));
  }

  #remove(subscriber: Subscriber): void {
    const set = this.#subscribers.get(subscriber.merchantId);
    if (!set) return;
    set.delete(subscriber);
    if (set.size === 0) this.#subscribers.delete(subscriber.merchantId);
  }

  #wanted(announcement: Announcement): boolean {
    const set = this.#subscribers.get(announcement.merchantId);
    if (!set) return false;
    for (const subscriber of set) if (subscriber.wants(announcement)) return true;
    return false;
  }

  #onPayload(payload: string): void {
    if (this.#closed) return;
    const announcement = parseAnnouncement(payload);
    if (!announcement) {
      this.logger.warn(
        { channel: EVENTS_CHANNEL },
        'ignored a notification that is not an event announcement',
      );
      return;
    }
    for (const listener of this.#announcementListeners) listener(announcement);
    // Nobody here wants it: no query at all (the common case on a busy instance).
    if (!this.#wanted(announcement)) return;
    if (this.#pending.length >= this.#maxPending) {
      this.logger.error({ pending: this.#pending.length }, 'event bus overloaded; dropping its subscribers');
      this.#failMerchants(
        this.#pending.map((a) => a.merchantId),
        new SandbankError('rate_limited', {
          message: 'The server fell behind on live events and dropped this subscription; subscribe again.',
        }),
      );
      this.#pending = [];
      return;
    }
    this.#pending.push(announcement);
    if (!this.#draining)
      this.#drain().catch((error: unknown) => this.logger.error({ err: error }, 'event bus dispatch failed'));
  }

  /** Loads and dispatches pending announcements in notification (commit) order, a batch per query. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#pending.length > 0 && !this.#closed) {
        const batch = this.#pending.splice(0, this.#maxBatch).filter((a) => this.#wanted(a));
        if (batch.length === 0) continue;
        let rows: Map<string, BusEvent>;
        try {
          rows = await this.#load(batch.map((a) => a.id));
        } catch (error) {
          this.logger.error({ err: error }, 'could not load announced events; dropping their subscribers');
          this.#failMerchants(
            batch.map((a) => a.merchantId),
            new SandbankError('internal_error', {
              message: 'Live events could not be loaded; subscribe again (GET /v1/events has every event).',
            }),
          );
          continue;
        }
        for (const announcement of batch) {
          const event = rows.get(announcement.id);
          if (!event) {
            this.logger.warn({ event_id: announcement.id }, 'announced event not found');
            continue;
          }
          // Routed by the stored row's merchant: a subscriber only ever sees its own merchant's events.
          const set = this.#subscribers.get(event.merchantId);
          if (!set) continue;
          for (const subscriber of [...set]) if (subscriber.wants(event)) subscriber.push(event);
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  #failMerchants(merchantIds: string[], error: SandbankError): void {
    for (const merchantId of new Set(merchantIds)) {
      for (const subscriber of [...(this.#subscribers.get(merchantId) ?? [])]) subscriber.fail(error);
    }
  }

  async #load(ids: string[]): Promise<Map<string, BusEvent>> {
    const rows = await this.database.db.select(eventColumns).from(events).where(inArray(events.id, ids));
    return new Map(rows.map((row) => [row.id, { ...row, objectKind: objectKindOf(row.objectId) }]));
  }
}
