import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../../db/availability.ts';
import type { Db } from '../../db/client.ts';
import { WebhookTransport } from '../../kernel/webhook-transport.ts';
import { attemptOne, holdBack, type Planned, planAttempts } from './webhooks.attempt.ts';
import { leaseDue } from './webhooks.delivery.ts';
import { readyDialectDeliveries } from './webhooks.dialect.ts';
import type { Claimed } from './webhooks.lease.ts';
import { AttemptRecorder } from './webhooks.record.ts';
import { type DeliverySender, deliverySender } from './webhooks.sending.ts';

export interface PumpOptions {
  /** Deliveries leased by one statement at most (fewer when fewer slots are free). */
  batchSize?: number;
  /** How long a wake-up waits so that one lease carries the deliveries of several commits. */
  coalesceMs?: number;
  /**
   * Whether the API is saturated right now. While it is, delivery uses at most a quarter of its
   * slots (at least one): requests keep priority, deliveries lag and catch up when the load passes.
   * Never true in normal use; see docs/internals/benchmarks.md.
   */
  apiSaturated?: () => boolean;
  /**
   * How deliveries are sent (server.ts passes the process's); a transport of its own by default.
   * Its slots (the pool's size and the per-merchant and per-endpoint caps) bound the attempts in
   * flight, shared with the process's clock advances.
   */
  transport?: WebhookTransport;
}

/**
 * The background delivery worker of one process: a pool of attempt slots (the transport's), refilled
 * as each attempt ends. `wake()` (on every committed event that queued a delivery, on the
 * scheduler's tick, and when an attempt ends) leases due deliveries into the free slots, passing over
 * merchants and endpoints at their caps; it never waits for an attempt before leasing more, so a
 * receiver that never answers holds one slot, not the others. Wake-ups while it leases are remembered,
 * so nothing committed waits for the next tick.
 */
export class DeliveryPump {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #batchSize: number;
  readonly #coalesceMs: number;
  readonly #apiSaturated: () => boolean;
  readonly #transport: WebhookTransport;
  readonly #recorder: AttemptRecorder;
  readonly #attempts = new Set<Promise<void>>();
  #filling: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(db: Db, logger: Logger, options: PumpOptions = {}) {
    this.#db = db;
    this.#logger = logger;
    this.#batchSize = options.batchSize ?? 100;
    this.#coalesceMs = options.coalesceMs ?? 10;
    this.#apiSaturated = options.apiSaturated ?? (() => false);
    this.#transport = options.transport ?? new WebhookTransport();
    this.#recorder = new AttemptRecorder(db);
  }

  /** Attempts this pump has in flight. */
  get inFlight(): number {
    return this.#attempts.size;
  }

  wake(): void {
    this.#wake(this.#coalesceMs);
  }

  #wake(delayMs: number): void {
    if (this.#stopped) return;
    if (this.#filling) {
      this.#again = true;
      return;
    }
    this.#filling = this.#fill(delayMs).finally(() => {
      this.#filling = null;
      // A wake-up that came after the loop's last look but before this point is not lost.
      if (this.#again) this.#wake(0);
    });
  }

  /** Free slots: all of the pool's, or a quarter of it while the API is saturated. */
  #room(): number {
    const slots = this.#transport.slots;
    if (!this.#apiSaturated()) return slots.free;
    const quarter = Math.max(1, Math.floor(slots.limits.concurrency / 4));
    return Math.max(0, quarter - slots.inFlight);
  }

  async #fill(delayMs: number): Promise<void> {
    if (delayMs > 0) await sleep(delayMs);
    while (!this.#stopped) {
      this.#again = false;
      const room = Math.min(this.#room(), this.#batchSize);
      // No free slot: the next attempt to end wakes the pump again.
      if (room === 0) return;
      let claimed: Claimed[];
      try {
        claimed = await leaseDue(this.#db, this.#transport.slots, room);
      } catch (error) {
        // An unreachable database is logged once by the server (db/availability.ts), not per batch.
        if (isDatabaseUnavailable(error))
          this.#logger.debug({ err: error }, 'webhook delivery waits for the database');
        else this.#logger.error({ err: error }, 'webhook delivery failed');
        return;
      }
      // The slots are taken before anything else is awaited: the next lease counts them.
      for (const c of claimed) this.#transport.slots.take(c.merchantId, c.endpointId);
      if (claimed.length > 0) await this.#start(claimed);
      // Nothing leased: nothing due fits now (a merchant or endpoint at its cap is leased when one
      // of its attempts ends) unless a wake-up came meanwhile.
      else if (!this.#again) return;
    }
  }

  /**
   * Readies the batch (a delivery of a native event to a Stripe dialect endpoint becomes the
   * dialect's deliveries, leased by the next turn of the loop), plans it in claim order (webhook
   * chaos), writes the holds, and starts each attempt in its slot.
   */
  async #start(claimed: Claimed[]): Promise<void> {
    const sender = deliverySender(this.#transport);
    let now: Planned[];
    try {
      const ready = await readyDialectDeliveries(this.#db, claimed);
      now = await holdBack(this.#db, await planAttempts(this.#db, sender, ready));
    } catch (error) {
      // Their leases lapse and they are taken again.
      this.#logger.error({ err: error }, 'webhook delivery failed');
      for (const c of claimed) this.#transport.slots.release(c.merchantId, c.endpointId);
      return;
    }
    const attempted = new Set(now.map((p) => p.claimed));
    for (const c of claimed) if (!attempted.has(c)) this.#transport.slots.release(c.merchantId, c.endpointId);
    for (const planned of now) {
      const attempt = this.#attempt(sender, planned).finally(() => {
        this.#transport.slots.release(planned.claimed.merchantId, planned.claimed.endpointId);
        this.#attempts.delete(attempt);
        this.#wake(0);
      });
      this.#attempts.add(attempt);
    }
  }

  async #attempt(sender: DeliverySender, planned: Planned): Promise<void> {
    try {
      await this.#recorder.record(await attemptOne(sender, planned));
    } catch (error) {
      this.#logger.error({ err: error }, 'webhook delivery failed');
    }
  }

  /** Stops leasing; resolves once the attempts in flight have ended and been recorded. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#filling;
    while (this.#attempts.size > 0) await Promise.all([...this.#attempts]);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
