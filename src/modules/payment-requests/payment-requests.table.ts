import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, money, updatedAt } from '../../db/columns.ts';
import type { PaymentRequestState } from './payment-requests.machine.ts';

/**
 * A request for payment (`rfp_`) on RTP or FedNow (ISO 20022 pain.013): `outbound`, the merchant
 * asks a payer for money; `inbound`, a requester asks the merchant. The answer (pain.014) accepts
 * or rejects it; a credit transfer fulfils it. Only the counterparty account's last 4 digits are
 * kept; what a payer's bank does with an outbound request is decided at creation (`behavior`).
 */
export const paymentRequests = pgTable(
  'payment_requests',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    direction: text('direction', { enum: ['outbound', 'inbound'] }).notNull(),
    rail: text('rail').notNull(),
    state: text('state').$type<PaymentRequestState>().notNull(),
    amount: money('amount').notNull(),
    currency: currency(),
    counterpartyName: text('counterparty_name').notNull(),
    routingNumber: text('routing_number').notNull(),
    accountLast4: text('account_last4').notNull(),
    /** The full account number of an inbound request's requester: where an accepted request is paid. */
    payToAccount: text('pay_to_account'),
    /** Outbound: what the payer's bank does (payment-requests.rules.ts PayerBehavior). */
    behavior: text('behavior'),
    expiresAt: at('expires_at').notNull(),
    respondedAt: at('responded_at'),
    rejectionCode: text('rejection_code'),
    rejectionReason: text('rejection_reason'),
    paidAt: at('paid_at'),
    /** The credit transfer that paid it: an inbound transfer (outbound request) or a transfer (inbound). */
    transferId: text('transfer_id'),
    reference: text('reference'),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('payment_requests_merchant_id_idx').on(t.merchantId, t.id)],
);

export type PaymentRequestRow = typeof paymentRequests.$inferSelect;
