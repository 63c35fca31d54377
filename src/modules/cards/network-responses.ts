/**
 * What the network answers: the decisions, the decline codes with their ISO 8583 field 39 response
 * codes, and the descriptions of those codes from reference/iso8583_response_codes.json.
 */
import iso8583 from '../../../reference/iso8583_response_codes.json' with { type: 'json' };

export type NetworkDecision =
  | { outcome: 'approved'; networkResponseCode: '00' }
  | { outcome: 'declined'; declineCode: string; networkResponseCode: string | null; message: string }
  /** 3-D Secure challenge required. */
  | { outcome: 'challenge' };

export type FinalDecision = Exclude<NetworkDecision, { outcome: 'challenge' }>;

const RESPONSE_DESCRIPTIONS = new Map<string, string>(
  iso8583.codes.map((row) => [row.code, row.description]),
);

/** The ISO 8583 field 39 description of a network response code, or null when the reference lacks it. */
export function networkResponseDescription(code: string): string | null {
  return RESPONSE_DESCRIPTIONS.get(code) ?? null;
}

export type DeclineCode =
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
export const DECLINES: Readonly<Record<DeclineCode, DeclineSpec>> = {
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

export function decline(code: DeclineCode): FinalDecision {
  const { networkResponseCode, message } = DECLINES[code];
  return { outcome: 'declined', declineCode: code, networkResponseCode, message };
}

export const APPROVED: FinalDecision = { outcome: 'approved', networkResponseCode: '00' };
