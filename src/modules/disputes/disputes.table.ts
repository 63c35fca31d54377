import { boolean, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, money, updatedAt } from '../../db/columns.ts';
import type { DisputeState } from './disputes.machine.ts';

/**
 * A dispute (`dp_`) of a captured card payment, with its network's reason code: a Visa or
 * Mastercard payment may be disputed more than once (for parts of it), an Amex payment once.
 */
export const disputes = pgTable(
  'disputes',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    cardPaymentId: text('card_payment_id').notNull(),
    state: text('state').$type<DisputeState>().notNull(),
    amount: money('amount').notNull(),
    currency: currency(),
    reason: text('reason').notNull(),
    /** The card network (the payment's brand) and its reason code, e.g. visa 10.4, mastercard 4837. */
    network: text('network').notNull().default('visa'),
    networkReasonCode: text('network_reason_code').notNull().default(''),
    /** Opened as an inquiry (a `warning_*` dispute). */
    inquiry: boolean('inquiry').notNull(),
    /** The dispute fee debited with the amount (0 while an inquiry). */
    fee: money('fee').notNull(),
    /** The evidence, as last saved (text fields by name). */
    evidence: jsonb('evidence').$type<Record<string, string>>().notNull(),
    evidenceSubmittedAt: at('evidence_submitted_at'),
    /** When the evidence is due; past it with nothing submitted, the dispute is lost. */
    evidenceDueBy: at('evidence_due_by').notNull(),
    /** When the issuer's review of the submitted evidence ends. */
    reviewEndsAt: at('review_ends_at'),
    /** How it was decided: evidence, accepted (closed), no_response, simulated. */
    outcomeReason: text('outcome_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('disputes_merchant_id_idx').on(t.merchantId, t.id),
    index('disputes_card_payment_idx').on(t.cardPaymentId),
  ],
);
