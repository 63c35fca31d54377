import { z } from 'zod';
import { defineObject, field, withWire } from '../../kernel/declare.ts';
import { describedValues } from '../../kernel/described-values.ts';
import { type Wire, wireDecimal } from '../../kernel/wire-resources.ts';
import { disputeMachine } from './disputes.machine.ts';
import { CARD_NETWORKS, findReasonCode, REASON_CATEGORIES } from './disputes.networks.ts';
import { DISPUTE_REASONS } from './disputes.schema.ts';
import type { disputes } from './disputes.table.ts';

export type DisputeRow = typeof disputes.$inferSelect;

export const OUTCOME_REASONS = ['evidence', 'accepted', 'no_response', 'simulated'] as const;
export type OutcomeReason = (typeof OUTCOME_REASONS)[number];

const FEE = 'The dispute fee debited with the amount when it became a chargeback (0 for an inquiry).';

export const Dispute = defineObject<DisputeRow>()(
  'Dispute',
  'dispute',
  'A dispute of a captured card payment: a chargeback (needs_response → under_review → won | lost) or an inquiry (warning_needs_response → warning_under_review → warning_closed, or escalated to a chargeback).',
  {
    card_payment: field.ref<DisputeRow>('card payment', (row) => row.cardPaymentId),
    state: field.enum(disputeMachine.states, 'Where it stands.'),
    amount: field.money('How much the cardholder disputes.'),
    currency: field.currency(),
    reason: field.enum(DISPUTE_REASONS, 'Why the cardholder disputes.'),
    network: field.enum(CARD_NETWORKS, "The card network whose rules govern it: the payment's brand."),
    network_reason_code: field.text(
      "The network's reason code, e.g. Visa 10.4, Mastercard 4837, American Express F29.",
    ),
    network_reason_category: field.enum(
      REASON_CATEGORIES,
      "The network's category of that code: fraud, authorization, processing_error (Mastercard: point-of-interaction error) or consumer_dispute (Mastercard: cardholder dispute).",
      (row: DisputeRow) => findReasonCode(row.network, row.networkReasonCode)?.category ?? 'consumer_dispute',
    ),
    network_reason_description: field.text(
      "The code's name in the network's rules.",
      (row: DisputeRow) => findReasonCode(row.network, row.networkReasonCode)?.name ?? '',
    ),
    inquiry: field.boolean('Whether it was opened as an inquiry (a warning_* dispute).'),
    fee: withWire(field.money(FEE), wireDecimal.meta({ type: 'number', description: FEE } as z.GlobalMeta)),
    evidence: withWire(
      field.metadata(),
      z
        .record(z.string(), z.string())
        .meta({ description: 'The evidence saved so far, by field (snake_case names).' }),
    ),
    evidence_due_by: field.timestamp(
      'When the evidence is due (clock time); a chargeback with none submitted by then is lost.',
    ),
    evidence_submitted_at: field.nullableTimestamp('When the evidence was submitted, clock time.'),
    review_ends_at: field.nullableTimestamp('While under review: when the issuer decides (clock time).'),
    outcome_reason: field.nullableEnum(
      OUTCOME_REASONS,
      'How a closed dispute was decided: evidence (the review), accepted (closed by the merchant), no_response (past the due date), simulated (POST /v1/simulate/disputes/{id}/resolve).',
    ),
    created_at: field.timestamp('When it opened, clock time.'),
    updated_at: field.updatedAt(),
  },
);

export const DisputeWire = Dispute.wire;

/** The API representation of a dispute: REST bodies and event payloads. */
export function disputeResource(row: DisputeRow): Wire<typeof DisputeWire> {
  return Dispute.render(row, { publicUrl: '' });
}

export const DisputeOutcomeReasonValues = describedValues(
  'DisputeOutcomeReason',
  'How a closed dispute was decided.',
  {
    evidence: 'The review of the submitted evidence.',
    accepted: 'The merchant closed (accepted) it.',
    no_response: 'No evidence was submitted by the due date.',
    simulated: 'simulateDisputeResolution (POST /v1/simulate/disputes/{id}/resolve).',
  } satisfies Record<OutcomeReason, string>,
);
