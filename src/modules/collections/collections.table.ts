import { index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, linkSecret, money, updatedAt } from '../../db/columns.ts';
import { merchants } from '../merchants/merchants.table.ts';
import type { AttemptState, CollectionState } from './collections.machine.ts';

export const collections = pgTable(
  'collections',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    reference: text('reference').notNull(),
    amount: money('amount').notNull(),
    currency: currency(),
    email: text('email'),
    description: text('description'),
    redirectUrl: text('redirect_url'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    state: text('state').$type<CollectionState>().notNull(),
    /** Why a bank payment failed: its ACH return code and reason. */
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    expiresAt: at('expires_at').notNull(),
    /** The secret of the checkout link: the page answers only a URL that carries it. */
    checkoutSecret: linkSecret('checkout_secret'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('collections_merchant_reference_uq').on(t.merchantId, t.reference),
    index('collections_merchant_id_idx').on(t.merchantId, t.id),
  ],
);

/** One row per attempt to pay a collection (card or bank account), successful or not. */
export const paymentAttempts = pgTable(
  'payment_attempts',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    collectionId: text('collection_id')
      .notNull()
      .references(() => collections.id),
    method: text('method', { enum: ['card', 'bank_account'] }).notNull(),
    state: text('state').$type<AttemptState>().notNull(),
    amount: money('amount').notNull(),
    currency: currency(),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    cardExpMonth: text('card_exp_month'),
    cardExpYear: text('card_exp_year'),
    threeDSecure: text('three_d_secure'),
    /** The network's answer to use if the payer passes the 3-D Secure challenge (decided at submission). */
    challengeResult: jsonb('challenge_result').$type<{
      declineCode: string;
      networkResponseCode: string | null;
      message: string;
    } | null>(),
    networkResponseCode: text('network_response_code'),
    declineCode: text('decline_code'),
    failureMessage: text('failure_message'),
    bankRoutingNumber: text('bank_routing_number'),
    bankAccountLast4: text('bank_account_last4'),
    bankAccountType: text('bank_account_type'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('payment_attempts_collection_idx').on(t.collectionId, t.id)],
);
