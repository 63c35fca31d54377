import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, linkSecret, money, updatedAt } from '../../db/columns.ts';
import type { CardPaymentState, RefundState } from './card-payments.machine.ts';

/**
 * A tokenized card (`tok_`), usable once within 15 minutes of clock time, and never past 15 minutes
 * of real time (a frozen clock does not keep a card secret). The number is kept only so the network
 * can decide on it when the token is used; no response, event or log renders it.
 */
export const cardTokens = pgTable(
  'card_tokens',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    number: text('number').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    cvc: text('cvc').notNull(),
    name: text('name'),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
    createdAt: createdAt(),
    /**
     * The real instant of tokenization (createdAt is the merchant's clock): the number and CVC are
     * not kept past 15 minutes after it either. Tokens older than the column count from its migration.
     */
    realCreatedAt: at('real_created_at').notNull().defaultNow(),
  },
  (t) => [
    // The retention sweep's way to the few tokens still holding a card number, by either clock.
    index('card_tokens_unexpired_idx').on(t.merchantId, t.expiresAt).where(sql`${t.number} <> ''`),
    index('card_tokens_unexpired_real_idx').on(t.realCreatedAt).where(sql`${t.number} <> ''`),
  ],
);

export interface ChallengeResult {
  declineCode: string;
  networkResponseCode: string | null;
  message: string;
}

/** A card payment (`cp_`): authorization, capture, void, refunds, expiry. */
export const cardPayments = pgTable(
  'card_payments',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    /** Set when the payment was made through a collection's checkout. */
    collectionId: text('collection_id'),
    state: text('state').$type<CardPaymentState>().notNull(),
    amount: money('amount').notNull(),
    amountCaptured: money('amount_captured').notNull(),
    amountRefunded: money('amount_refunded').notNull(),
    currency: currency(),
    /** Capture at once when authorized (`capture: true`). */
    captureOnAuthorize: boolean('capture_on_authorize').notNull(),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    networkResponseCode: text('network_response_code'),
    declineCode: text('decline_code'),
    failureMessage: text('failure_message'),
    /** null (no challenge), required, succeeded or failed. */
    threeDSecure: text('three_d_secure'),
    /** The network's answer should the payer pass the challenge (decided at submission). */
    challengeResult: jsonb('challenge_result').$type<ChallengeResult | null>(),
    /** The closed loop: the issuing authorization of this sandbox's virtual card that decided it. */
    issuingAuthorizationId: text('issuing_authorization_id'),
    /** How refunds of this card behave (a magic card's property, kept instead of the number). */
    refundBehavior: text('refund_behavior').notNull(),
    /** What follows its capture: a magic card's dispute or early fraud warning (null: nothing). */
    disputeBehavior: text('dispute_behavior'),
    /** The latest dispute opened on it (a Visa or Mastercard payment may have several). */
    disputeId: text('dispute_id'),
    /** The amount of all its disputes together: never more than captured and not refunded. */
    amountDisputed: money('amount_disputed').notNull().default(sql`0`),
    /** When the issuer sent an early fraud warning about it (magic card …5423). */
    earlyFraudWarningAt: at('early_fraud_warning_at'),
    reference: text('reference'),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    authorizedAt: at('authorized_at'),
    /** When it was captured (its processing date starts a cardholder's dispute window). */
    capturedAt: at('captured_at'),
    /** When an uncaptured authorization expires (7 days of clock time after it was made). */
    authorizationExpiresAt: at('authorization_expires_at'),
    /** The secret of the 3-D Secure page's link (next_action.url): the page answers only with it. */
    challengeSecret: linkSecret('challenge_secret'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('card_payments_merchant_id_idx').on(t.merchantId, t.id),
    // Only checkout payments have a collection: the API's own (most payments) stay out of the index.
    index('card_payments_collection_idx').on(t.collectionId).where(sql`${t.collectionId} IS NOT NULL`),
  ],
);

/** A refund (`re_`) of a captured card payment: pending → succeeded | failed. */
export const cardRefunds = pgTable(
  'card_refunds',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    cardPaymentId: text('card_payment_id')
      .notNull()
      .references(() => cardPayments.id),
    state: text('state').$type<RefundState>().notNull(),
    amount: money('amount').notNull(),
    currency: currency(),
    reason: text('reason'),
    failureReason: text('failure_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('card_refunds_payment_idx').on(t.cardPaymentId, t.id)],
);
