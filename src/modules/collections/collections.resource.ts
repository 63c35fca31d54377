import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import type { collections, paymentAttempts } from './collections.table.ts';

export type CollectionRow = typeof collections.$inferSelect;
export type AttemptRow = typeof paymentAttempts.$inferSelect;

type CheckoutLink = Pick<CollectionRow, 'id' | 'checkoutSecret'>;

/**
 * A path of a collection's checkout (`rest` after the id: `/card`, `/3ds/cp_…`) with the secret
 * that opens it in the query string. The pages send `Referrer-Policy: no-referrer`, so the secret
 * does not leave in a Referer header, and the request log records paths without their query.
 */
export function checkoutPath(row: CheckoutLink, rest = ''): string {
  return `/checkout/${row.id}${rest}?secret=${encodeURIComponent(row.checkoutSecret)}`;
}

/** The link the merchant hands the payer (`checkout_url`). */
export function checkoutUrl(publicUrl: string, row: CheckoutLink): string {
  return `${publicUrl}${checkoutPath(row)}`;
}

/** The API representation of a collection: REST bodies and event payloads. */
export function collectionResource(row: CollectionRow, publicUrl: string): Record<string, unknown> {
  const currency = row.currency as CurrencyCode;
  return {
    id: row.id,
    object: 'collection',
    reference: row.reference,
    state: row.state,
    amount: WireDecimal.of(row.amount, currency),
    currency,
    email: row.email,
    description: row.description,
    redirect_url: row.redirectUrl,
    metadata: row.metadata,
    checkout_url: checkoutUrl(publicUrl, row),
    failure_code: row.failureCode,
    failure_message: row.failureMessage,
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function attemptResource(row: AttemptRow): Record<string, unknown> {
  const currency = row.currency as CurrencyCode;
  return {
    id: row.id,
    object: 'payment_attempt',
    collection: row.collectionId,
    method: row.method,
    state: row.state,
    amount: WireDecimal.of(row.amount, currency),
    currency,
    card:
      row.method === 'card'
        ? {
            brand: row.cardBrand,
            last4: row.cardLast4,
            exp_month: Number(row.cardExpMonth),
            exp_year: Number(row.cardExpYear),
            three_d_secure: row.threeDSecure,
          }
        : null,
    bank_account:
      row.method === 'bank_account'
        ? {
            routing_number: row.bankRoutingNumber,
            last4: row.bankAccountLast4,
            account_type: row.bankAccountType,
          }
        : null,
    network_response_code: row.networkResponseCode,
    decline_code: row.declineCode,
    failure_message: row.failureMessage,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
