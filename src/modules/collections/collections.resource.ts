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
import { attemptMachine, collectionMachine } from './collections.machine.ts';
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

const nullableText = (description: string) => z.string().nullable().meta({ description });

export const CollectionWire = wireResource(
  'Collection',
  'collection',
  'A hosted checkout session: an amount a payer is asked for, paid by card (a card payment) or by US bank account (an ACH debit of the payer).',
  {
    reference: z
      .string()
      .meta({ description: 'Your reference, unique per merchant (the collection id when none was given).' }),
    state: z.enum(collectionMachine.states).meta({
      description:
        'pending → succeeded (a card payment captured); pending → processing (an ACH debit submitted) → succeeded when it settles, or failed when it comes back (even after succeeding); pending → expired or canceled.',
    }),
    amount: wireDecimal,
    currency: wireCurrency,
    email: nullableText("The payer's e-mail address given on create."),
    description: nullableText('The description given on create.'),
    // Not `format: uri`: an http(s) URL as browsers parse it (WHATWG), which RFC 3986 may not allow.
    redirect_url: nullableText(
      'Where the payer is sent after paying, with ?reference=…&state=… (the http(s) URL given on create).',
    ),
    metadata: wireMetadata,
    checkout_url: z
      .string()
      .meta({ format: 'uri', description: 'The checkout page to hand the payer (its secret in the query).' }),
    failure_code: nullableText("Why a bank payment failed: its ACH debit's Nacha return code (R01)."),
    failure_message: nullableText('A sentence about the failure.'),
    expires_at: timestamp.meta({ description: 'When a pending collection expires (clock time).' }),
    created_at: timestamp,
    updated_at: timestamp,
  },
);

export const PaymentAttemptWire = wireResource(
  'PaymentAttempt',
  'payment_attempt',
  'A payment of a collection made before card payments and ACH debits took that role: kept for collections paid then, and shown beside their newer payments.',
  {
    collection: idOf('collection it paid'),
    method: z.enum(['card', 'bank_account']),
    state: z.enum(attemptMachine.states),
    amount: wireDecimal,
    currency: wireCurrency,
    card: z
      .object({
        brand: z.string().nullable(),
        last4: z.string().nullable(),
        exp_month: z.number().int(),
        exp_year: z.number().int(),
        three_d_secure: z.string().nullable(),
      })
      .nullable()
      .meta({ description: 'The card (method card); null otherwise.' }),
    bank_account: z
      .object({
        routing_number: z.string().nullable(),
        last4: z.string().nullable(),
        account_type: z.string().nullable(),
      })
      .nullable()
      .meta({ description: 'The bank account (method bank_account); null otherwise.' }),
    network_response_code: nullableText('The ISO 8583 response code of a card attempt.'),
    decline_code: nullableText('Why the card was declined.'),
    failure_message: nullableText('A sentence about the failure.'),
    created_at: timestamp,
    updated_at: timestamp,
  },
);

/** The API representation of a collection: REST bodies and event payloads. */
export function collectionResource(row: CollectionRow, publicUrl: string): Wire<typeof CollectionWire> {
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

/** The API representation of a payment attempt (made before card payments and ACH debits). */
export function attemptResource(row: AttemptRow): Wire<typeof PaymentAttemptWire> {
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
