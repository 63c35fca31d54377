import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, money, updatedAt } from '../../db/columns.ts';
import type { InboundState } from './inbound-transfers.machine.ts';

/**
 * Money an outside originator sends to the merchant (a credit) or pulls from it (a debit), over ACH,
 * Same-Day ACH, RTP or FedNow (`itr_`). Only the originator's account number's last 4 digits are
 * kept.
 */
export const inboundTransfers = pgTable(
  'inbound_transfers',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    rail: text('rail').notNull(),
    direction: text('direction').notNull(),
    state: text('state').$type<InboundState>().notNull(),
    amount: money('amount').notNull(),
    currency: currency(),
    originatorName: text('originator_name').notNull(),
    originatorRoutingNumber: text('originator_routing_number').notNull(),
    originatorAccountLast4: text('originator_account_last4').notNull(),
    /** ACH only: PPD, CCD or WEB. */
    secCode: text('sec_code'),
    /** ACH: the cut-off of the FedACH window the entry travels in. */
    expectedArrivalAt: at('expected_arrival_at'),
    expectedSettlementAt: at('expected_settlement_at'),
    settledAt: at('settled_at'),
    completedAt: at('completed_at'),
    /** Fedwire: the sending bank's IMAD and the OMAD of its delivery (null on other rails). */
    imad: text('imad'),
    omad: text('omad'),
    returnedAt: at('returned_at'),
    returnCode: text('return_code'),
    returnReason: text('return_reason'),
    reference: text('reference'),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('inbound_transfers_merchant_id_idx').on(t.merchantId, t.id)],
);

export type InboundTransferRow = typeof inboundTransfers.$inferSelect;
