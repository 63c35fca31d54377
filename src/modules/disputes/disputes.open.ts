import type { Tx } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import { addSeconds } from '../../kernel/clock.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import {
  checkDisputable,
  isDisputable,
  markDisputed,
  paymentOfJob,
  warnEarlyFraud,
} from '../card-payments/card-payments.disputes.ts';
import type { CardPaymentRow } from '../card-payments/card-payments.resource.ts';
import { loadPayment } from '../card-payments/card-payments.rows.ts';
import type { DisputeBehavior } from '../cards/magic-cards.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
import { withDebit, withDueJob } from './disputes.money.ts';
import type { DisputeRow } from './disputes.resource.ts';
import { DISPUTE_FEE_MINOR, disputeEvent, EVIDENCE_DUE_SECONDS } from './disputes.rows.ts';
import type { DisputeReason, SimulateDisputeInput } from './disputes.schema.ts';
import { disputes } from './disputes.table.ts';

/** Opening a dispute: by the simulation endpoint, or a magic card's a day after its capture. */

export interface OpenInput {
  reason: DisputeReason;
  amount?: bigint;
  inquiry: boolean;
}

/**
 * Opens a dispute on a captured payment in the caller's transaction: the payment is marked first
 * (card payments' markDisputed: one guarded UPDATE, so two openings race to one dispute), then one
 * change writes the dispute with its event, a chargeback's debit of the amount and fee out of the
 * merchant's available balance, and the due-date job.
 */
export async function openDispute(
  tx: Tx,
  ctx: ServiceContext,
  payment: CardPaymentRow,
  input: OpenInput,
): Promise<DisputeRow> {
  checkDisputable(payment);
  const remaining = payment.amountCaptured - payment.amountRefunded;
  const amount = input.amount ?? remaining;
  const now = ctx.clock.now();
  const id = newId('dispute');
  await markDisputed(tx, ctx, payment, id, amount);
  const row: DisputeRow = {
    id,
    merchantId: payment.merchantId,
    cardPaymentId: payment.id,
    state: input.inquiry ? 'warning_needs_response' : 'needs_response',
    amount,
    currency: payment.currency,
    reason: input.reason,
    inquiry: input.inquiry,
    fee: input.inquiry ? 0n : DISPUTE_FEE_MINOR,
    evidence: {},
    evidenceSubmittedAt: null,
    evidenceDueBy: addSeconds(now, EVIDENCE_DUE_SECONDS),
    reviewEndsAt: null,
    outcomeReason: null,
    createdAt: now,
    updatedAt: now,
  };
  const work = change().insert(disputes, row).event(disputeEvent(row));
  if (!input.inquiry) withDebit(work, ctx, row, row.fee);
  await commit({ db: ctx.db, tx }, withDueJob(work, ctx, row));
  return row;
}

/** POST /v1/simulate/card_payments/{id}/dispute: the cardholder disputes a captured payment. */
export async function simulateDispute(
  ctx: ServiceContext,
  paymentId: string,
  input: SimulateDisputeInput,
): Promise<DisputeRow> {
  return inContextTx(ctx, async (tx) => {
    const payment = await loadPayment(tx, ctx, paymentId);
    checkDisputable(payment);
    const remaining = payment.amountCaptured - payment.amountRefunded;
    const amount =
      input.amount === undefined
        ? remaining
        : parseAmount(input.amount, payment.currency as CurrencyCode, { max: remaining });
    return openDispute(tx, ctx, payment, {
      reason: input.reason ?? 'general',
      amount,
      inquiry: input.inquiry ?? false,
    });
  });
}

/** A magic card's capture, a day on: its dispute opens, or its early fraud warning arrives. */
export async function magicDisputeJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const payment = await paymentOfJob(ctx.tx, job.objectId);
  if (!payment) return;
  const behavior = (job.payload.behavior ?? payment.disputeBehavior) as DisputeBehavior | null;
  if (behavior === 'early_fraud_warning') return warnEarlyFraud(ctx.tx, ctx, payment.id);
  // Refunded in full, or disputed meanwhile: the cardholder has nothing left to dispute.
  if (behavior === null || !isDisputable(payment)) return;
  await openDispute(ctx.tx, ctx, payment, {
    reason: behavior === 'inquiry' ? 'general' : behavior,
    inquiry: behavior === 'inquiry',
  });
}
