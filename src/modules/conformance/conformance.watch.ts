import { SandbankError } from '../../kernel/errors.ts';
import { type ObjectTap, type TapKind, tapObject } from '../../kernel/object-taps.ts';

/** What a scenario makes of the handler's calls on its collection. */
export interface WatchOptions {
  /** Every call waits this long before it is served (a slow dependency); 0: none. */
  delayMs: number;
  /** Writes are refused with a 503 (a failing dependency) until stopFailing(). */
  failWrites: boolean;
}

export interface CallCounts {
  reads: number;
  writes: number;
  failed_writes: number;
}

/**
 * The handler's calls on one scenario's collection, counted as they are served: reads, writes that
 * succeeded, writes that failed. A scenario waits on them (`until`) instead of sleeping blindly.
 */
export class ObjectWatch {
  readonly counts: CallCounts = { reads: 0, writes: 0, failed_writes: 0 };
  /** Calls that reached the collection, served yet or not (a delayed one counts at once). */
  arrived = 0;
  #failing: boolean;
  #listeners = new Set<() => void>();
  #untap: () => void;

  constructor(merchantId: string, keys: readonly string[], options: WatchOptions, runId: string) {
    this.#failing = options.failWrites;
    const tap: ObjectTap = {
      enter: async (kind: TapKind) => {
        this.arrived++;
        if (options.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
        if (kind === 'write' && this.#failing) {
          this.counts.failed_writes++;
          this.#changed();
          throw new SandbankError('conformance_fault', {
            message: `Conformance run ${runId} failed this write on purpose (scenario retry_after_failure): leave the event unhandled so that its retry does the work.`,
          });
        }
      },
      leave: (kind: TapKind, ok: boolean) => {
        if (kind === 'read') this.counts.reads++;
        else if (ok) this.counts.writes++;
        else this.counts.failed_writes++;
        this.#changed();
      },
    };
    this.#untap = tapObject(merchantId, keys, tap);
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }

  /** Resolves true once `holds()` is true, false after `ms` if it never is. */
  until(holds: (counts: CallCounts) => boolean, ms: number): Promise<boolean> {
    if (holds(this.counts)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const listener = () => {
        if (!holds(this.counts)) return;
        finish(true);
      };
      const timer = setTimeout(() => finish(false), ms);
      const finish = (value: boolean) => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve(value);
      };
      this.#listeners.add(listener);
    });
  }

  /** Serves writes from now on (the failing dependency is back). */
  stopFailing(): void {
    this.#failing = false;
  }

  /** Stops watching: later calls are served as any others (a call being delayed finishes its wait). */
  close(): void {
    this.#untap();
  }
}
