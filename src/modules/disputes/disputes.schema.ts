import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { wireAmount } from '../../kernel/wire-schemas.ts';
import type { DisputeState } from './disputes.machine.ts';

/** Why the cardholder disputes (the card networks' categories, as Stripe names them). */
export const DISPUTE_REASONS = [
  'fraudulent',
  'product_not_received',
  'duplicate',
  'subscription_canceled',
  'product_unacceptable',
  'credit_not_processed',
  'general',
  'unrecognized',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

/** The evidence a merchant may send, as text fields (at most 5,000 characters each). */
export const EVIDENCE_FIELDS = [
  'product_description',
  'customer_name',
  'customer_email_address',
  'customer_communication',
  'shipping_tracking_number',
  'refund_policy',
  'cancellation_rebuttal',
  'duplicate_charge_explanation',
  'uncategorized_text',
] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];

/** What each evidence field holds. */
const EVIDENCE_TEXTS: Record<EvidenceField, string> = {
  product_description: 'What was sold.',
  customer_name: "The customer's name.",
  customer_email_address: "The customer's email address.",
  customer_communication: 'Messages with the customer.',
  shipping_tracking_number: 'The tracking number of the shipment.',
  refund_policy: 'The refund policy the customer accepted.',
  cancellation_rebuttal: 'Why the subscription was not canceled.',
  duplicate_charge_explanation: 'Why the payments are not duplicates.',
  uncategorized_text: 'Anything else.',
};

const evidenceText = z.string().max(5000);

export const evidenceSchema = z
  .strictObject(
    Object.fromEntries(
      EVIDENCE_FIELDS.map((field) => [field, evidenceText.optional().describe(EVIDENCE_TEXTS[field])]),
    ) as {
      [K in EvidenceField]: z.ZodOptional<typeof evidenceText>;
    },
  )
  .describe(
    'Text evidence, by field (each at most 5,000 characters). In this sandbox the text decides the review: `winning_evidence` wins it, `losing_evidence` loses it.',
  );

export const simulateDisputeSchema = z.strictObject({
  reason: z
    .enum(DISPUTE_REASONS)
    .optional()
    .describe('Why the cardholder disputes (default: the reason network_reason_code implies, else general).'),
  network_reason_code: z
    .string()
    .min(1)
    .max(16)
    .optional()
    .describe(
      "The card network's reason code, of the payment's network: Visa 10.1–13.9 (e.g. 10.4, 13.1), Mastercard 4808–4871 (e.g. 4837, 4853), American Express letters and digits (e.g. F29, C08). Default: the code the reason implies on that network. 400 dispute_reason_code_invalid for another network's code, a retired one, or one that does not fit the reason; 409 dispute_window_closed past the code's window.",
    ),
  amount: wireAmount
    .optional()
    .describe('At most what is captured and neither refunded nor disputed (default: all of it).'),
  inquiry: z
    .boolean()
    .optional()
    .describe('Open an inquiry (a warning_* dispute: nothing is debited) instead of a chargeback.'),
});

/** POST /v1/simulate/card_payments/{id}/dispute's body as parsed. */
export type SimulateDisputeInput = z.output<typeof simulateDisputeSchema>;

export const simulateDisputeFieldCodes: FieldCodes = { amount: 'amount_invalid' };

export const updateDisputeSchema = z.strictObject({
  evidence: evidenceSchema.optional().describe('Evidence to save (merged with what is saved).'),
  submit: z
    .boolean()
    .optional()
    .describe('Submit the evidence for review (default true); false only saves it.'),
});

/** POST /v1/disputes/{id}'s body as parsed. */
export type UpdateDisputeInput = z.output<typeof updateDisputeSchema>;

export const resolveDisputeSchema = z.strictObject({
  outcome: z
    .enum(['won', 'lost'])
    .describe(
      'won or lost; for an inquiry, won closes it (warning_closed) and lost escalates it to a chargeback.',
    ),
});

/** POST /v1/simulate/disputes/{id}/resolve's body as parsed. */
export type ResolveDisputeInput = z.output<typeof resolveDisputeSchema>;

export const DisputeStateValues = describedValues('DisputeState', 'Where a dispute stands.', {
  warning_needs_response: 'An inquiry: the issuer asks for information; nothing is debited.',
  warning_under_review: 'An inquiry whose evidence the issuer is reviewing.',
  warning_closed: 'An inquiry closed without a chargeback (final).',
  needs_response: 'A chargeback: the amount and fee are debited; evidence is due by evidenceDueBy.',
  under_review: 'A chargeback whose evidence the issuer is reviewing.',
  won: 'Decided for the merchant: the amount and the fee came back. Final.',
  lost: 'Decided for the cardholder: the debit stands. Final.',
} satisfies Record<DisputeState, string>);

export const DisputeReasonValues = describedValues('DisputeReason', 'Why the cardholder disputes.', {
  fraudulent: 'The cardholder says they did not make the payment.',
  product_not_received: 'The cardholder says the goods or service never arrived.',
  duplicate: 'The cardholder says they were charged twice.',
  subscription_canceled: 'The cardholder says the subscription was canceled before.',
  product_unacceptable: 'The cardholder says the goods were defective or not as described.',
  credit_not_processed: 'The cardholder says a promised refund never came.',
  general: 'Any other reason (also an inquiry opened by a magic card).',
  unrecognized: 'The cardholder does not recognize the payment.',
} satisfies Record<DisputeReason, string>);

export const DisputeOutcomeValues = describedValues('DisputeOutcome', 'What the issuer decides.', {
  won: 'For the merchant (an inquiry: closed).',
  lost: 'For the cardholder (an inquiry: escalated to a chargeback).',
});
