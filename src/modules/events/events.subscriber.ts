import { SandbankError } from '../../kernel/errors.ts';
import type { Announcement } from './events.announcement.ts';
import { type EventFilter, matchesFilter } from './events.filter.ts';
import type { ObjectKind } from './events.kinds.ts';
import type { EventRow } from './events.service.ts';

/** A committed event as subscribers receive it. */
export interface BusEvent extends EventRow {
  objectKind: ObjectKind | null;
}

/** A subscriber's stream: an async iterator over a bounded queue. */
export interface EventStream extends AsyncIterableIterator<BusEvent> {
  return(): Promise<IteratorResult<BusEvent>>;
  /**
   * Ends the stream at once, its slot freed: what is queued is dropped and `error` is the next
   * thing read (a credential that stopped authenticating).
   */
  abort(error: unknown): void;
  /** Runs `listener` once the stream has ended, however it ended (at once when it already has). */
  whenEnded(listener: () => void): void;
}

const DONE: IteratorResult<BusEvent> = { done: true, value: undefined };

export class Subscriber implements EventStream {
  readonly #queue: BusEvent[] = [];
  #waiting: { resolve: (result: IteratorResult<BusEvent>) => void; reject: (error: unknown) => void } | null =
    null;
  #ended = false;
  #error: unknown = null;
  readonly #endListeners: (() => void)[] = [];

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

  abort(error: unknown): void {
    if (this.#ended) return;
    this.#queue.length = 0;
    this.fail(error);
  }

  whenEnded(listener: () => void): void {
    if (this.#ended) listener();
    else this.#endListeners.push(listener);
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
    for (const listener of this.#endListeners.splice(0)) listener();
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
