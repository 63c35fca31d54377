import { randomBytes } from 'node:crypto';
import type { CurrencyCode } from './currency.ts';
import { formatDecimal } from './money.ts';

/**
 * A decimal amount rendered as a bare JSON number with exactly the currency's digits
 * (`100.50`, not `100.5` and not a float that passed through binary arithmetic).
 */
export class WireDecimal {
  constructor(readonly text: string) {}

  static of(minor: bigint, currency: CurrencyCode): WireDecimal {
    return new WireDecimal(formatDecimal(minor, currency));
  }

  toJSON(): string {
    return `${MARK}${this.text}`;
  }
}

/** A per-process random marker: no client-supplied string can imitate it. */
const MARK = `\u0001dec${randomBytes(6).toString('hex')}:`;
const MARKED = new RegExp(`"\\\\u0001dec${MARK.slice(4, -1)}:(-?\\d+(?:\\.\\d+)?)"`, 'g');

/** JSON.stringify that writes WireDecimal values as exact numbers and refuses bigint leaks. */
export function toWireJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint')
      throw new TypeError('bigint reached the JSON renderer; wrap money in WireDecimal');
    return v;
  });
  return text.includes('\\u0001dec') ? text.replace(MARKED, '$1') : text;
}
