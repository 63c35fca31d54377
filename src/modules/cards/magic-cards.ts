/** The magic test numbers: how the network treats each, and the list the checkout page offers. */
import { brandSpec, type CardBrand, detectBrand } from './card-numbers.ts';
import type { ValidCard } from './card-validation.ts';
import { DECLINES, type DeclineCode } from './network-responses.ts';

export type RefundBehavior = 'succeeds' | 'pending_then_succeeds' | 'fails';

/**
 * What happens a day (clock time) after a payment made with this card is captured: a dispute
 * opens (a chargeback for a reason, or an inquiry), or the issuer sends an early fraud warning.
 */
export type DisputeBehavior =
  | 'fraudulent'
  | 'product_not_received'
  | 'inquiry'
  | 'multiple'
  | 'early_fraud_warning';

export interface TestCard {
  number: string;
  brand: CardBrand;
  label: string;
  cvc: string;
}

export type MagicBehavior =
  | { kind: 'approve' }
  | { kind: 'decline'; code: DeclineCode }
  | { kind: 'challenge'; afterSuccess: 'approve' | DeclineCode };

interface MagicCard {
  number: string;
  label: string;
  behavior: MagicBehavior;
  refund: RefundBehavior;
  dispute?: DisputeBehavior;
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

/** A card that succeeds, then is disputed (or warned about) a day after capture. */
const disputed = (number: string, label: string, dispute: DisputeBehavior): MagicCard => ({
  ...approve(number, label),
  dispute,
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
  disputed('4000000000000259', 'Disputed (fraudulent) a day after capture', 'fraudulent'),
  disputed('4000000000002685', 'Disputed (product not received) a day after capture', 'product_not_received'),
  disputed('4000000000001976', 'Inquiry (warning dispute) a day after capture', 'inquiry'),
  disputed('4000000404000079', 'Disputed twice (multiple disputes) a day after capture', 'multiple'),
  disputed('4000000000005423', 'Early fraud warning a day after capture', 'early_fraud_warning'),
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

export function magicBehavior(card: Pick<ValidCard, 'number'>): MagicBehavior {
  return MAGIC_BY_NUMBER.get(card.number)?.behavior ?? { kind: 'approve' };
}

/** How a refund of a payment made with this card behaves. */
export function refundBehavior(card: Pick<ValidCard, 'number'>): RefundBehavior {
  return MAGIC_BY_NUMBER.get(card.number)?.refund ?? 'succeeds';
}

/** What follows the capture of a payment made with this card (null: nothing). */
export function disputeBehavior(card: Pick<ValidCard, 'number'>): DisputeBehavior | null {
  return MAGIC_BY_NUMBER.get(card.number)?.dispute ?? null;
}

/**
 * The expiry every test card is filled with, on the checkout page and in the dashboard's picker
 * alike: December, five years after the merchant's clock (not the browser's or the server's real
 * year: a clock advanced years ahead would expire them), at most 2099, the last year a card's
 * `exp_year` may name. Valid at the clock's time, whatever it is.
 */
export function testCardExpiry(now: Date): { month: number; year: number } {
  return { month: 12, year: Math.min(now.getUTCFullYear() + 5, 2099) };
}

/** The form fields a click on a test card fills: its number, its CVC and testCardExpiry(now). */
export function testCardFill(
  card: TestCard,
  now: Date,
): { number: string; cvc: string; exp_month: string; exp_year: string } {
  const expiry = testCardExpiry(now);
  return {
    number: card.number,
    cvc: card.cvc,
    exp_month: String(expiry.month),
    exp_year: String(expiry.year),
  };
}
