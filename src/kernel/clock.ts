/**
 * Services read business time from a Clock, never from Date.now() (house rule: the merchant's clock, docs/internals/house-rules.md).
 * The per-merchant simulated clock (offset + freeze) implements the same interface.
 */
export interface Clock {
  now(): Date;
  /**
   * The real (wall-clock) time a simulated clock runs on; absent, the system clock. For limits that
   * must hold in real time whatever a merchant does to its clock (a token's card secrets).
   */
  readonly real?: Clock;
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

/** The real instant behind `clock` (its `real` clock, else the system clock). */
export function realNowOf(clock: Clock): Date {
  return (clock.real ?? systemClock).now();
}

export function addSeconds(at: Date, seconds: number): Date {
  return new Date(at.getTime() + seconds * 1000);
}
