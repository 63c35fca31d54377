import { type CurrencyCode, minorUnits } from './currency.ts';
import { SandbankError } from './errors.ts';

/**
 * The only codec between wire decimals (major units, "100.50" or 100.5) and bigint minor units.
 * Money never travels as a float inside Sandbank: a JSON number is read through its shortest
 * decimal representation, which is exact for every amount with at most the currency's digits.
 */
export interface Money {
  amount: bigint;
  currency: CurrencyCode;
}

const DECIMAL_PATTERN = /^(\d+)(?:\.(\d+))?$/;

export interface AmountBounds {
  /** Smallest accepted amount in minor units (default 1). */
  min?: bigint;
  /** Largest accepted amount in minor units. */
  max?: bigint;
  /** Name of the parameter reported in errors (default "amount"). */
  param?: string;
}

function amountError(param: string, message: string): SandbankError {
  return new SandbankError('amount_invalid', { param, message });
}

/** Reads a wire amount (JSON number or decimal string) into minor units, or throws amount_invalid. */
export function parseAmount(value: unknown, currency: CurrencyCode, bounds: AmountBounds = {}): bigint {
  const param = bounds.param ?? 'amount';
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw amountError(param, 'The amount must be a finite number.');
    text = String(value);
  } else if (typeof value === 'string') {
    text = value;
  } else {
    throw amountError(param, 'The amount must be a number or a decimal string.');
  }
  if (text.startsWith('-')) throw amountError(param, 'The amount must be positive.');
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) throw amountError(param, `"${text.slice(0, 40)}" is not a decimal amount.`);
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? '';
  const scale = minorUnits(currency);
  // A number arrives through its shortest decimal form; a string is taken literally ("1.230" has 3 digits).
  const significant = typeof value === 'number' ? fraction.replace(/0+$/, '') : fraction;
  if (significant.length > scale) {
    throw amountError(param, `${currency} amounts have at most ${scale} decimal places.`);
  }
  if (whole.length > 30) throw amountError(param, 'The amount is too large.');
  const minor = BigInt(whole) * 10n ** BigInt(scale) + BigInt(significant.padEnd(scale, '0') || '0');
  const min = bounds.min ?? 1n;
  if (minor < min) {
    throw amountError(
      param,
      minor === 0n
        ? 'The amount must be greater than zero.'
        : `The amount must be at least ${formatDecimal(min, currency)}.`,
    );
  }
  if (bounds.max !== undefined && minor > bounds.max) {
    throw amountError(
      param,
      `The amount must be at most ${formatDecimal(bounds.max, currency)} ${currency}.`,
    );
  }
  return minor;
}

/** Minor units to a decimal string with exactly the currency's digits: 10050n USD → "100.50". */
export function formatDecimal(minor: bigint, currency: CurrencyCode): string {
  const scale = minorUnits(currency);
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
}

/** Major units to minor units for constants written in code: majorToMinor(999_999.99) is not allowed; use strings. */
export function minorFromDecimal(decimal: string, currency: CurrencyCode): bigint {
  return parseAmount(decimal, currency, { min: 0n });
}
