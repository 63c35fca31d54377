import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import type { DisputeRow } from '../disputes/disputes.resource.ts';
import type { BalanceTransactionView } from './stripe.balance-render.ts';
import { chargeId } from './stripe.payment-intents.read.ts';
import { intentIdOf } from './stripe.render.ts';

/**
 * A native dispute (`dp_`) as Stripe's Dispute: its charge is its card payment (`cp_X` ↔ `ch_X`),
 * its PaymentIntent the payment's reference when that is one; its status is the native state
 * (the two share Stripe's names); its balance transactions are its chargeback's postings.
 */

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/** Stripe's evidence fields Sandbank keeps, as text (Stripe's file fields among them take any text, a file id too). */
export const EVIDENCE_FIELDS = [
  'cancellation_rebuttal',
  'customer_communication',
  'customer_email_address',
  'customer_name',
  'duplicate_charge_explanation',
  'product_description',
  'refund_policy',
  'shipping_tracking_number',
  'uncategorized_text',
] as const;

/** Stripe's other evidence fields: shown (null), refused when sent. */
export const UNKEPT_EVIDENCE_FIELDS = [
  'access_activity_log',
  'billing_address',
  'cancellation_policy',
  'cancellation_policy_disclosure',
  'customer_purchase_ip',
  'customer_signature',
  'duplicate_charge_documentation',
  'duplicate_charge_id',
  'enhanced_evidence',
  'receipt',
  'refund_policy_disclosure',
  'refund_refusal_explanation',
  'service_date',
  'service_documentation',
  'shipping_address',
  'shipping_carrier',
  'shipping_date',
  'shipping_documentation',
  'uncategorized_file',
] as const;

export interface DisputeView {
  row: DisputeRow;
  /** Its card payment (null only if it could not be read). */
  payment: CardPaymentDetail | null;
  transactions: readonly BalanceTransactionView[];
}

function evidenceOf(saved: Record<string, string>) {
  const evidence: Record<string, unknown> = {};
  for (const field of [...EVIDENCE_FIELDS, ...UNKEPT_EVIDENCE_FIELDS].sort())
    evidence[field] = field === 'enhanced_evidence' ? {} : (saved[field] ?? null);
  return evidence;
}

const OPEN = new Set(['needs_response', 'warning_needs_response']);

export function renderDispute(
  view: DisputeView,
  now: Date,
  renderTransaction: (view: BalanceTransactionView) => unknown,
) {
  const { row, payment } = view;
  const refundable =
    row.state.startsWith('warning_') && payment !== null && payment.amountRefunded < payment.amountCaptured;
  return {
    id: row.id,
    object: 'dispute',
    amount: Number(row.amount),
    balance_transactions: view.transactions.map(renderTransaction),
    charge: chargeId(row.cardPaymentId),
    created: seconds(row.createdAt),
    currency: row.currency.toLowerCase(),
    enhanced_eligibility_types: [],
    evidence: evidenceOf(row.evidence),
    evidence_details: {
      due_by: seconds(row.evidenceDueBy),
      enhanced_eligibility: {},
      has_evidence: Object.values(row.evidence).some((text) => text.trim() !== ''),
      past_due: OPEN.has(row.state) && row.evidenceDueBy < now,
      submission_count: row.evidenceSubmittedAt ? 1 : 0,
    },
    is_charge_refundable: refundable,
    livemode: false,
    metadata: {},
    network_reason_code: row.networkReasonCode,
    payment_intent: payment ? intentIdOf(payment) : null,
    payment_method_details: {
      card: {
        brand: row.network,
        case_type: row.inquiry ? 'inquiry' : 'chargeback',
        network_reason_code: row.networkReasonCode,
      },
      type: 'card',
    },
    reason: row.reason,
    status: row.state,
  };
}
