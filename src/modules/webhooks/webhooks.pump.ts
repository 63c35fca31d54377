import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../../db/availability.ts';
import type { Db } from '../../db/client.ts';
import { deliverDueBatch } from './webhooks.delivery.ts';
import { WebhookTransport } from './webhooks.transport.ts';

export interface PumpOptions {
  /** Deliveries leased and sent together. */
  batchSize?: number;
  /** How long a wake-up waits so that one batch carries the deliveries of several commits. */
  coalesceMs?: number;
  /**
   * Whether the API is saturated right now. While it is, delivery takes at most a quarter of the
   * time (after a batch that took t ms, the pump rests 3t ms): requests keep priority, deliveries
   * lag and catch up when the load passes. Never true in normal use; see docs/benchmarks.md.
   */
  apiSaturated?: () => boolean;
  /** How deliveries are sent (server.ts passes the process's); a transport of its own by default. */
  transport?: WebhookTransport;
}

/**
 * The background delivery loop of one process. `wake()` (on every committed event that queued a
 * delivery, and on the scheduler's tick) runs batches until one comes back short; wake-ups while
 * it runs are remembered, so nothing committed waits for the next tick.
 */
export class DeliveryPump {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #batchSize: number;
  readonly #coalesceMs: number;
  readonly #apiSaturated: () => boolean;
  readonly #transport: WebhookTransport;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(db: Db, logger: Logger, options: PumpOptions = {}) {
    this.#db = db;
    this.#logger = logger;
    this.#batchSize = options.batchSize ?? 100;
    this.#coalesceMs = options.coalesceMs ?? 10;
    this.#apiSaturated = options.apiSaturated ?? (() => false);
    this.#transport = options.transport ?? new WebhookTransport();
  }

  wake(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#run().finally(() => {
      this.#running = null;
      // A wake-up that came after the loop's last look but before this point is not lost.
      if (this.#again) this.wake();
    });
  }

  async #run(): Promise<void> {
    await sleep(this.#coalesceMs);
    while (!this.#stopped) {
      this.#again = false;
      const started = performance.now();
      let sent = 0;
      try {
        sent = await deliverDueBatch(this.#db, this.#transport, this.#batchSize);
      } catch (error) {
        // An unreachable database is logged once by the server (db/availability.ts), not per batch.
        if (isDatabaseUnavailable(error))
          this.#logger.debug({ err: error }, 'webhook delivery waits for the database');
        else this.#logger.error({ err: error }, 'webhook delivery failed');
        return;
      }
      if (sent < this.#batchSize && !this.#again) return;
      if (this.#apiSaturated()) await sleep(3 * (performance.now() - started));
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
