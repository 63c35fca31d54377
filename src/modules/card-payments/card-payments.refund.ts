import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { type Change, change, commit, readAndCommit } from '../../db/commit.ts';
import { type EventInput, objectEvent } from '../../db/outbox.ts';
import { type StatefulKind, step } from '../../db/step.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import { transition } from '../../kernel/state-machine.ts';
import type { ServiceContext } from '../context.ts';
import { followAcquirer } from '../issuing/issuing.closed-loop.ts';
import { fundsAvailableAt } from '../ledger/ledger.funds.ts';
import { ledgerPostingsEffect } from '../ledger/ledger.post.ts';
import type { PostingInput } from '../ledger/ledger.rows.ts';
import { preparePosting } from '../ledger/ledger.statement.ts';
import { type JobRow, jobValues } from '../scheduler/scheduler.service.ts';
import {
  cardPaymentMachine,
  type RefundEvent,
  type RefundState,
  refundMachine,
} from './card-payments.machine.ts';
import { type CardPaymentRow, type RefundRow, refundResource } from './card-payments.resource.ts';
import { type CardPaymentDetail, cardPaymentEvent, loadPayment, refundsOf } from './card-payments.rows.ts';
import type { RefundInput } from './card-payments.schema.ts';
import { cardPayments, cardRefunds } from './card-payments.table.ts';

export const SETTLE_REFUND_JOB = 'refund.settle';

/** A refund's event (`refund.<state>`, on arriving in it), with the refund as it is now. */
function refundEvent(row: RefundRow): EventInput {
  return objectEvent(row, `refund.${row.state}`, refundResource(row));
}

/** Refunds as stateful objects, for step(). */
const refundKind: StatefulKind<RefundRow, RefundState, RefundEvent> = {
  machine: refundMachine,
  table: cardRefunds,
  event: refundEvent,
};

/**
 * Refunds a captured payment, in full or in part, several times up to what was captured. The
 * refund's money leaves the merchant's available balance when the refund is made — which may take
 * it below zero while the payment's own funds are still pending, as a real acquirer's balance
 * does; later debits that need available funds (payouts, transfers) are refused until it recovers.
 * Refund magic cards: …7726 stays pending a banking day, …5126 fails (nothing moves). One change,
 * written only if the payment is still as read (the group commit, when nothing else must happen in
 * its transaction); else read again under lock and written in a transaction (readAndCommit).
 */
export async function refundCardPayment(
  ctx: ServiceContext,
  id: string,
  input: RefundInput,
): Promise<{ payment: CardPaymentDetail; refund: RefundRow }> {
  return readAndCommit(ctx, {
    read: (exec, lock) => loadPayment(exec, ctx, id, lock),
    write: async (read, target, exec) => {
      const refunds = (await refundsOf(exec, [read.id])).get(read.id) ?? [];
      const planned = plannedRefund(read, newRefund(ctx, read, refundAmount(read, input), input));
      await commit(target, refundChange(ctx, read, refunds, planned));
      return {
        payment: { ...planned.payment, refunds: byId([...refunds, planned.refund]) },
        refund: planned.refund,
      };
    },
  });
}

/** The amount a refund asks for (the rest of the captured amount by default), once it may be refunded. */
function refundAmount(payment: CardPaymentRow, input: RefundInput): bigint {
  transition(cardPaymentMachine, payment.state, 'refund');
  refuseIfDisputed(payment);
  const remaining = payment.amountCaptured - payment.amountRefunded;
  return input.amount === undefined
    ? remaining
    : parseAmount(input.amount, payment.currency as CurrencyCode, { max: remaining });
}

/** A disputed payment is not refunded: the dispute decides where its money goes (409). */
function refuseIfDisputed(payment: CardPaymentRow): void {
  if (payment.disputeId !== null)
    throw new SandbankError('invalid_state', {
      message: `This card payment is disputed (${payment.disputeId}); it cannot be refunded.`,
    });
}

/** A refund's money: out of the merchant's available balance (which may go below zero) to the network. */
function refundPosting(payment: CardPaymentRow, refund: RefundRow): PostingInput {
  return {
    merchantId: payment.merchantId,
    currency: payment.currency as CurrencyCode,
    type: 'refund',
    source: { type: 'refund', id: refund.id },
    relatedId: payment.id,
    at: refund.createdAt,
    entries: [
      { account: 'available', amount: -refund.amount },
      { account: 'card_network', amount: refund.amount },
    ],
    allowNegative: ['available'],
  };
}

