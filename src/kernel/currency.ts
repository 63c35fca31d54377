import currencyTable from '../../reference/currencies.json' with { type: 'json' };

/** The currencies Sandbank knows: USD for every rail, EUR/GBP/JPY as balances and FX targets. */
export const CURRENCY_CODES = ['USD', 'EUR', 'GBP', 'JPY'] as const;
export type CurrencyCode = (typeof CURRENCY_CODES)[number];

const minorUnitsByCode = new Map<string, number>(
  currencyTable.map((row) => [row.code, row.minor_units] as const),
);

export function isCurrencyCode(value: unknown): value is CurrencyCode {
  return typeof value === 'string' && (CURRENCY_CODES as readonly string[]).includes(value);
}

/** Number of minor digits of a currency (ISO 4217): USD 2, JPY 0. */
export function minorUnits(currency: CurrencyCode): number {
  const digits = minorUnitsByCode.get(currency);
  if (digits === undefined) throw new Error(`currency table has no row for ${currency}`);
  return digits;
}
