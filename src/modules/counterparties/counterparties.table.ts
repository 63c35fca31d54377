import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../../db/columns.ts';
import type { VerificationMethod, VerificationState } from './counterparties.verification-rules.ts';

/** The latest account verification of a counterparty: its method, timing, attempts and outcome. */
export interface VerificationRecord {
  method: VerificationMethod;
  started_at: string;
  /** When its ACH entries settle. */
  settles_at: string;
  /** Micro-deposits: when they can be confirmed; a prenote: when live entries may start. */
  available_at: string;
  attempts_remaining: number | null;
  failure_code: string | null;
  failure_reason: string | null;
  verified_at: string | null;
}

/** Fields of a counterparty an applied notification of change can correct. */
export interface CounterpartyFields {
  name: string;
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
  individualId: string | null;
}

/**
 * One correction a counterparty received from a notification of change on an entry to it:
 * what changed (`corrected`, wire names), what it replaced (`previous`, kept to revert it when the
 * merchant refuses the NOC; never rendered), and, once refused, the refusal.
 */
export interface CounterpartyCorrection {
  code: string;
  reason: string;
  transferId: string;
  corrected: Record<string, string>;
  previous: Partial<CounterpartyFields>;
  receivedAt: string;
  refusedAt: string | null;
  refusalCode: string | null;
}

/**
 * A saved bank account (`cpty_`): transfers name it instead of carrying the account inline, and
 * an applied notification of change corrects it, so the next entry to it uses the corrected data.
 * The full account number is kept here (entries keep its last 4 digits only).
 */
export const counterparties = pgTable(
  'counterparties',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    name: text('name').notNull(),
    routingNumber: text('routing_number').notNull(),
    accountNumber: text('account_number').notNull(),
    accountType: text('account_type').$type<'checking' | 'savings'>().notNull(),
    /** The receiver's identification number an entry carries (Individual ID of PPD/WEB, ID of CCD). */
    individualId: text('individual_id'),
    corrections: jsonb('corrections').$type<CounterpartyCorrection[]>().notNull().default([]),
    /** Account verification (counterparties.verification.ts): unverified, verification_pending, verified, verification_failed. */
    verificationState: text('verification_state').$type<VerificationState>().notNull().default('unverified'),
    verification: jsonb('verification').$type<VerificationRecord>(),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('counterparties_merchant_id_idx').on(t.merchantId, t.id)],
);

export type CounterpartyRow = typeof counterparties.$inferSelect;