/** Refunds in the order a payment lists them (refundsOf's: by id). */
function byId(refunds: RefundRow[]): RefundRow[] {
  return refunds.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

interface PlannedRefund {
  /** The refund as it is made. */
  pending: RefundRow;
  /** The refund as the request leaves it: succeeded, still pending (…7726) or failed (…5126). */
  refund: RefundRow;
  /** The payment after it (unchanged by a refund that fails). */
  payment: CardPaymentRow;
}

/** A new refund of a payment, as it is made (pending), on the merchant's clock. */
function newRefund(
  ctx: ServiceContext,
  payment: CardPaymentRow,
  amount: bigint,
  input: RefundInput,
): RefundRow {
  const now = ctx.clock.now();
  return {
    id: newId('refund'),
    merchantId: payment.merchantId,
    cardPaymentId: payment.id,
    state: refundMachine.initial,
    amount,
    currency: payment.currency,
    reason: input.reason ?? null,
    failureReason: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** A refund as the rows it writes: the refund as made and as it ends, and the payment after it. */
function plannedRefund(payment: CardPaymentRow, pending: RefundRow): PlannedRefund {
  if (payment.refundBehavior === 'fails') {
    const state = transition(refundMachine, pending.state, 'fail');
    const failed = { ...pending, state, failureReason: 'The card issuer declined the refund.' };
    return { pending, refund: failed, payment };
  }
  const amountRefunded = payment.amountRefunded + pending.amount;
  return {
    pending,
    refund:
      payment.refundBehavior === 'pending_then_succeeds'
        ? pending
        : { ...pending, state: transition(refundMachine, pending.state, 'succeed') },
    payment: {
      ...payment,
      amountRefunded,
      state: amountRefunded === payment.amountCaptured ? 'refunded' : 'partially_refunded',
      updatedAt: pending.createdAt,
    },
  };
}

/**
 * The refund as one change, with the events in the order they happen: the refund made, the
 * payment's new state (when it changes), the issuer's side of the closed loop, the posting, then
 * the refund succeeded (or the job that settles it a banking day later); a refund that fails only
 * holds the payment as read and writes its two events.
 */
function refundChange(
  ctx: ServiceContext,
  read: CardPaymentRow,
  refunds: RefundRow[],
  planned: PlannedRefund,
): Change {
  const { pending, refund, payment } = planned;
  const moves = payment !== read;
  const work = change()
    .insert(cardRefunds, refund)
    .update({
      table: cardPayments,
      id: read.id,
      expect: { state: read.state, amountRefunded: read.amountRefunded, disputeId: read.disputeId },
      set: moves
        ? { state: payment.state, amountRefunded: payment.amountRefunded, updatedAt: payment.updatedAt }
        : {},
    })
    .event(refundEvent(pending));
  if (!moves) return work.event(refundEvent(refund));
  if (payment.state !== read.state)
    work.event(cardPaymentEvent(payment, ctx.publicUrl, byId([...refunds, pending])));
  const authorizationId = read.issuingAuthorizationId;
  if (authorizationId)
    work.within((tx) => followAcquirer(tx, ctx, authorizationId, { kind: 'refund', amount: pending.amount }));
  work.effect(ledgerPostingsEffect, preparePosting(refundPosting(read, pending)));
  if (refund.state !== 'pending') return work.event(refundEvent(refund));
  return work.job(
    jobValues({
      merchantId: read.merchantId,
      kind: SETTLE_REFUND_JOB,
      objectId: pending.id,
      dueAt: fundsAvailableAt(pending.createdAt, 1),
      payload: {},
      createdAt: pending.createdAt,
    }),
  );
}

/** The scheduled half of a pending refund (magic card …7726): it succeeds a banking day later. */
export async function settleRefundJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [refund] = await ctx.tx.select().from(cardRefunds).where(eq(cardRefunds.id, job.objectId));
  if (refund?.state !== 'pending') return;
  await step(ctx.tx, ctx, refundKind, refund, 'succeed');
}
