/**
 * The simulated card network: the single place that decides what happens to a card.
 * Validation (number, brand, CVC, expiry), the authorization decision (magic test numbers,
 * expiry, 3-D Secure), the post-challenge decision and the refund behaviour of a card.
 * Brand facts come from reference/card_brands.json and network response descriptions
 * from reference/iso8583_response_codes.json.
 */
import cardBrands from '../../../reference/card_brands.json' with { type: 'json' };
import iso8583 from '../../../reference/iso8583_response_codes.json' with { type: 'json' };
import { SandbankError } from '../../kernel/errors.ts';

export type CardBrand = 'visa' | 'mastercard' | 'amex';

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

export type NetworkDecision =
  | { outcome: 'approved'; networkResponseCode: '00' }
  | { outcome: 'declined'; declineCode: string; networkResponseCode: string | null; message: string }
  /** 3-D Secure challenge required. */
  | { outcome: 'challenge' };

export type FinalDecision = Exclude<NetworkDecision, { outcome: 'challenge' }>;

export type RefundBehavior = 'succeeds' | 'pending_then_succeeds' | 'fails';

export interface TestCard {
  number: string;
  brand: CardBrand;
  label: string;
  cvc: string;
}

// ---------------------------------------------------------------------------
// Reference data
// ---------------------------------------------------------------------------

