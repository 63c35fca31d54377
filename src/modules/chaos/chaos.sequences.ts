/**
 * The positions of seeded chaos sequences, in memory, kept per merchant so that no merchant can make
 * another lose its place (docs/guide/chaos.md, Seeds):
 * - a merchant keeps at most `perMerchant` sequences; a new one beyond that forgets the merchant's
 *   least recently used one (its own, never another merchant's);
 * - all merchants together keep at most `total`; beyond that, an entry is forgotten from a merchant
 *   holding more than its share (`total` divided by the merchants kept), the least recently used
 *   such merchant, its least recently used sequence. A merchant within its share is never touched:
 *   when the total is over, some merchant is over its share.
 * Maps iterate in insertion order, so a key re-inserted on use keeps both orders: the first merchant
 * of `#merchants` is the least recently used, and so is the first sequence of each merchant's map.
 */
export class SeedSequences {
  readonly #merchants = new Map<string, Map<string, number>>();
  #size = 0;

  constructor(
    readonly perMerchant: number,
    readonly total: number,
  ) {}

  /** The position of this use in the merchant's sequence `key` (0 first); the next use gets one more. */
  next(merchantId: string, key: string): number {
    const sequences = this.#merchants.get(merchantId) ?? new Map<string, number>();
    this.#merchants.delete(merchantId);
    this.#merchants.set(merchantId, sequences);
    const n = sequences.get(key);
    if (n === undefined) {
      if (sequences.size >= this.perMerchant) this.#forgetOldest(merchantId, sequences, false);
      this.#size++;
    } else sequences.delete(key);
    sequences.set(key, (n ?? 0) + 1);
    if (this.#size > this.total) this.#forgetOverShare();
    return n ?? 0;
  }

  /** Forgets every sequence of the merchant (its chaos was set: they start again). */
  restart(merchantId: string): void {
    this.#size -= this.#merchants.get(merchantId)?.size ?? 0;
    this.#merchants.delete(merchantId);
  }

  /** The sequences a merchant keeps (for tests and docs: how the bounds hold). */
  keptBy(merchantId: string): number {
    return this.#merchants.get(merchantId)?.size ?? 0;
  }

  /** The sequences all merchants keep. */
  get size(): number {
    return this.#size;
  }

  #forgetOverShare(): void {
    const merchants = this.#merchants.size;
    for (const [merchantId, sequences] of this.#merchants) {
      // Over its share: sequences / 1 > total / merchants, in integers.
      if (sequences.size * merchants > this.total) {
        this.#forgetOldest(merchantId, sequences);
        return;
      }
    }
  }

  /** Forgets a merchant's least recently used sequence, and the merchant once it has none (`drop`). */
  #forgetOldest(merchantId: string, sequences: Map<string, number>, drop = true): void {
    const oldest = sequences.keys().next();
    if (oldest.done) return;
    sequences.delete(oldest.value);
    this.#size--;
    if (drop && sequences.size === 0) this.#merchants.delete(merchantId);
  }
}
