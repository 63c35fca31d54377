import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, money, updatedAt } from '../../db/columns.ts';
import type { IssuingAuthorizationState, VirtualCardState } from './issuing.machine.ts';

/** Spending controls as stored: amounts in minor units as decimal strings (JSON has no bigint). */
export interface StoredControls {
  limits: { amount: string; interval: string }[];
  allowed_mccs: string[] | null;
  blocked_mccs: string[];
}

/**
 * A virtual card issued by the merchant (`vc_`). The number and CVC are kept so the
 * details endpoint and the closed loop (a card payment made with this number) can use them; no
 * other response, event, log line or error renders them.
 */
export const virtualCards = pgTable(
  'virtual_cards',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    brand: text('brand').notNull(),
    number: text('number').notNull(),
    cvc: text('cvc').notNull(),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    cardholderName: text('cardholder_name').notNull(),
    state: text('state').$type<VirtualCardState>().notNull(),
    /** Wrong security codes in a row from card payments (the closed loop); the card freezes at a few. */
    cvcFailures: integer('cvc_failures').notNull().default(0),
    spendingControls: jsonb('spending_controls').$type<StoredControls>().notNull(),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('virtual_cards_merchant_id_idx').on(t.merchantId, t.id),
    uniqueIndex('virtual_cards_number_uq').on(t.number),
  ],
);

/**
 * An authorization on a virtual card (`iauth_`): approved (its amount held on the merchant's
 * available USD) or declined with a reason; then captured, reversed (in part or in full) or
 * expired; refunds of a capture are counted in `amount_refunded`.
 */
export const issuingAuthorizations = pgTable(
  'issuing_authorizations',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    cardId: text('card_id').notNull(),
    state: text('state').$type<IssuingAuthorizationState>().notNull(),
    amount: money('amount').notNull(),
    amountReversed: money('amount_reversed').notNull(),
    amountCaptured: money('amount_captured').notNull(),
    amountRefunded: money('amount_refunded').notNull(),
    currency: currency(),
    merchantName: text('merchant_name').notNull(),
    merchantMcc: text('merchant_mcc').notNull(),
    merchantCountry: text('merchant_country').notNull(),
    declineReason: text('decline_reason'),
    /** The interval of the limit a spending_limit_exceeded decline tripped. */
    declineInterval: text('decline_interval'),
    networkResponseCode: text('network_response_code').notNull(),
    /** The hold on available while approved (a ledger posting id). */
    holdId: text('hold_id'),
    /** The card payment of this sandbox that asked for it (the closed loop), if any. */
    cardPaymentId: text('card_payment_id'),
    reference: text('reference'),
    expiresAt: at('expires_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('issuing_authorizations_merchant_id_idx').on(t.merchantId, t.id),
    index('issuing_authorizations_card_idx').on(t.cardId, t.createdAt),
  ],
);
