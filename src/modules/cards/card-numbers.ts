/**
 * Card numbers: brand facts from reference/card_brands.json, detection of a number's brand by its
 * IIN, and the Luhn check.
 */
import cardBrands from '../../../reference/card_brands.json' with { type: 'json' };
import { describedValues } from '../../kernel/described-values.ts';

export type CardBrand = 'visa' | 'mastercard' | 'amex';

export const CardBrandValues = describedValues('CardBrand', 'The card network.', {
  visa: 'Visa.',
  mastercard: 'Mastercard.',
  amex: 'American Express.',
} satisfies Record<CardBrand, string>);

export interface BrandSpec {
  brand: CardBrand;
  prefixes: readonly string[];
  ranges: readonly (readonly string[])[];
  lengths: readonly number[];
  cvcLength: number;
}

const SUPPORTED_BRANDS: readonly CardBrand[] = ['visa', 'mastercard', 'amex'];

function isCardBrand(value: string): value is CardBrand {
  return (SUPPORTED_BRANDS as readonly string[]).includes(value);
}

/** Only the `lengths` list counts: `lengths_other_sources` (Visa 13/18) are unverified. */
const BRAND_SPECS: readonly BrandSpec[] = cardBrands.brands.flatMap((row): BrandSpec[] => {
  const ranges: readonly (readonly string[])[] = row.ranges;
  return isCardBrand(row.brand)
    ? [{ brand: row.brand, prefixes: row.prefixes, ranges, lengths: row.lengths, cvcLength: row.cvc_length }]
    : [];
});

export function brandSpec(brand: CardBrand): BrandSpec {
  const spec = BRAND_SPECS.find((candidate) => candidate.brand === brand);
  if (spec === undefined) throw new Error(`card_brands.json has no entry for ${brand}`);
  return spec;
}

export const DIGITS = /^\d+$/;

function luhnSum(digits: string, doubleEven: boolean): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    const digit = Number(digits[digits.length - 1 - i]);
    const doubled = (i % 2 === 1) !== doubleEven ? digit * 2 : digit;
    sum += doubled > 9 ? doubled - 9 : doubled;
  }
  return sum;
}

/** True when `digits` is a non-empty digit string passing the Luhn mod-10 check. */
export function luhnValid(digits: string): boolean {
  return DIGITS.test(digits) && luhnSum(digits, false) % 10 === 0;
}

/** The Luhn check digit to append to `body` (a non-empty digit string). */
export function luhnCheckDigit(body: string): string {
  if (!DIGITS.test(body)) throw new Error('luhnCheckDigit needs a digit string');
  return String((10 - (luhnSum(body, true) % 10)) % 10);
}

function matchesRange(digits: string, range: readonly string[]): boolean {
  const [low, high] = range;
  if (low === undefined || high === undefined || digits.length < low.length) return false;
  const head = Number(digits.slice(0, low.length));
  return head >= Number(low) && head <= Number(high);
}

function matchesBrand(digits: string, spec: BrandSpec): boolean {
  return (
    spec.prefixes.some((prefix) => digits.startsWith(prefix)) ||
    spec.ranges.some((range) => matchesRange(digits, range))
  );
}

/** Brand by IIN (prefix / range) per card_brands.json; length and Luhn are not considered. */
export function detectBrand(digits: string): CardBrand | 'unknown' {
  if (!DIGITS.test(digits)) return 'unknown';
  return BRAND_SPECS.find((spec) => matchesBrand(digits, spec))?.brand ?? 'unknown';
}
