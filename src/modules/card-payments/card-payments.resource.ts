import { z } from 'zod';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import {
  idOf,
  timestamp,
  type Wire,
  wireCurrency,
  wireDecimal,
  wireMetadata,
  wireResource,
} from '../../kernel/wire-resources.ts';
import type { CardBrand } from '../cards/card-numbers.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';
import { cardPaymentMachine, refundMachine } from './card-payments.machine.ts';
import type { cardPayments, cardRefunds, cardTokens } from './card-payments.table.ts';

export type CardPaymentRow = typeof cardPayments.$inferSelect;
export type RefundRow = typeof cardRefunds.$inferSelect;
export type TokenRow = typeof cardTokens.$inferSelect;

/** The path of a payment's 3-D Secure page, with the secret that opens it in the query string. */
export function challengePagePath(row: Pick<CardPaymentRow, 'id' | 'challengeSecret'>): string {
  return `/3ds/${row.id}?secret=${encodeURIComponent(row.challengeSecret)}`;
}

/** Where a payer completes a 3-D Secure challenge in a browser (`next_action.url`). */
export function challengePageUrl(
  publicUrl: string,
  row: Pick<CardPaymentRow, 'id' | 'challengeSecret'>,
): string {
  return `${publicUrl}${challengePagePath(row)}`;
}

const brand = z.enum(['visa', 'mastercard', 'amex']).meta({ description: 'The card network.' });
const nullableText = (description: string) => z.string().nullable().meta({ description });

export const TokenWire = wireResource(
  'CardToken',
  'token',
  'A tokenized card: single use, 15 minutes of clock time.',
  {
    card: z.object({
      brand,
      last4: z.string(),
      exp_month: z.number().int(),
      exp_year: z.number().int(),
    }),
    used: z.boolean().meta({ description: 'Whether a payment has used the token.' }),
    expires_at: timestamp,
    created_at: timestamp,
  },
);

export const RefundWire = wireResource('Refund', 'refund', 'A refund of a captured card payment.', {
  card_payment: idOf('card payment'),
  state: z.enum(refundMachine.states),
  amount: wireDecimal,
  currency: wireCurrency,
  reason: z.enum(['duplicate', 'fraudulent', 'requested_by_customer']).nullable(),
  failure_reason: nullableText('Why the refund failed (state failed).'),
  created_at: timestamp,
  updated_at: timestamp,
});

/** The issuer's early fraud warning about a payment (magic card …5423): a notice, not a dispute. */
export const EarlyFraudWarningWire = z
  .object({
    fraud_type: z
      .literal('unauthorized_use_of_card')
      .meta({ description: 'What the issuer reports: the cardholder says they did not make the payment.' }),
    actionable: z.boolean().meta({
      description:
        'Whether refunding it still heads off a dispute: true while it is captured, not refunded in full and not disputed.',
    }),
    created_at: timestamp,
  })
  .meta({
    id: 'EarlyFraudWarning',
    description:
      'An early fraud warning from the issuer (the event card_payment.early_fraud_warning): a dispute may follow; it is not one.',
  });

export const CardPaymentWire = wireResource(
  'CardPayment',
  'card_payment',
  'A card payment: an authorization, captured at once or later, with its refunds. Never the card number.',
  {
    state: z.enum(cardPaymentMachine.states),
    amount: wireDecimal,
    amount_captured: wireDecimal,
    amount_refunded: wireDecimal,
    currency: wireCurrency,
    capture: z.boolean().meta({ description: 'Whether the authorization was captured on create.' }),
    brand,
    last4: z.string(),
    exp_month: z.number().int(),
    exp_year: z.number().int(),
    three_d_secure: z
      .enum(['required', 'succeeded', 'failed'])
      .nullable()
      .meta({ description: 'The 3-D Secure challenge, when the card asked for one.' }),
    next_action: z
      .object({ type: z.literal('three_d_secure'), url: z.string().meta({ format: 'uri' }) })
      .nullable()
      .meta({ description: 'Where the payer completes 3-D Secure (state requires_action).' }),
    network_response_code: nullableText('The ISO 8583 response code of the authorization.'),
    network_response_message: nullableText('What that response code means.'),
    decline_code: nullableText('Why the card was declined (state declined).'),
    failure_message: nullableText('A sentence about the decline.'),
    refunds: z.array(RefundWire),
    dispute: z.string().nullable().meta({
      description: 'The id of its dispute (GET /v1/disputes/{id}), when the cardholder disputed it.',
    }),
    early_fraud_warning: EarlyFraudWarningWire.nullable(),
    reference: nullableText("The merchant's reference."),
    description: nullableText('The description given on create.'),
    metadata: wireMetadata,
    collection: z.string().nullable().meta({ description: 'The collection this payment paid, if any.' }),
    authorization_expires_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  },
);

export function tokenResource(row: TokenRow): Wire<typeof TokenWire> {
  return {
    id: row.id,
    object: 'token',
    card: { brand: row.brand as CardBrand, last4: row.last4, exp_month: row.expMonth, exp_year: row.expYear },
    used: row.usedAt !== null,
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}

export function refundResource(row: RefundRow): Wire<typeof RefundWire> {
  const currency = row.currency as CurrencyCode;
  return {
    id: row.id,
    object: 'refund',
    card_payment: row.cardPaymentId,
    state: row.state,
    amount: WireDecimal.of(row.amount, currency),
    currency,
    reason: row.reason as Wire<typeof RefundWire>['reason'],
    failure_reason: row.failureReason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Whether a refund can still head off a dispute the warning announces. */
export function earlyFraudWarningActionable(row: CardPaymentRow): boolean {
  return row.disputeId === null && (row.state === 'captured' || row.state === 'partially_refunded');
}

/** The API representation of a card payment: REST bodies and event payloads. Never the number. */
export function cardPaymentResource(
  row: CardPaymentRow,
  refunds: RefundRow[],
  publicUrl: string,
): Wire<typeof CardPaymentWire> {
  const currency = row.currency as CurrencyCode;
  return {
    id: row.id,
    object: 'card_payment',
    state: row.state,
    amount: WireDecimal.of(row.amount, currency),
    amount_captured: WireDecimal.of(row.amountCaptured, currency),
    amount_refunded: WireDecimal.of(row.amountRefunded, currency),
    currency,
    capture: row.captureOnAuthorize,
    brand: row.brand as CardBrand,
    last4: row.last4,
    exp_month: row.expMonth,
    exp_year: row.expYear,
    three_d_secure: row.threeDSecure as Wire<typeof CardPaymentWire>['three_d_secure'],
    next_action:
      row.state === 'requires_action'
        ? { type: 'three_d_secure', url: challengePageUrl(publicUrl, row) }
        : null,
    network_response_code: row.networkResponseCode,
    network_response_message: row.networkResponseCode
      ? networkResponseDescription(row.networkResponseCode)
      : null,
    decline_code: row.declineCode,
    failure_message: row.failureMessage,
    refunds: refunds.map(refundResource),
    dispute: row.disputeId,
    early_fraud_warning: row.earlyFraudWarningAt
      ? {
          fraud_type: 'unauthorized_use_of_card',
          actionable: earlyFraudWarningActionable(row),
          created_at: row.earlyFraudWarningAt.toISOString(),
        }
      : null,
    reference: row.reference,
    description: row.description,
    metadata: row.metadata,
    collection: row.collectionId,
    authorization_expires_at: row.authorizationExpiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
