/**
 * FX rates as exact decimals: a rate is a bigint scaled by RATE_SCALE (10 decimal places), so
 * "151.5" is 1_515_000_000_000n. No float ever holds a rate or an amount. Here: the rates, the
 * currencies they are quoted in, and the configuration (base rates and spread) the services run
 * with (ServiceConfig, src/modules/context.ts); the fx module moves them over time (fx.rates.ts).
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
