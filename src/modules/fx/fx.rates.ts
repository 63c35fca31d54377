import { createHash } from 'node:crypto';

/**
 * FX rates as exact decimals: a rate is a bigint scaled by RATE_SCALE (10 decimal places), so
 * "151.5" is 1_515_000_000_000n. No float ever holds a rate or an amount.
 */
export type Rate = bigint;
export const RATE_SCALE = 10n ** 10n;
const RATE_PLACES = 10;

export const FX_TARGET_CURRENCIES = ['EUR', 'GBP', 'JPY'] as const;
export type FxTargetCurrency = (typeof FX_TARGET_CURRENCIES)[number];

export function isFxTargetCurrency(value: unknown): value is FxTargetCurrency {
  return typeof value === 'string' && (FX_TARGET_CURRENCIES as readonly string[]).includes(value);
}

const DECIMAL = /^(\d{1,12})(?:\.(\d{1,10}))?$/;

/** "0.92" → 9_200_000_000n, "0" → 0n: a non-negative decimal with at most 10 decimals. */
function parseDecimal(text: string): Rate {
  const match = DECIMAL.exec(text.trim());
  if (!match)
    throw new Error(`"${text.slice(0, 40)}" is not a decimal rate with at most ${RATE_PLACES} decimals`);
  return BigInt(match[1] as string) * RATE_SCALE + BigInt((match[2] ?? '').padEnd(RATE_PLACES, '0'));
}

/** "0.92" → 9_200_000_000n; at most 10 decimals, greater than zero. */
export function parseRate(text: string): Rate {
  const rate = parseDecimal(text);
  if (rate <= 0n) throw new Error('a rate must be greater than zero');
  return rate;
}

/** The exact decimal, trailing zeros dropped: 9_200_000_000n → "0.92", 10n ** 10n → "1". */
export function formatRate(rate: Rate): string {
  const whole = rate / RATE_SCALE;
  const fraction = (rate % RATE_SCALE).toString().padStart(RATE_PLACES, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** Base mid rates (target units per USD) when FX_RATES does not say otherwise. */
export const DEFAULT_FX_RATES: Record<FxTargetCurrency, Rate> = {
  EUR: parseRate('0.92'),
  GBP: parseRate('0.79'),
  JPY: parseRate('151.5'),
};

/** The FX configuration: base mid rates (FX_RATES) and the spread taken off them (FX_SPREAD). */
export interface FxConfig {
  rates: Readonly<Record<FxTargetCurrency, Rate>>;
  spread: Rate;
}

/** The bounds of a configured base rate: far enough from zero and overflow for exact quotes. */
const MIN_BASE_RATE = parseRate('0.0001');
const MAX_BASE_RATE = parseRate('1000000');

/** FX_RATES: "EUR=0.92,GBP=0.79,JPY=151.5"; a currency left out keeps its default. */
export function parseFxRatesConfig(text: string): Record<FxTargetCurrency, Rate> {
  const rates = { ...DEFAULT_FX_RATES };
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const [code = '', value, ...rest] = part.split('=').map((s) => s.trim());
    if (value === undefined || rest.length > 0) throw new Error(`"${part.trim()}" is not CURRENCY=rate`);
    if (!isFxTargetCurrency(code)) throw new Error(`${code.slice(0, 10)} is not one of EUR, GBP, JPY`);
    const rate = parseRate(value);
    if (rate < MIN_BASE_RATE || rate > MAX_BASE_RATE)
      throw new Error(`${code}=${value} is outside 0.0001 to 1000000 ${code} per USD`);
    rates[code] = rate;
  }
  return rates;
}

/** 0.5% as a fraction on the rate scale (0.005). */
export const DEFAULT_SPREAD: Rate = parseRate('0.005');

/** FX_SPREAD: a percentage, "0.5" → 0.005; from 0 up to (not including) 50. */
export function parseSpreadConfig(text: string): Rate {
  const percent = parseDecimal(text);
  if (percent >= 50n * RATE_SCALE) throw new Error('the spread is a percentage below 50');
  if (percent % 100n !== 0n) throw new Error('the spread has at most 8 decimals');
  return percent / 100n;
}

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
