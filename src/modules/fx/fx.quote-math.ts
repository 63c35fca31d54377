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

/** Target minor units for `sourceCents` at `rate`: rounded half to even. */
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

/** The most target minor units `sourceCents` are worth at the mid rate (rounded down). */
function worthAtMid(sourceCents: bigint, mid: Rate, target: FxTargetCurrency): bigint {
  const { up, down } = scaleOf(target);
  return (sourceCents * mid * up) / down;
}

/**
 * The rate at which `sourceCents` buy exactly `targetMinor`, rounded up on the rate's 10th decimal.
 * Rounded up, so sourceCents at it buy at least targetMinor (the merchant never pays under it), by
 * less than sourceCents × 10⁻¹⁰ target units: under half a minor unit below MAX_EXACT_SOURCE_CENTS,
 * so converting sourceCents at it, half to even, gives targetMinor back exactly.
 */
export function effectiveRate(sourceCents: bigint, targetMinor: bigint, target: FxTargetCurrency): Rate {
  const { up, down } = scaleOf(target);
  return ceilDiv(targetMinor * down, sourceCents * up);
}

/** Below this many cents a quote's effective rate reproduces its target exactly (any currency). */
export const MAX_EXACT_SOURCE_CENTS = 5_000_000_000n; // 50,000,000.00 USD

export interface QuoteAmounts {
  /** The locked rate: the effective rate of the two amounts (effectiveRate). */
  rate: Rate;
  sourceAmount: bigint;
  targetAmount: bigint;
  /** USD cents: the spread inside sourceAmount (what the target would cost at the mid rate, less). */
  fee: bigint;
}

/**
 * The amounts of a quote priced at the sell rate `rate` (the mid rate `mid` less the spread):
 * - Source fixed: the target is the source at the sell rate, rounded half to even —
 *   but never more than the source is worth at the mid rate (that cap only binds for a few cents,
 *   where half a minor unit is more than the spread; with FX_SPREAD=0 it makes rounding down).
 * - Target fixed: exactly that target, for the fewest whole cents that buy it at the sell rate.
 * The locked rate is then the effective rate of the two amounts: converting sourceAmount at it,
 * half to even, gives targetAmount exactly, and sourceAmount × rate ≥ targetAmount — the merchant
 * never pays under the quoted rate. It differs from the sell rate only by the rounding to whole
 * minor units, and is never above the mid rate. `fee` is sourceAmount − (targetAmount at the mid
 * rate): the spread inside sourceAmount, not charged on top, never negative. A quote that would
 * move nothing on either side, or too much for the rate to be exact, is 400 amount_invalid.
 */
export function quoteAmounts(
  input: { rate: Rate; mid: Rate; target: FxTargetCurrency } & (
    | { sourceAmount: bigint; targetAmount?: undefined }
    | { targetAmount: bigint; sourceAmount?: undefined }
  ),
): QuoteAmounts {
  const { mid, target } = input;
  const param = input.targetAmount !== undefined ? 'target_amount' : 'source_amount';
  const sourceAmount =
    input.sourceAmount !== undefined
      ? input.sourceAmount
      : sourceFromTarget(input.targetAmount, input.rate, target);
  const targetAmount =
    input.targetAmount !== undefined
      ? input.targetAmount
      : minBigInt(
          targetFromSource(input.sourceAmount, input.rate, target),
          worthAtMid(input.sourceAmount, mid, target),
        );
  if (targetAmount <= 0n || sourceAmount <= 0n) {
    throw new SandbankError('amount_invalid', {
      param,
      message: `This amount converts to nothing in ${target}; quote a larger amount.`,
    });
  }
  if (sourceAmount > MAX_EXACT_SOURCE_CENTS) {
    throw new SandbankError('amount_invalid', {
      param,
      message: 'This amount is more than one quote can convert; quote a smaller amount.',
    });
  }
  const fee = sourceAmount - midValueInCents(targetAmount, mid, target);
  return { rate: effectiveRate(sourceAmount, targetAmount, target), sourceAmount, targetAmount, fee };
}

function minBigInt(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
