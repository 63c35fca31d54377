/**
 * Which movements an open expected payment takes (docs/guide/reconciliation.md): movements of its
 * direction booked inside its window, on its rail when it names one, not taken by another expected
 * payment. With a reference, the movements carrying it add up: within the amount range it is matched,
 * short of it partially matched; a movement that would take it over the range is not taken (an
 * overpayment is a mismatch to resolve by hand). Without a reference, one movement within the range
 * matches it; smaller ones are not summed (they could be anyone's).
 */
export interface Movement {
  postingId: string;
  sourceType: string;
  sourceId: string;
  /** Minor units, positive: the movement's size in the expected payment's direction. */
  amount: bigint;
  bookedAt: Date;
  rail: string | null;
  reference: string | null;
  description: string | null;
}

export interface Expectation {
  amountMin: bigint;
  amountMax: bigint;
  amountMatched: bigint;
  rail: string | null;
  reference: string | null;
}

export interface MatchOutcome {
  taken: Movement[];
  total: bigint;
  state: 'unmatched' | 'partially_matched' | 'matched';
}

/** Whether a movement carries the reference: as its own reference, or in its description. */
export function carries(movement: Movement, reference: string): boolean {
  const wanted = reference.trim().toLowerCase();
  if (movement.reference?.trim().toLowerCase() === wanted) return true;
  // In a description, as a word of its own: INV-1 is not in "INV-10".
  const escaped = wanted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^a-z0-9])${escaped}($|[^a-z0-9])`, 'i').test(movement.description ?? '');
}

export function matchMovements(expected: Expectation, movements: readonly Movement[]): MatchOutcome {
  const eligible = movements.filter((m) => !expected.rail || m.rail === expected.rail);
  const taken: Movement[] = [];
  let total = expected.amountMatched;
  if (expected.reference) {
    for (const movement of eligible) {
      if (!carries(movement, expected.reference)) continue;
      if (total + movement.amount > expected.amountMax) continue;
      taken.push(movement);
      total += movement.amount;
      if (total >= expected.amountMin) break;
    }
  } else if (total === 0n) {
    const one = eligible.find((m) => m.amount >= expected.amountMin && m.amount <= expected.amountMax);
    if (one) {
      taken.push(one);
      total = one.amount;
    }
  }
  const state = total >= expected.amountMin ? 'matched' : total > 0n ? 'partially_matched' : 'unmatched';
  return { taken, total, state };
}
