import { z } from 'zod';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { defineObject, field } from '../../kernel/declare.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import {
  idOf,
  timestamp,
  type Wire,
  wireCurrency,
  wireDecimal,
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

export const Collection = defineObject<CollectionRow>()(
  'Collection',
  'collection',
  'A hosted checkout session: an amount a payer is asked for, paid by card (a card payment) or by US bank account (an ACH debit of the payer).',
  {
    reference: field.text('Your reference, unique per merchant (the collection id when none was given).'),
    state: field.enum(
      collectionMachine.states,
      'pending → succeeded (a card payment captured); pending → processing (an ACH debit submitted) → succeeded when it settles, or failed when it comes back (even after succeeding); pending → expired or canceled.',
    ),
    amount: field.money(),
    currency: field.currency(),
    email: field.nullableText("The payer's e-mail address given on create."),
    description: field.nullableText('The description given on create, shown to the payer at checkout.'),
    // Not `format: uri`: an http(s) URL as browsers parse it (WHATWG), which RFC 3986 may not allow.
    redirect_url: field.nullableText(
      'Where the payer is sent after paying, with ?reference=…&state=… (the http(s) URL given on create).',
    ),
    metadata: field.metadata(),
    checkout_url: field.url<CollectionRow>(
      'The checkout page to hand the payer (a capability: its secret is in the query; share it with the payer only).',
      (row, rc) => checkoutUrl(rc.publicUrl, row),
    ),
    failure_code: field.nullableText("Why a bank payment failed: its ACH debit's Nacha return code (R01)."),
    failure_message: field.nullableText('A sentence about the failure.'),
    expires_at: field.timestamp('When a pending collection expires (clock time).'),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
);

export const CollectionWire = Collection.wire;

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
  return Collection.render(row, { publicUrl });
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
