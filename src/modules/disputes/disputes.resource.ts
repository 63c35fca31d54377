import { z } from 'zod';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import {
  idOf,
  timestamp,
  type Wire,
  wireCurrency,
  wireDecimal,
  wireResource,
} from '../../kernel/wire-resources.ts';
import { disputeMachine } from './disputes.machine.ts';
import { DISPUTE_REASONS, type DisputeReason } from './disputes.schema.ts';
import type { disputes } from './disputes.table.ts';

export type DisputeRow = typeof disputes.$inferSelect;

export const OUTCOME_REASONS = ['evidence', 'accepted', 'no_response', 'simulated'] as const;
export type OutcomeReason = (typeof OUTCOME_REASONS)[number];

export const DisputeWire = wireResource(
  'Dispute',
  'dispute',
  'A dispute of a captured card payment: a chargeback (needs_response → under_review → won | lost) or an inquiry (warning_needs_response → warning_under_review → warning_closed, or escalated to a chargeback).',
  {
    card_payment: idOf('card payment'),
    state: z.enum(disputeMachine.states),
    amount: wireDecimal,
    currency: wireCurrency,
    reason: z.enum(DISPUTE_REASONS).meta({ description: 'Why the cardholder disputes.' }),
    inquiry: z.boolean().meta({ description: 'Whether it was opened as an inquiry (a warning_* dispute).' }),
    fee: wireDecimal.meta({
      type: 'number',
      description: 'The dispute fee debited with the amount when it became a chargeback (0 for an inquiry).',
    } as z.GlobalMeta),
    evidence: z.record(z.string(), z.string()).meta({ description: 'The evidence saved so far, by field.' }),
    evidence_due_by: timestamp.meta({
      format: 'date-time',
      description: 'When the evidence is due (clock time); a chargeback with none submitted by then is lost.',
    }),
    evidence_submitted_at: timestamp.nullable(),
    review_ends_at: timestamp
      .nullable()
      .meta({ description: 'While under review: when the issuer decides (clock time).' }),
    outcome_reason: z.enum(OUTCOME_REASONS).nullable().meta({
      description:
        'How a closed dispute was decided: evidence (the review), accepted (closed by the merchant), no_response (past the due date), simulated (POST /v1/simulate/disputes/{id}/resolve).',
    }),
    created_at: timestamp,
    updated_at: timestamp,
  },
);

export function disputeResource(row: DisputeRow): Wire<typeof DisputeWire> {
  const currency = row.currency as CurrencyCode;
  return {
    id: row.id,
    object: 'dispute',
    card_payment: row.cardPaymentId,
    state: row.state,
    amount: WireDecimal.of(row.amount, currency),
    currency,
    reason: row.reason as DisputeReason,
    inquiry: row.inquiry,
    fee: WireDecimal.of(row.fee, currency),
    evidence: row.evidence,
    evidence_due_by: row.evidenceDueBy.toISOString(),
    evidence_submitted_at: row.evidenceSubmittedAt?.toISOString() ?? null,
    review_ends_at: row.reviewEndsAt?.toISOString() ?? null,
    outcome_reason: row.outcomeReason as OutcomeReason | null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
