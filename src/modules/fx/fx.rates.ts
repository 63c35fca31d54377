import { createHash } from 'node:crypto';
import { type FxTargetCurrency, RATE_SCALE, type Rate } from '../../kernel/fx-rates.ts';

/** The rates as exact decimals and their configuration live in the kernel (src/kernel/fx-rates.ts). */
export {
  DEFAULT_FX_RATES,
  DEFAULT_SPREAD,
  FX_TARGET_CURRENCIES,
  type FxConfig,
  type FxTargetCurrency,
  formatRate,
  isFxTargetCurrency,
  parseFxRatesConfig,
  parseRate,
  parseSpreadConfig,
  RATE_SCALE,
  type Rate,
} from '../../kernel/fx-rates.ts';

const HOUR_MS = 3_600_000;

/** The UTC hour an instant falls in: every instant of it has the same rates. */
export function hourStart(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / HOUR_MS) * HOUR_MS);
}

/** When the rates change next: the next UTC hour. */
export function nextRateChangeAt(instant: Date): Date {
  return new Date(hourStart(instant).getTime() + HOUR_MS);
}

/** numerator / denominator rounded half to even (banker's rounding), for either sign of numerator. */
export function roundHalfEven(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new Error('roundHalfEven: the denominator must be positive');
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  let quotient = n / denominator;
  const twice = (n % denominator) * 2n;
  if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) quotient += 1n;
  return negative ? -quotient : quotient;
}

/** A deterministic integer in [0, size) for a key: the first 32 bits of its SHA-256. */
function hashed(key: string, size: number): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % size;
}

const DAY_HOURS = 24;

/**
 * How far a currency's mid rate is from its base in one UTC hour, in 1/100,000 of the base:
 * - a trend: each UTC day has an anchor within ±0.8% (hashed from the currency and the day), and
 *   the hours between two midnights move in a straight line from one anchor to the next;
 * - a wobble of the hour itself within ±0.04% (hashed from the currency and the hour);
 * - the hour's parity as the last bit, so two adjacent hours always differ, by construction.
 * So the rate drifts over days and moves a little each hour, and never more than ±0.85%.
 */
export function movementAt(currency: FxTargetCurrency, hour: number): number {
  const day = Math.floor(hour / DAY_HOURS);
  const from = hashed(`${currency}:day:${day}`, 1601) - 800;
  const to = hashed(`${currency}:day:${day + 1}`, 1601) - 800;
  const intoDay = hour - day * DAY_HOURS;
  const trend = from + Math.round(((to - from) * intoDay) / DAY_HOURS);
  const k = trend + hashed(`${currency}:hour:${hour}`, 81) - 40;
  const parity = ((hour % 2) + 2) % 2;
  return ((k % 2) + 2) % 2 === parity ? k : k + 1;
}

/**
 * The mid rate of `currency` at an instant: the base rate moved by its hour's movement, the same
 * for every instant of one UTC hour and different from the hour before and after.
 */
export function midRateAt(base: Rate, currency: FxTargetCurrency, instant: Date): Rate {
  const hour = Math.floor(instant.getTime() / HOUR_MS);
  return roundHalfEven(base * (100_000n + BigInt(movementAt(currency, hour))), 100_000n);
}

/**
 * The rate the merchant gets: the mid rate less the spread, rounded down — toward fewer target
 * units per USD, so the desk never gives more than the spread says.
 */
export function sellRate(mid: Rate, spread: Rate): Rate {
  return (mid * (RATE_SCALE - spread)) / RATE_SCALE;
}
