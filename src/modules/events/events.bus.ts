import { inArray } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from '../../db/client.ts';
import { events } from '../../db/events.table.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { type Announcement, parseAnnouncement } from './events.announcement.ts';
import { checkFilter, type EventFilter } from './events.filter.ts';
import { objectKindOf } from './events.kinds.ts';
import { EVENTS_CHANNEL, eventColumns } from './events.service.ts';
import { type BusEvent, type EventStream, Subscriber } from './events.subscriber.ts';

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
