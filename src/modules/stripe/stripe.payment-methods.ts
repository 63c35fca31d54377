import { createHash } from 'node:crypto';
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

/** Whether `id` is one of Stripe's test payment method ids (`pm_card_visa`…). */
export function isTestPaymentMethod(id: string): boolean {
  return Object.hasOwn(TEST_PAYMENT_METHODS, id);
}

/** The test payment method a Stripe test token stands for (`tok_visa` → `pm_card_visa`), or null. */
export function testTokenMethod(token: string): string | null {
  if (!token.startsWith('tok_')) return null;
  const method = `pm_card_${token.slice('tok_'.length)}`;
  return isTestPaymentMethod(method) ? method : null;
}

/** Debit and prepaid test cards (every other one is credit), as Stripe's `card.funding` says. */
const FUNDING: Readonly<Record<string, 'debit' | 'prepaid'>> = {
  '4000056655665556': 'debit',
  '5200828282828210': 'debit',
  '5105105105105100': 'prepaid',
};

/** A card's funding as Stripe says it: the debit and prepaid test cards, every other one credit. */
export function fundingOf(number: string): 'credit' | 'debit' | 'prepaid' {
  return FUNDING[number] ?? 'credit';
}

/** A card as a payment method stands for it (a test id's, or a saved one's). */
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
    funding: fundingOf(number),
  };
}

/** `billing_details` with every field Stripe names (null where not given). */
export function billingDetailsOf(
  stored: Record<string, unknown> | null | undefined,
): Record<string, unknown> {
  const address = (stored?.address ?? {}) as Record<string, unknown>;
  const field = (from: Record<string, unknown> | undefined, key: string) => from?.[key] ?? null;
  return {
    address: Object.fromEntries(
      ['city', 'country', 'line1', 'line2', 'postal_code', 'state'].map((key) => [key, field(address, key)]),
    ),
    email: field(stored ?? undefined, 'email'),
    name: field(stored ?? undefined, 'name'),
    phone: field(stored ?? undefined, 'phone'),
    tax_id: field(stored ?? undefined, 'tax_id'),
  };
}

/**
 * A card's fingerprint: the same for the same number, whatever payment method holds it, and
 * nothing of the number readable from it (16 characters of a digest, as long as Stripe's).
 */
export function cardFingerprint(number: string): string {
  return createHash('sha256')
    .update(`sandbank-card-fingerprint:${number}`, 'utf8')
    .digest('base64url')
    .replace(/[-_]/g, '')
    .slice(0, 16);
}

/** What a saved payment method adds to its card: its customer, billing details and metadata. */
export interface MethodExtras {
  /** The customer's id, or the expanded customer. */
  customer?: string | Record<string, unknown> | null;
  billingDetails?: Record<string, unknown> | null;
  metadata?: Record<string, string>;
  /** Whether a CVC was given with the card (`checks.cvc_check`: pass, else null). */
  cvcGiven?: boolean;
}

/** A PaymentMethod object in Stripe's shape: never its number nor its CVC. */
export function renderPaymentMethod(
  pm: TestPaymentMethod,
  created: Date,
  extras: MethodExtras = {},
): Record<string, unknown> {
  return {
    id: pm.id,
    object: 'payment_method',
    allow_redisplay: 'unspecified',
    billing_details: billingDetailsOf(extras.billingDetails),
    card: {
      brand: pm.brand,
      checks: {
        address_line1_check: null,
        address_postal_code_check: null,
        cvc_check: extras.cvcGiven === false ? null : 'pass',
      },
      country: 'US',
      display_brand: pm.brand === 'amex' ? 'american_express' : pm.brand,
      exp_month: pm.expMonth,
      exp_year: pm.expYear,
      fingerprint: cardFingerprint(pm.number),
      funding: pm.funding,
      generated_from: null,
      last4: pm.last4,
      networks: { available: [pm.brand], preferred: null },
      regulated_status: 'unregulated',
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: Math.floor(created.getTime() / 1000),
    customer: extras.customer ?? null,
    customer_account: null,
    livemode: false,
    metadata: extras.metadata ?? {},
    type: 'card',
  };
}
