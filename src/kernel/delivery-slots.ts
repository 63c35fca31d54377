/** How many delivery attempts may be in flight at once, in all, per merchant and per endpoint. */
export interface SlotLimits {
  /** Attempts in flight in this process, all merchants. */
  concurrency: number;
  /** Attempts in flight for one merchant. */
  perMerchant: number;
  /** Attempts in flight to one endpoint. */
  perEndpoint: number;
}

/**
 * The attempts in flight in this process, by merchant and by endpoint, shared by the background
 * delivery pump and clock advances (both send through the process's one transport).
 */
export class DeliverySlots {
  #inFlight = 0;
  readonly #byMerchant = new Map<string, number>();
  readonly #byEndpoint = new Map<string, number>();
  #waiters: { merchantId: string; endpointId: string; resolve: () => void }[] = [];

  constructor(readonly limits: SlotLimits) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Attempts waiting in acquire() for their merchant or endpoint to get under its cap. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Slots of the pool not in use. */
  get free(): number {
    return Math.max(0, this.limits.concurrency - this.#inFlight);
  }

  /** Attempts in flight by merchant and by endpoint (the ones with at least one). */
  busy(): { merchants: Record<string, number>; endpoints: Record<string, number> } {
    return {
      merchants: Object.fromEntries(this.#byMerchant),
      endpoints: Object.fromEntries(this.#byEndpoint),
    };
  }

  /** Whether one more attempt of this merchant to this endpoint stays within both caps. */
  fits(merchantId: string, endpointId: string): boolean {
    return (
      (this.#byMerchant.get(merchantId) ?? 0) < this.limits.perMerchant &&
      (this.#byEndpoint.get(endpointId) ?? 0) < this.limits.perEndpoint
    );
  }

  /** Takes a slot at once (the pump leases only what fits). */
  take(merchantId: string, endpointId: string): void {
    this.#inFlight++;
    this.#byMerchant.set(merchantId, (this.#byMerchant.get(merchantId) ?? 0) + 1);
    this.#byEndpoint.set(endpointId, (this.#byEndpoint.get(endpointId) ?? 0) + 1);
  }

  /**
   * Takes a slot once the merchant and the endpoint are under their caps (a clock advance, one
   * attempt at a time). The pool's overall size does not hold it back: it counts in it, so the
   * background pump leases less meanwhile.
   */
  async acquire(merchantId: string, endpointId: string): Promise<void> {
    while (!this.fits(merchantId, endpointId))
      await new Promise<void>((resolve) => this.#waiters.push({ merchantId, endpointId, resolve }));
    this.take(merchantId, endpointId);
  }

  release(merchantId: string, endpointId: string): void {
    this.#inFlight--;
    decrement(this.#byMerchant, merchantId);
    decrement(this.#byEndpoint, endpointId);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter.resolve(); // each looks again
  }
}

function decrement(map: Map<string, number>, key: string): void {
  const n = (map.get(key) ?? 0) - 1;
  if (n > 0) map.set(key, n);
  else map.delete(key);
}
