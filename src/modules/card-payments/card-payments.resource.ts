import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';
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

export function tokenResource(row: TokenRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'token',
    card: { brand: row.brand, last4: row.last4, exp_month: row.expMonth, exp_year: row.expYear },
    used: row.usedAt !== null,
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}

export function refundResource(row: RefundRow): Record<string, unknown> {
  const currency = row.currency as CurrencyCode;
  return {
    id: row.id,
    object: 'refund',
    card_payment: row.cardPaymentId,
    state: row.state,
    amount: WireDecimal.of(row.amount, currency),
    currency,
    reason: row.reason,
    failure_reason: row.failureReason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The API representation of a card payment: REST bodies and event payloads. Never the number. */
export function cardPaymentResource(
  row: CardPaymentRow,
  refunds: RefundRow[],
  publicUrl: string,
): Record<string, unknown> {
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
    brand: row.brand,
    last4: row.last4,
    exp_month: row.expMonth,
    exp_year: row.expYear,
    three_d_secure: row.threeDSecure,
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
    reference: row.reference,
    description: row.description,
    metadata: row.metadata,
    collection: row.collectionId,
    authorization_expires_at: row.authorizationExpiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
