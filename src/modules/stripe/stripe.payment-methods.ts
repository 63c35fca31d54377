import { type CardBrand, detectBrand } from '../cards/card-numbers.ts';
import { testCardExpiry } from '../cards/magic-cards.ts';
import { invalidParam, noSuch } from './stripe.errors.ts';

/**
 * The payment methods of the Stripe dialect: Stripe's test ids (`pm_card_visa`, the decline and
 * 3-D Secure ones), each standing for one of Sandbank's test card numbers, so that a confirmation
 * with it behaves as a card payment with that number does. Every merchant has all of them.
 */

/** Stripe's test payment method ids and the card number each stands for. */
export const TEST_PAYMENT_METHODS: Readonly<Record<string, string>> = Object.freeze({
  pm_card_visa: '4242424242424242',
  pm_card_visa_debit: '4000056655665556',
  pm_card_mastercard: '5555555555554444',
  pm_card_mastercard_debit: '5200828282828210',
  pm_card_mastercard_prepaid: '5105105105105100',
  pm_card_amex: '378282246310005',
  pm_card_chargeDeclined: '4000000000000002',
  pm_card_visa_chargeDeclined: '4000000000000002',
  pm_card_chargeDeclinedInsufficientFunds: '4000000000009995',
  pm_card_visa_chargeDeclinedInsufficientFunds: '4000000000009995',
  pm_card_chargeDeclinedLostCard: '4000000000009987',
  pm_card_visa_chargeDeclinedLostCard: '4000000000009987',
  pm_card_chargeDeclinedStolenCard: '4000000000009979',
  pm_card_visa_chargeDeclinedStolenCard: '4000000000009979',
  pm_card_chargeDeclinedExpiredCard: '4000000000000069',
  pm_card_chargeDeclinedIncorrectCvc: '4000000000000127',
  pm_card_chargeDeclinedProcessingError: '4000000000000119',
  pm_card_radarBlock: '4100000000000019',
  pm_card_threeDSecure2Required: '4000000000003220',
  pm_card_authenticationRequired: '4000002500003155',
  pm_card_authenticationRequiredChargeDeclined: '4000008400001629',
  pm_card_refundFail: '4000000000005126',
  pm_card_pendingRefund: '4000000000007726',
  pm_card_createDispute: '4000000000000259',
  pm_card_createDisputeProductNotReceived: '4000000000002685',
  pm_card_createDisputeInquiry: '4000000000001976',
  pm_card_createMultipleDisputes: '4000000404000079',
  pm_card_createEarlyFraudWarning: '4000000000005423',
});

/** Debit and prepaid test cards (every other one is credit), as Stripe's `card.funding` says. */
const FUNDING: Readonly<Record<string, 'debit' | 'prepaid'>> = {
  '4000056655665556': 'debit',
  '5200828282828210': 'debit',
  '5105105105105100': 'prepaid',
};

export interface TestPaymentMethod {
  id: string;
  number: string;
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  funding: 'credit' | 'debit' | 'prepaid';
}

/** A test payment method as a card (its expiry: five years after the merchant's clock). */
export function testPaymentMethod(id: string, now: Date, param = 'payment_method'): TestPaymentMethod {
  const number = Object.hasOwn(TEST_PAYMENT_METHODS, id) ? TEST_PAYMENT_METHODS[id] : undefined;
  if (number === undefined) {
    if (id.startsWith('pm_')) throw noSuch('PaymentMethod', id, param);
    throw invalidParam(param, `No such PaymentMethod: '${id}'; a payment method's id starts with pm_.`);
  }
  const brand = detectBrand(number);
  if (brand === 'unknown') throw new Error(`test payment method ${id} has no supported brand`);
  const expiry = testCardExpiry(now);
  return {
    id,
    number,
    brand,
    last4: number.slice(-4),
    expMonth: expiry.month,
    expYear: expiry.year,
    cvc: brand === 'amex' ? '1234' : '123',
    funding: FUNDING[number] ?? 'credit',
  };
}

/** A PaymentMethod object in Stripe's shape. */
export function renderPaymentMethod(pm: TestPaymentMethod, created: Date): Record<string, unknown> {
  return {
    id: pm.id,
    object: 'payment_method',
    allow_redisplay: 'unspecified',
    billing_details: {
      address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
      email: null,
      name: null,
      phone: null,
    },
    card: {
      brand: pm.brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
      country: 'US',
      display_brand: pm.brand === 'amex' ? 'american_express' : pm.brand,
      exp_month: pm.expMonth,
      exp_year: pm.expYear,
      fingerprint: `sandbank${pm.number.slice(0, 6)}${pm.last4}`,
      funding: pm.funding,
      last4: pm.last4,
      networks: { available: [pm.brand], preferred: null },
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: Math.floor(created.getTime() / 1000),
    customer: null,
    livemode: false,
    metadata: {},
    type: 'card',
  };
}
