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

/** RawJson texts of the toWireJson call under way (JSON.stringify is synchronous: one at a time). */
let pendingRaws: string[] | null = null;

/** JSON text stored elsewhere (an event's data as the database keeps it), embedded as is. */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): string {
    if (!pendingRaws) throw new TypeError('RawJson is rendered by toWireJson only');
    pendingRaws.push(this.text);
    return `${MARK}raw${pendingRaws.length - 1}`;
  }
}

const RAW = new RegExp(`"\\\\u0001dec${MARK.slice(4, -1)}:raw(\\d+)"`, 'g');

/**
 * JSON.stringify that writes WireDecimal values as exact numbers and embeds RawJson. No replacer
 * function (it would run for every value): the classes' toJSON leave markers that are swapped in
 * afterwards, and a bigint that leaks here still throws (JSON.stringify refuses bigint).
 */
export function toWireJson(value: unknown): string {
  const outer = pendingRaws;
  pendingRaws = [];
  try {
    const text = JSON.stringify(value);
    if (!text.includes('\\u0001dec')) return text;
    const exact = text.replace(MARKED, '$1');
    const raws = pendingRaws as string[];
    return raws.length === 0
      ? exact
      : exact.replace(RAW, (_match, index: string) => raws[Number(index)] ?? 'null');
  } finally {
    pendingRaws = outer;
  }
}
