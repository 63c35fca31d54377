/**
 * The simulated card network: the single place that decides what happens to a card. Its parts:
 * card-validation.ts checks a card as submitted (number, brand, CVC, expiry) with the brand facts
 * and Luhn check of card-numbers.ts; this file makes the authorization decision (expiry, magic test
 * numbers, 3-D Secure) and the post-challenge decision; magic-cards.ts holds the magic test numbers
 * and the refund behaviour of a card; network-responses.ts the decline codes and the descriptions of
 * network response codes.
 */
import type { ValidCard } from './card-validation.ts';
import { type MagicBehavior, magicBehavior } from './magic-cards.ts';
import {
  APPROVED,
  DECLINES,
  type DeclineCode,
  decline,
  type FinalDecision,
  type NetworkDecision,
} from './network-responses.ts';

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

/**
 * The decline of a card past its expiry by the merchant's (simulated) clock. Its message names both
 * dates: a clock advanced years ahead (as the transfer and FX examples do) expires cards that were
 * valid when typed, and the plain "Your card has expired." would not say why.
 */
export function expiredDecline(card: Pick<ValidCard, 'expMonth' | 'expYear'>, now: Date): FinalDecision {
  const expiry = `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`;
  const clock = now.toISOString().slice(0, 10);
  return {
    outcome: 'declined',
    declineCode: 'expired_card',
    networkResponseCode: DECLINES.expired_card.networkResponseCode,
    message: `Your card has expired: it expired at the end of ${expiry} and the sandbox clock is at ${clock}.`,
  };
}

/** What the network says to an authorization: approve, decline, or ask for a 3-D Secure challenge. */
export function decideAuthorization(card: ValidCard, now: Date): NetworkDecision {
  if (isExpired(card, now)) return expiredDecline(card, now);
  const behavior = magicBehavior(card);
  if (behavior.kind === 'challenge') return { outcome: 'challenge' };
  return behavior.kind === 'decline' ? decline(behavior.code) : APPROVED;
}

/**
 * The decision once the cardholder has completed (or failed) the 3-D Secure challenge.
 * A card that needed no challenge gets its ordinary (final) authorization decision.
 */
export function decideAfterChallenge(card: ValidCard, outcome: 'succeed' | 'fail', now: Date): FinalDecision {
  if (isExpired(card, now)) return expiredDecline(card, now);
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
