import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import { nyDateOf } from '../../kernel/calendar.ts';
import { addSeconds } from '../../kernel/clock.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import {
  checkDisputable,
  markDisputed,
  paymentOfJob,
  undisputedAmount,
  warnEarlyFraud,
} from '../card-payments/card-payments.disputes.ts';
import type { CardPaymentRow } from '../card-payments/card-payments.resource.ts';
import { loadPayment } from '../card-payments/card-payments.rows.ts';
import type { DisputeBehavior } from '../cards/magic-cards.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
import { withDebit, withDueJob } from './disputes.money.ts';
import {
  checkDisputeWindow,
  chooseReasonCode,
  multipleDisputeRefusal,
  networkOf,
} from './disputes.networks.ts';
import type { DisputeRow } from './disputes.resource.ts';
import { DISPUTE_FEE_MINOR, disputeEvent, EVIDENCE_DUE_SECONDS } from './disputes.rows.ts';
import type { DisputeReason, SimulateDisputeInput } from './disputes.schema.ts';
import { disputes } from './disputes.table.ts';

/**
 * Opening a dispute: by the simulation endpoint, or a magic card's a day after its capture. The
 * network's rules decide first (disputes.networks.ts): the reason code, the cardholder's window,
 * and whether the payment's earlier disputes allow another.
 */

export interface OpenInput {
  reason?: DisputeReason | undefined;
  /** The network's reason code (default: the one the reason implies on the payment's network). */
  code?: string | undefined;
  amount?: bigint | undefined;
  inquiry: boolean;
}

/** The payment's earlier disputes, as the network's one-or-many rule reads them. */
function earlierDisputes(tx: Tx, paymentId: string) {
  return tx
    .select({ id: disputes.id, networkReasonCode: disputes.networkReasonCode })
    .from(disputes)
    .where(eq(disputes.cardPaymentId, paymentId));
}

/** When the payment was processed: its capture (rows captured before the column existed: their authorization). */
const processedAt = (payment: CardPaymentRow): Date =>
  payment.capturedAt ?? payment.authorizedAt ?? payment.createdAt;

/**
 * Opens a dispute on a captured payment in the caller's transaction. The payment is locked and
 * read again, so racing openings and refunds are decided one after the other: disputable (409
 * invalid_state), the reason code (400 dispute_reason_code_invalid), its window (409
 * dispute_window_closed with the deadline), the network's rule on more than one dispute (409
 * invalid_state); then markDisputed, and one change writes the dispute with its event, a
 * chargeback's debit of the amount and fee out of the merchant's available balance, and the
 * due-date job.
 */
export async function openDispute(
  tx: Tx,
  ctx: ServiceContext,
  paymentId: string,
  input: OpenInput,
): Promise<DisputeRow> {
  const payment = await paymentOfJob(tx, paymentId, true);
  if (!payment) throw new SandbankError('resource_not_found', { message: `No card payment ${paymentId}.` });
  checkDisputable(payment);
  const now = ctx.clock.now();
  const network = networkOf(payment.brand);
  const { rule, reason } = chooseReasonCode(network, input, nyDateOf(now));
  checkDisputeWindow(rule, processedAt(payment), now);
  const refusal = multipleDisputeRefusal(network, rule, await earlierDisputes(tx, payment.id));
  if (refusal) throw new SandbankError('invalid_state', { message: refusal });
  const amount = input.amount ?? undisputedAmount(payment);
  const id = newId('dispute');
  await markDisputed(tx, ctx, payment, id, amount);
  const row: DisputeRow = {
    id,
    merchantId: payment.merchantId,
    cardPaymentId: payment.id,
    state: input.inquiry ? 'warning_needs_response' : 'needs_response',
    amount,
    currency: payment.currency,
    reason,
    network,
    networkReasonCode: rule.code,
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
    const amount =
      input.amount === undefined
        ? undefined
        : parseAmount(input.amount, payment.currency as CurrencyCode, { max: undisputedAmount(payment) });
    return openDispute(tx, ctx, payment.id, {
      reason: input.reason,
      code: input.network_reason_code,
      amount,
      inquiry: input.inquiry ?? false,
    });
  });
}

/** What a magic card's behavior opens: one dispute, or (…0079) two, each for part of the payment. */
function magicOpenings(behavior: DisputeBehavior, payment: CardPaymentRow): OpenInput[] {
  if (behavior === 'inquiry') return [{ reason: 'general', inquiry: true }];
  if (behavior !== 'multiple') return [{ reason: behavior as DisputeReason, inquiry: false }];
  const half = undisputedAmount(payment) / 2n;
  // The second under a code the network lets follow an earlier dispute (Visa: 10.5).
  const second: OpenInput = {
    reason: 'fraudulent',
    code: networkOf(payment.brand) === 'visa' ? '10.5' : undefined,
    inquiry: false,
  };
  if (half === 0n) return [{ reason: 'product_not_received', inquiry: false }];
  return [{ reason: 'product_not_received', amount: half, inquiry: false }, second];
}

/** A magic card's capture, a day on: its dispute(s) open, or its early fraud warning arrives. */
export async function magicDisputeJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const payment = await paymentOfJob(ctx.tx, job.objectId, true);
  if (!payment) return;
  const behavior = (job.payload.behavior ?? payment.disputeBehavior) as DisputeBehavior | null;
  if (behavior === 'early_fraud_warning') return warnEarlyFraud(ctx.tx, ctx, payment.id);
  if (behavior === null) return;
  for (const opening of magicOpenings(behavior, payment)) {
    try {
      // In a savepoint of its own: a refusal undoes whatever the opening wrote.
      await ctx.tx.transaction((savepoint) => openDispute(savepoint, ctx, payment.id, opening));
    } catch (error) {
      // Refunded in full or disputed meanwhile: the cardholder has nothing left to dispute, or the
      // network allows no further dispute.
      if (error instanceof SandbankError && error.code === 'invalid_state') return;
      throw error;
    }
  }
}
