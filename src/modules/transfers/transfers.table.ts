import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt, currency, money, updatedAt } from '../../db/columns.ts';
import type { NocRecord } from '../bank-accounts/bank-accounts.corrections.ts';
import type { EntryState } from './transfers.machine.ts';

/**
 * An entry on the bank rails: a transfer (`tr_`) or a payout of the merchant's balance
 * to its own bank account (`po_`, §6), over ACH, Same-Day ACH or RTP. Both ride the one rail
 * engine (transfers.steps.ts); `kind` says which, and `state` holds the kind's own state names
 * (a payout is `in_transit` where a transfer is `submitted`). Only the counterparty's account
 * number's last 4 digits are kept: what the network does with the entry (the magic accounts of
 * §13) is decided at creation and kept in `outcome` / `outcome_code`.
 */
/** A return's Written Statement of Unauthorized Debit (transfers.wsud.ts). */
export interface WsudRecord {
  receiver_name: string;
  account_number_last4: string;
  debited_by: string;
  entry_posted_on: string;
  reason_code: string;
  reason: string;
  signed_on: string;
  statements: string[];
  copy_request_by: string;
  copy_requested_at: string | null;
  copy_provide_by: string | null;
  copy_provided_at: string | null;
}

/** A wire's recall (camt.056) and the beneficiary bank's answer (camt.029, or the return). */
export interface WireRecallRecord {
  reason: string;
  reason_text: string;
  requested_at: string;
  state: 'requested' | 'accepted' | 'refused';
  answer_due_at: string;
  answered_at: string | null;
  refusal_code: string | null;
  refusal_reason: string | null;
}

export const transfers = pgTable(
  'transfers',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    /** transfer or payout. */
    kind: text('kind', { enum: ['transfer', 'payout'] })
      .notNull()
      .default('transfer'),
    rail: text('rail').notNull(),
    direction: text('direction').notNull(),
    state: text('state').$type<EntryState>().notNull(),
    amount: money('amount').notNull(),
    currency: currency(),
    counterpartyName: text('counterparty_name').notNull(),
    routingNumber: text('routing_number').notNull(),
    accountLast4: text('account_last4').notNull(),
    accountType: text('account_type').notNull(),
    /** ACH only: PPD, CCD or WEB. */
    secCode: text('sec_code'),
    /** succeeds, returns, stays_submitted or rejected (transfers.rails.ts RailOutcome). */
    outcome: text('outcome').notNull(),
    /** The return code (returns) or the ISO 20022 reason (rejected) the outcome carries. */
    outcomeCode: text('outcome_code'),
    /** A credit's hold on the available balance (a ledger posting id), from creation. */
    holdId: text('hold_id'),
    expectedSubmissionAt: at('expected_submission_at'),
    expectedSettlementAt: at('expected_settlement_at'),
    submittedAt: at('submitted_at'),
    settledAt: at('settled_at'),
    returnedAt: at('returned_at'),
    returnCode: text('return_code'),
    returnReason: text('return_reason'),
    failureReason: text('failure_reason'),
    /** The return arrived after its code's time frame (let through with `untimely`). */
    returnUntimely: boolean('return_untimely').notNull().default(false),
    /** The receiver's Written Statement of Unauthorized Debit of an R05, R07, R10 or R11 return; null otherwise. */
    wsud: jsonb('wsud').$type<WsudRecord>(),
    /** The ODFI dishonored the return (R61-R70): when, and with which code. */
    dishonoredAt: at('dishonored_at'),
    dishonorCode: text('dishonor_code'),
    dishonorReason: text('dishonor_reason'),
    /** The RDFI contested the dishonor (R71-R77): when, and with which code. */
    contestedAt: at('contested_at'),
    contestCode: text('contest_code'),
    contestReason: text('contest_reason'),
    /** The collection an ACH debit pays (its checkout's bank-account method), if any. */
    collectionId: text('collection_id'),
    reference: text('reference'),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    /** The saved counterparty (`cpty_`) the entry was sent to, when it named one. */
    counterpartyId: text('counterparty_id'),
    /** The NOC a magic account (200XX) makes the RDFI send after settlement (nocs.rules.ts). */
    nocCode: text('noc_code'),
    /** The notifications of change the RDFI sent about this entry (src/modules/nocs). */
    notificationsOfChange: jsonb('notifications_of_change').$type<NocRecord[]>().notNull().default([]),
    /** Fedwire: the Input and Output Message Accountability Data (transfers.wire.ts); null on other rails. */
    imad: text('imad'),
    omad: text('omad'),
    /** Fedwire: the merchant's request to recall the wire, and the beneficiary bank's answer. */
    recall: jsonb('recall').$type<WireRecallRecord>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('transfers_merchant_kind_id_idx').on(t.merchantId, t.kind, t.id),
    index('transfers_collection_idx').on(t.collectionId).where(sql`${t.collectionId} IS NOT NULL`),
  ],
);
