import { SandbankError } from '../../kernel/errors.ts';
import { type CardBrand, DIGITS, detectBrand, luhnValid } from '../cards/card-numbers.ts';
import { validateCard } from '../cards/card-validation.ts';
import { noSuch, StripeError } from './stripe.errors.ts';
import {
  fundingOf,
  type TestPaymentMethod,
  testPaymentMethod,
  testTokenMethod,
} from './stripe.payment-methods.ts';

/**
 * The card of a new PaymentMethod: card details checked as the native card validation checks them
 * (Luhn, brand, length, CVC, expiry), said as Stripe's card errors; or one of Stripe's test tokens
 * (`tok_visa`), the card of the test payment method of the same name.
 */

/** A card as sent: `card[number]`, `card[exp_month]`, `card[exp_year]`, `card[cvc]` (optional). */
export interface CardDetails {
  number?: string | undefined;
  expMonth?: string | undefined;
  expYear?: string | undefined;
  cvc?: string | undefined;
}

/** A card to save: what a payment method stands for, and whether its CVC was given. */
export type NewCard = Omit<TestPaymentMethod, 'id'> & { cvcGiven: boolean };

function cardError(code: string, message: string, param: string, declineCode?: string): StripeError {
  return new StripeError(402, { type: 'card_error', code, message, param, declineCode });
}

const missing = (param: string) =>
  new StripeError(400, {
    type: 'invalid_request_error',
    code: 'parameter_missing',
    param,
    message: `Missing required param: ${param}.`,
  });

export const expiryMonthError = () =>
  cardError('invalid_expiry_month', "Your card's expiration month is invalid.", 'card[exp_month]');
export const expiryYearError = () =>
  cardError('invalid_expiry_year', "Your card's expiration year is invalid.", 'card[exp_year]');

/** A CVC to send the network for a card saved without one (none of the test cards depends on it). */
export function defaultCvc(brand: CardBrand): string {
  return brand === 'amex' ? '1234' : '123';
}

/** A native validation error as Stripe's card error, naming the bracketed parameter. */
function stripeCardError(error: SandbankError, number: string): StripeError {
  switch (error.code) {
    case 'invalid_card_number':
      return DIGITS.test(number) && !luhnValid(number)
        ? cardError('incorrect_number', 'Your card number is incorrect.', 'card[number]')
        : cardError('invalid_number', 'Your card number is not a valid card number.', 'card[number]');
    case 'card_brand_unsupported':
      return cardError('card_declined', 'Your card is not supported.', 'card[number]', 'card_not_supported');
    case 'invalid_cvc':
      return cardError('invalid_cvc', "Your card's security code is invalid.", 'card[cvc]');
    case 'invalid_expiry':
      return error.param === 'card.exp_month' ? expiryMonthError() : expiryYearError();
    default:
      return new StripeError(400, {
        type: 'invalid_request_error',
        code: 'parameter_invalid_string',
        param: `card[${(error.param ?? 'card.number').replace('card.', '')}]`,
        message: error.message,
      });
  }
}

/** Refuses an expiry before the merchant's clock's month (the card would be expired). */
export function checkNotExpired(month: number, year: number, now: Date): void {
  const thisYear = now.getUTCFullYear();
  if (year < thisYear) throw expiryYearError();
  if (year === thisYear && month < now.getUTCMonth() + 1) throw expiryMonthError();
}

/** A card from its details, checked; its CVC is optional, as Stripe's is. */
export function cardFromDetails(details: CardDetails, now: Date): NewCard {
  if (details.number === undefined) throw missing('card[number]');
  if (details.expMonth === undefined) throw missing('card[exp_month]');
  if (details.expYear === undefined) throw missing('card[exp_year]');
  const digits = details.number.replace(/[\s-]/g, '');
  const cvc = details.cvc === '' ? undefined : details.cvc;
  let valid: ReturnType<typeof validateCard>;
  try {
    valid = validateCard({
      number: digits,
      exp_month: details.expMonth,
      exp_year: details.expYear,
      // Without a CVC, the number, then the expiry, are checked with one of the right length.
      cvc: cvc ?? (detectBrand(digits) === 'amex' ? '1234' : '123'),
    });
  } catch (error) {
    if (error instanceof SandbankError) throw stripeCardError(error, digits);
    throw error;
  }
  checkNotExpired(valid.expMonth, valid.expYear, now);
  return {
    number: valid.number,
    brand: valid.brand,
    last4: valid.last4,
    expMonth: valid.expMonth,
    expYear: valid.expYear,
    cvc: cvc ?? '',
    funding: fundingOf(valid.number),
    cvcGiven: cvc !== undefined,
  };
}

/** The card of a Stripe test token (`tok_visa`, `tok_chargeDeclined`…). */
export function cardFromToken(token: string, now: Date): NewCard {
  const method = testTokenMethod(token);
  if (!method) throw noSuch('token', token, 'card[token]');
  const { id: _id, ...card } = testPaymentMethod(method, now, 'card[token]');
  return { ...card, cvcGiven: true };
}

/** A new expiry for a saved card (`card[exp_month]`, `card[exp_year]`), checked against the clock. */
export function newExpiry(
  current: { expMonth: number; expYear: number },
  month: string | undefined,
  year: string | undefined,
  now: Date,
): { expMonth: number; expYear: number } {
  let expMonth = current.expMonth;
  let expYear = current.expYear;
  if (month !== undefined) {
    if (!/^\d{1,2}$/.test(month) || Number(month) < 1 || Number(month) > 12) throw expiryMonthError();
    expMonth = Number(month);
  }
  if (year !== undefined) {
    if (!/^(\d{2}|\d{4})$/.test(year)) throw expiryYearError();
    expYear = year.length === 2 ? 2000 + Number(year) : Number(year);
    if (expYear < 2000 || expYear > 2099) throw expiryYearError();
  }
  checkNotExpired(expMonth, expYear, now);
  return { expMonth, expYear };
}
