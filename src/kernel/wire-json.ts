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

/** JSON text stored elsewhere (an event's data as the database keeps it), embedded as is. */
export class RawJson {
  constructor(readonly text: string) {}
}

const RAW = new RegExp(`"\\\\u0001dec${MARK.slice(4, -1)}:raw(\\d+)"`, 'g');

/** JSON.stringify that writes WireDecimal values as exact numbers, embeds RawJson, and refuses bigint leaks. */
export function toWireJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint')
      throw new TypeError('bigint reached the JSON renderer; wrap money in WireDecimal');
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `${MARK}raw${raws.length - 1}`;
    }
    return v;
  });
  if (!text.includes('\\u0001dec')) return text;
  const exact = text.replace(MARKED, '$1');
  return raws.length === 0
    ? exact
    : exact.replace(RAW, (_match, index: string) => raws[Number(index)] ?? 'null');
}
