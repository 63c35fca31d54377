import { minorUnits } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { type FxTargetCurrency, RATE_SCALE, type Rate, roundHalfEven } from './fx.rates.ts';

/**
 * Quote arithmetic, exact in bigint. Amounts are minor units: USD cents, EUR/GBP cents, whole yen.
 * A rate is target major units per USD major unit, on RATE_SCALE. So for S cents and T target
 * minor units, T = S × rate × 10^targetDigits / (100 × RATE_SCALE) exactly.
 */
const USD_DIGITS = 2n;

/** The denominator and the target's scale of the exact conversion of cents at a rate. */
function scaleOf(target: FxTargetCurrency) {
  return { up: 10n ** BigInt(minorUnits(target)), down: 10n ** USD_DIGITS * RATE_SCALE };
}

/** Smallest integer ≥ n / d, for n ≥ 0 and d > 0. */
export function ceilDiv(n: bigint, d: bigint): bigint {
  return (n + d - 1n) / d;
}

/** Target minor units for `sourceCents` at `rate`: rounded half to even (API.md §11). */
export function targetFromSource(sourceCents: bigint, rate: Rate, target: FxTargetCurrency): bigint {
  const { up, down } = scaleOf(target);
  return roundHalfEven(sourceCents * rate * up, down);
}

/**
 * The fewest USD cents that buy `targetMinor` at `rate` (S × rate ≥ T exactly): when the merchant
 * fixes the target amount, it never pays less than the quoted rate says.
 */
export function sourceFromTarget(targetMinor: bigint, rate: Rate, target: FxTargetCurrency): bigint {
  const { up, down } = scaleOf(target);
  return ceilDiv(targetMinor * down, rate * up);
}

/** USD cents worth `targetMinor` at the mid rate, half to even (for the fee). */
function midValueInCents(targetMinor: bigint, mid: Rate, target: FxTargetCurrency): bigint {
  const { up, down } = scaleOf(target);
  return roundHalfEven(targetMinor * down, mid * up);
}

/**
 * The rate at which `sourceCents` buy exactly `targetMinor`, rounded up on the rate's 10th decimal.
 * Rounded up, so sourceCents at it buy at least targetMinor (the merchant never pays under it), by
 * less than sourceCents × 10⁻¹⁰ target units: under half a minor unit below MAX_EXACT_SOURCE_CENTS,
 * so converting sourceCents at it gives targetMinor back exactly.
 */
export function effectiveRate(sourceCents: bigint, targetMinor: bigint, target: FxTargetCurrency): Rate {
  const { up, down } = scaleOf(target);
  return ceilDiv(targetMinor * down, sourceCents * up);
}

/** Below this many cents a target-fixed quote's effective rate reproduces its target exactly (any currency). */
export const MAX_EXACT_SOURCE_CENTS = 5_000_000_000n; // 50,000,000.00 USD

export interface QuoteAmounts {
  /** The locked rate: the sell rate, or for a target-fixed quote the effective rate (never above it). */
  rate: Rate;
  sourceAmount: bigint;
  targetAmount: bigint;
  /** USD cents: the spread inside sourceAmount (what the target would cost at the mid rate, less). */
  fee: bigint;
}

/**
 * The amounts of a quote at the sell rate `rate`, so that in both cases converting sourceAmount at
 * the returned rate gives targetAmount exactly (targetFromSource).
 * - Source fixed: the target is the source at the sell rate, rounded half to even (API.md §11); the
 *   locked rate is the sell rate.
 * - Target fixed: exactly that target, for the fewest whole cents that buy it at the sell rate;
 *   whole cents rarely buy a target exactly, so the locked rate is the effective rate those cents
 *   get (target ÷ source, rounded up on the 10th decimal): never above the sell rate, and the
 *   merchant pays at least target ÷ rate.
 * `fee` is informational: sourceAmount − (targetAmount at the mid rate), never below zero; it is
 * inside sourceAmount, not charged on top. A quote that would move nothing on either side is 400
 * amount_invalid.
 */
export function quoteAmounts(
  input: { rate: Rate; mid: Rate; target: FxTargetCurrency } & (
    | { sourceAmount: bigint; targetAmount?: undefined }
    | { targetAmount: bigint; sourceAmount?: undefined }
  ),
): QuoteAmounts {
  const { mid, target } = input;
  const fixedTarget = input.targetAmount !== undefined;
  const sourceAmount =
    input.sourceAmount !== undefined
      ? input.sourceAmount
      : sourceFromTarget(input.targetAmount, input.rate, target);
  const targetAmount =
    input.targetAmount !== undefined
      ? input.targetAmount
      : targetFromSource(input.sourceAmount, input.rate, target);
  if (targetAmount <= 0n || sourceAmount <= 0n) {
    throw new SandbankError('amount_invalid', {
      param: fixedTarget ? 'target_amount' : 'source_amount',
      message: `This amount converts to nothing in ${target}; quote a larger amount.`,
    });
  }
  if (fixedTarget && sourceAmount > MAX_EXACT_SOURCE_CENTS) {
    throw new SandbankError('amount_invalid', {
      param: 'target_amount',
      message: 'This target amount costs more than one quote can sell; quote a smaller amount.',
    });
  }
  const rate = fixedTarget ? effectiveRate(sourceAmount, targetAmount, target) : input.rate;
  const atMid = midValueInCents(targetAmount, mid, target);
  return { rate, sourceAmount, targetAmount, fee: sourceAmount > atMid ? sourceAmount - atMid : 0n };
}