interface BrandSpec {
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

function brandSpec(brand: CardBrand): BrandSpec {
  const spec = BRAND_SPECS.find((candidate) => candidate.brand === brand);
  if (spec === undefined) throw new Error(`card_brands.json has no entry for ${brand}`);
  return spec;
}

const RESPONSE_DESCRIPTIONS = new Map<string, string>(
  iso8583.codes.map((row) => [row.code, row.description]),
);

/** The ISO 8583 field 39 description of a network response code, or null when the reference lacks it. */
export function networkResponseDescription(code: string): string | null {
  return RESPONSE_DESCRIPTIONS.get(code) ?? null;
}

// ---------------------------------------------------------------------------
// Number checks
// ---------------------------------------------------------------------------

const DIGITS = /^\d+$/;

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

// ---------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Decisions
// ---------------------------------------------------------------------------

type DeclineCode =
  | 'generic_decline'
  | 'insufficient_funds'
  | 'lost_card'
  | 'stolen_card'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'processing_error'
  | 'fraudulent';

interface DeclineSpec {
  networkResponseCode: string;
  /** Short, user-facing sentence (the ISO 8583 wording is for `networkResponseDescription`). */
  message: string;
  label: string;
}

/** N7 (CVV2 mismatch) is a Visa-specific field 39 value that the ISO 8583 reference does not list. */
const DECLINES: Readonly<Record<DeclineCode, DeclineSpec>> = {
  generic_decline: {
    networkResponseCode: '05',
    message: 'Your card was declined.',
    label: 'generic decline',
  },
  insufficient_funds: {
    networkResponseCode: '51',
    message: 'Your card has insufficient funds.',
    label: 'insufficient funds',
  },
  lost_card: { networkResponseCode: '41', message: 'Your card has been reported lost.', label: 'lost card' },
  stolen_card: {
    networkResponseCode: '43',
    message: 'Your card has been reported stolen.',
    label: 'stolen card',
  },
  expired_card: { networkResponseCode: '54', message: 'Your card has expired.', label: 'expired card' },
  incorrect_cvc: {
    networkResponseCode: 'N7',
    message: "Your card's security code is incorrect.",
    label: 'incorrect CVC',
  },
  processing_error: {
    networkResponseCode: '96',
    message: 'An error occurred while processing your card. Try again.',
    label: 'processing error',
  },
  fraudulent: {
    networkResponseCode: '59',
    message: 'Your card was declined on suspicion of fraud.',
    label: 'suspected fraud',
  },
};

function decline(code: DeclineCode): FinalDecision {
  const { networkResponseCode, message } = DECLINES[code];
  return { outcome: 'declined', declineCode: code, networkResponseCode, message };
}

const APPROVED: FinalDecision = { outcome: 'approved', networkResponseCode: '00' };

type MagicBehavior =
  | { kind: 'approve' }
  | { kind: 'decline'; code: DeclineCode }
  | { kind: 'challenge'; afterSuccess: 'approve' | DeclineCode };

interface MagicCard {
  number: string;
  label: string;
  behavior: MagicBehavior;
  refund: RefundBehavior;
}

const approve = (number: string, label: string, refund: RefundBehavior = 'succeeds'): MagicCard => ({
  number,
  label,
  behavior: { kind: 'approve' },
  refund,
});

const declineCard = (number: string, code: DeclineCode): MagicCard => ({
  number,
  label: `Declined: ${DECLINES[code].label}`,
  behavior: { kind: 'decline', code },
  refund: 'succeeds',
});

const challenge = (number: string, label: string, afterSuccess: 'approve' | DeclineCode): MagicCard => ({
  number,
  label,
  behavior: { kind: 'challenge', afterSuccess },
  refund: 'succeeds',
});

/** The magic test numbers, in the order the checkout page lists them. */
const MAGIC_CARDS: readonly MagicCard[] = [
  approve('4242424242424242', 'Visa — succeeds'),
  approve('5555555555554444', 'Mastercard — succeeds'),
  approve('2223003122003222', 'Mastercard (2-series) — succeeds'),
  approve('378282246310005', 'American Express — succeeds'),
  declineCard('4000000000000002', 'generic_decline'),
  declineCard('4000000000009995', 'insufficient_funds'),
  declineCard('4000000000009987', 'lost_card'),
  declineCard('4000000000009979', 'stolen_card'),
  declineCard('4000000000000069', 'expired_card'),
  declineCard('4000000000000127', 'incorrect_cvc'),
  declineCard('4000000000000119', 'processing_error'),
  declineCard('4100000000000019', 'fraudulent'),
  challenge('4000002500003155', '3-D Secure challenge', 'approve'),
  challenge('4000000000003220', '3-D Secure 2 challenge', 'approve'),
  challenge('4000008400001629', '3-D Secure challenge, then declined', 'generic_decline'),
  approve('4000000000007726', 'Refund pending, then succeeds', 'pending_then_succeeds'),
  approve('4000000000005126', 'Refund fails', 'fails'),
];

const MAGIC_BY_NUMBER = new Map<string, MagicCard>(MAGIC_CARDS.map((card) => [card.number, card]));

function knownBrand(number: string): CardBrand {
  const brand = detectBrand(number);
  if (brand === 'unknown') throw new Error(`magic card ${number} has no supported brand`);
  return brand;
}

/** Every magic card, in table order, for one-click fill on the checkout page. */
export const TEST_CARDS: readonly TestCard[] = Object.freeze(
  MAGIC_CARDS.map((card): TestCard => {
    const brand = knownBrand(card.number);
    return Object.freeze({
      number: card.number,
      brand,
      label: card.label,
      cvc: '1234'.slice(0, brandSpec(brand).cvcLength),
    });
  }),
);

function magicBehavior(card: Pick<ValidCard, 'number'>): MagicBehavior {
  return MAGIC_BY_NUMBER.get(card.number)?.behavior ?? { kind: 'approve' };
}

function resultAfterChallenge(behavior: MagicBehavior): 'approve' | DeclineCode {
  switch (behavior.kind) {
    case 'challenge':
      return behavior.afterSuccess;
    case 'decline':
      return behavior.code;
    case 'approve':
      return 'approve';
  }
}

/** A card is valid through the last millisecond (UTC) of its expiry month. */
export function isExpired(card: Pick<ValidCard, 'expMonth' | 'expYear'>, now: Date): boolean {
  // Date.UTC months are 0-based, so `expMonth` is the first instant of the following month.
  return now.getTime() >= Date.UTC(card.expYear, card.expMonth, 1);
}

/** What the network says to an authorization: approve, decline, or ask for a 3-D Secure challenge. */
export function decideAuthorization(card: ValidCard, now: Date): NetworkDecision {
  if (isExpired(card, now)) return decline('expired_card');
  const behavior = magicBehavior(card);
  if (behavior.kind === 'challenge') return { outcome: 'challenge' };
  return behavior.kind === 'decline' ? decline(behavior.code) : APPROVED;
}

/**
 * The decision once the cardholder has completed (or failed) the 3-D Secure challenge.
 * A card that needed no challenge gets its ordinary (final) authorization decision.
 */
export function decideAfterChallenge(card: ValidCard, outcome: 'succeed' | 'fail', now: Date): FinalDecision {
  if (isExpired(card, now)) return decline('expired_card');
  if (outcome === 'fail') {
    return {
      outcome: 'declined',
      declineCode: 'authentication_failed',
      networkResponseCode: null,
      message: '3-D Secure authentication failed.',
    };
  }
  const result = resultAfterChallenge(magicBehavior(card));
  return result === 'approve' ? APPROVED : decline(result);
}

/** How a refund of a payment made with this card behaves. */
export function refundBehavior(card: Pick<ValidCard, 'number'>): RefundBehavior {
  return MAGIC_BY_NUMBER.get(card.number)?.refund ?? 'succeeds';
}
