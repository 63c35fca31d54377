/**
 * Services read business time from a Clock, never from Date.now() (house rule: the merchant's clock, docs/house-rules.md).
 * The per-merchant simulated clock (offset + freeze) implements the same interface.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

/** A clock that stands still at a given instant until moved; for tests and frozen merchant clocks. */
export class FixedClock implements Clock {
  #at: number;

  constructor(at: Date) {
    this.#at = at.getTime();
  }

  now(): Date {
    return new Date(this.#at);
  }

  advance(seconds: number): void {
    this.#at += seconds * 1000;
  }
}

export function addSeconds(at: Date, seconds: number): Date {
  return new Date(at.getTime() + seconds * 1000);
}
