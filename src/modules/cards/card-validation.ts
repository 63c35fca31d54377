import { SandbankError } from '../../kernel/errors.ts';
import { brandSpec, type CardBrand, DIGITS, detectBrand, luhnValid } from './card-numbers.ts';

export interface CardInput {
  number: string;
  exp_month: number | string;
  exp_year: number | string;
  cvc: string;
  name?: string;
}

export interface ValidCard {
  /** Digits only. */
  number: string;
  brand: CardBrand;
  last4: string;
  expMonth: number;
  /** Four digits. */
  expYear: number;
  cvc: string;
  name: string | null;
}

/** Shortest and longest PAN per ISO/IEC 7812: an unknown-brand number outside this is just invalid. */
const PAN_MIN_LENGTH = 12;
const PAN_MAX_LENGTH = 19;

function requireString(value: unknown, param: string): string {
  if (value === undefined || value === null) throw new SandbankError('parameter_missing', { param });
  if (typeof value !== 'string') throw new SandbankError('parameter_invalid', { param });
  return value;
}

function validateNumber(value: unknown): { digits: string; brand: CardBrand } {
  const param = 'card.number';
  const digits = requireString(value, param).replace(/[\s-]/g, '');
  if (!luhnValid(digits)) throw new SandbankError('invalid_card_number', { param });
  const brand = detectBrand(digits);
  if (brand === 'unknown') {
    const plausible = digits.length >= PAN_MIN_LENGTH && digits.length <= PAN_MAX_LENGTH;
    throw new SandbankError(plausible ? 'card_brand_unsupported' : 'invalid_card_number', { param });
  }
  if (!brandSpec(brand).lengths.includes(digits.length)) {
    throw new SandbankError('invalid_card_number', { param });
  }
  return { digits, brand };
}

function validateCvc(value: unknown, brand: CardBrand): string {
  const param = 'card.cvc';
  const cvc = requireString(value, param);
  if (!DIGITS.test(cvc) || cvc.length !== brandSpec(brand).cvcLength) {
    throw new SandbankError('invalid_cvc', { param });
  }
  return cvc;
}

/** An integer from a number, or from a digit string with an allowed digit count; null otherwise. */
function toInteger(value: unknown, param: string, digitCounts: readonly number[]): number | null {
  if (value === undefined || value === null) throw new SandbankError('parameter_missing', { param });
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  if (typeof value === 'string' && DIGITS.test(value) && digitCounts.includes(value.length)) {
    return Number(value);
  }
  return null;
}

function validateExpMonth(value: unknown): number {
  const param = 'card.exp_month';
  const month = toInteger(value, param, [1, 2]);
  if (month === null || month < 1 || month > 12) throw new SandbankError('invalid_expiry', { param });
  return month;
}

function validateExpYear(value: unknown): number {
  const param = 'card.exp_year';
  const year = toInteger(value, param, [2, 4]);
  if (year === null) throw new SandbankError('invalid_expiry', { param });
  if (year >= 0 && year <= 99) return 2000 + year;
  if (year >= 2000 && year <= 2099) return year;
  throw new SandbankError('invalid_expiry', { param });
}

function validateName(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new SandbankError('parameter_invalid', { param: 'card.name' });
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/**
 * Checks a card as submitted and normalises it. Throws SandbankError (400) on the first
 * problem, in the order number, cvc, exp_month, exp_year, name. A past expiry is not an
 * error here: it is a decline at authorization time.
 */
export function validateCard(input: CardInput): ValidCard {
  if (typeof input !== 'object' || input === null)
    throw new SandbankError('parameter_missing', { param: 'card' });
  const { digits, brand } = validateNumber(input.number);
  return {
    number: digits,
    brand,
    last4: digits.slice(-4),
    cvc: validateCvc(input.cvc, brand),
    expMonth: validateExpMonth(input.exp_month),
    expYear: validateExpYear(input.exp_year),
    name: validateName(input.name),
  };
}
