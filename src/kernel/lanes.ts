/**
 * Lanes: at most `concurrency` pieces of work run at once per key, the others wait their turn in
 * arrival order. Keyed by merchant, they make one merchant's heavy requests queue behind each
 * other instead of in front of everybody else's (on PGlite's single connection, and in a Postgres
 * pool alike).
 */
export class LaneFull extends Error {
  constructor(readonly key: string) {
    super(`lane ${key} is full`);
  }
}

interface Lane {
  running: number;
  waiting: (() => void)[];
}

export class Lanes {
  private readonly lanes = new Map<string, Lane>();

  /**
   * @param concurrency pieces of work of one key that run at once
   * @param maxWaiting pieces of work of one key that may wait; one more is refused with LaneFull
   */
  constructor(
    readonly concurrency: number,
    readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {}

  /** Runs `work` in `key`'s lane, waiting first while that lane is full. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { running: 0, waiting: [] };
      this.lanes.set(key, lane);
    }
    if (lane.running >= this.concurrency) {
      if (lane.waiting.length >= this.maxWaiting) throw new LaneFull(key);
      const queued = lane;
      await new Promise<void>((resolve) => queued.waiting.push(resolve));
    } else {
      lane.running += 1;
    }
    try {
      return await work();
    } finally {
      this.release(key, lane);
    }
  }

  /** Pieces of work of `key` running and waiting now. */
  load(key: string): { running: number; waiting: number } {
    const lane = this.lanes.get(key);
    return { running: lane?.running ?? 0, waiting: lane?.waiting.length ?? 0 };
  }

  private release(key: string, lane: Lane): void {
    const next = lane.waiting.shift();
    // The slot passes straight to the next in line: `running` stays as it is.
    if (next) {
      next();
      return;
    }
    lane.running -= 1;
    if (lane.running === 0) this.lanes.delete(key);
  }
}
