import type { CardPaymentState, RefundState } from '../card-payments/card-payments.machine.ts';
import type { RefundRow } from '../card-payments/card-payments.resource.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import type { DisputeRow } from '../disputes/disputes.resource.ts';
import { chargeId } from './stripe.payment-intents.read.ts';
import { intentIdOf } from './stripe.render.ts';
import type { StripePaymentIntentRow } from './stripe.table.ts';

/**
 * Objects as they stood when a native event happened: the event's object (the native API's
 * rendering at the change) laid over the row as it is now. What changes of a payment, a refund, a
 * dispute or an intent is taken from the event; what never changes (amounts, the card, the
 * reference) from the row — never an amount from the event's JSON, whose numbers are decimals.
 */

/** The fields of a native card payment's event object read here. */
export interface PaymentSnapshot {
  state: CardPaymentState;
  capture: boolean;
  reference: string | null;
  decline_code: string | null;
  failure_message: string | null;
  three_d_secure: string | null;
  dispute: string | null;
  refunds: RefundSnapshot[];
  next_action: { url: string } | null;
  updated_at: string;
}

/** The fields of a native refund's event object read here. */
export interface RefundSnapshot {
  id: string;
  state: RefundState;
  failure_reason: string | null;
  updated_at: string;
}

/** The fields of a native dispute's event object read here. */
export interface DisputeSnapshot {
  state: string;
  evidence: Record<string, string>;
  evidence_due_by: string;
  evidence_submitted_at: string | null;
  created_at: string;
  updated_at: string;
}

const CAPTURED: ReadonlySet<CardPaymentState> = new Set(['captured', 'partially_refunded', 'refunded']);
const seconds = (at: Date | string) => Math.floor(new Date(at).getTime() / 1000);

function refundAsThen(row: RefundRow, then: RefundSnapshot | undefined): RefundRow {
  if (!then) return row;
  return {
    ...row,
    state: then.state,
    failureReason: then.failure_reason,
    updatedAt: new Date(then.updated_at),
  };
}

/** Refunded so far: the refunds that succeeded or are pending, as the native payment counts them. */
const refunded = (refunds: readonly RefundRow[]) =>
  refunds.reduce((sum, refund) => (refund.state === 'failed' ? sum : sum + refund.amount), 0n);

/** The payment as its event rendered it. */
export function paymentAsThen(now: CardPaymentDetail, then: PaymentSnapshot): CardPaymentDetail {
  const states = new Map(then.refunds.map((refund) => [refund.id, refund]));
  const refunds = now.refunds
    .filter((refund) => states.has(refund.id))
    .map((refund) => refundAsThen(refund, states.get(refund.id)));
  return {
    ...now,
    state: then.state,
    amountCaptured: CAPTURED.has(then.state) ? now.amountCaptured : 0n,
    amountRefunded: refunded(refunds),
    refunds,
    declineCode: then.decline_code,
    failureMessage: then.failure_message,
    threeDSecure: then.three_d_secure,
    disputeId: then.dispute,
    updatedAt: new Date(then.updated_at),
  };
}

/** The payment right after refund `then` was made: its refunds up to that one. */
export function paymentAtRefund(now: CardPaymentDetail, then: RefundSnapshot): CardPaymentDetail {
  const refunds = now.refunds
    .filter((refund) => refund.id <= then.id)
    .map((refund) => (refund.id === then.id ? refundAsThen(refund, then) : refund));
  const amountRefunded = refunded(refunds);
  return {
    ...now,
    state: amountRefunded >= now.amountCaptured ? 'refunded' : 'partially_refunded',
    amountRefunded,
    refunds,
  };
}

export function refundOf(payment: CardPaymentDetail, then: RefundSnapshot): RefundRow | null {
  const row = payment.refunds.find((refund) => refund.id === then.id);
  return row ? refundAsThen(row, then) : null;
}

/**
 * The intent when its attempt's event happened: that attempt its latest, canceled only by the
 * event that cancels it or by a cancellation before it.
 */
export function intentAsThen(
  now: StripePaymentIntentRow,
  payment: CardPaymentDetail,
  canceling: boolean,
  at: Date,
): StripePaymentIntentRow {
  const canceled = canceling || (now.canceledAt !== null && now.canceledAt < at);
  return {
    ...now,
    cardPaymentId: payment.id,
    canceledAt: canceled ? (now.canceledAt ?? at) : null,
    cancellationReason: canceled ? now.cancellationReason : null,
  };
}

/** Stripe's type of a dispute's event: opened, updated or closed. */
export function disputeType(types: readonly string[], then: DisputeSnapshot): string {
  if (types.length === 1) return types[0] as string;
  const opened = then.created_at === then.updated_at;
  return (opened ? types[0] : types[1]) as string;
}

/** A dispute in Stripe's shape (`charge.dispute.*`), as its event rendered it. */
export function renderDispute(row: DisputeRow, then: DisputeSnapshot, payment: CardPaymentDetail) {
  const evidence = then.evidence ?? {};
  return {
    id: row.id,
    object: 'dispute',
    amount: Number(row.amount),
    balance_transactions: [],
    charge: chargeId(row.cardPaymentId),
    created: seconds(row.createdAt),
    currency: row.currency.toLowerCase(),
    evidence,
    evidence_details: {
      due_by: seconds(then.evidence_due_by),
      has_evidence: Object.keys(evidence).length > 0,
      past_due: false,
      submission_count: then.evidence_submitted_at ? 1 : 0,
    },
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    network_reason_code: row.networkReasonCode,
    payment_intent: intentIdOf(payment),
    reason: row.reason,
    status: then.state,
  };
}
