import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { type Change, change, commitUnlessStale } from '../../db/commit.ts';
import { type EventInput, objectEvent, recordEvent } from '../../db/outbox.ts';
import { type StatefulKind, step } from '../../db/step.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import { transition } from '../../kernel/state-machine.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { followAcquirer } from '../issuing/issuing.closed-loop.ts';
import { fundsAvailableAt } from '../ledger/ledger.funds.ts';
import { ledgerPostingsEffect, post } from '../ledger/ledger.post.ts';
import type { PostingInput } from '../ledger/ledger.rows.ts';
import { preparePosting } from '../ledger/ledger.statement.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import {
  cardPaymentMachine,
  type RefundEvent,
  type RefundState,
  refundMachine,
} from './card-payments.machine.ts';
import { type CardPaymentRow, type RefundRow, refundResource } from './card-payments.resource.ts';
import {
  type CardPaymentDetail,
  cardPaymentEvent,
  loadPayment,
  refundsOf,
  withRefunds,
} from './card-payments.rows.ts';
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
 * Refund magic cards: …7726 stays pending a banking day, …5126 fails (nothing moves).
 */
export async function refundCardPayment(
  ctx: ServiceContext,
  id: string,
  input: RefundInput,
): Promise<{ payment: CardPaymentDetail; refund: RefundRow }> {
  const read = ctx.tx ? null : await loadPayment(ctx.db, ctx, id);
  if (read && read.refundBehavior === 'succeeds' && read.issuingAuthorizationId === null) {
    // The common case, a refund that succeeds at once on a card of no issuer here: one change (the
    // group commit), written only if the payment is still as read; else the transaction below.
    const refunds = (await refundsOf(ctx.db, [read.id])).get(read.id) ?? [];
    const planned = plannedRefund(read, newRefund(ctx, read, refundAmount(read, input), input));
    if (await commitUnlessStale(ctx, refundChange(ctx, read, refunds, planned)))
      return {
        payment: { ...planned.payment, refunds: byId([...refunds, planned.succeeded]) },
        refund: planned.succeeded,
      };
  }
  const result = await inContextTx(ctx, async (tx) => {
    const current = await loadPayment(tx, ctx, id);
    const amount = refundAmount(current, input);
    const pending = newRefund(ctx, current, amount, input);
    const now = pending.createdAt;
    await tx.insert(cardRefunds).values(pending);
    await recordEvent(tx, refundEvent(pending));
    if (current.refundBehavior === 'fails') {
      const failed = await step(tx, ctx, refundKind, pending, 'fail', {
        failureReason: 'The card issuer declined the refund.',
      });
      return { payment: current, refund: failed };
    }
    const payment = await takeRefund(tx, ctx, current, amount);
    if (current.issuingAuthorizationId)
      await followAcquirer(tx, ctx, current.issuingAuthorizationId, { kind: 'refund', amount });
    await post(tx, refundPosting(current, pending));
    if (current.refundBehavior === 'pending_then_succeeds') {
      await scheduleJob(tx, {
        merchantId: ctx.merchant.id,
        kind: SETTLE_REFUND_JOB,
        objectId: pending.id,
        dueAt: fundsAvailableAt(now, 1),
        payload: {},
        createdAt: now,
      });
      return { payment, refund: pending };
    }
    return { payment, refund: await step(tx, ctx, refundKind, pending, 'succeed') };
  });
  return { payment: await withRefunds(dbOf(ctx), result.payment), refund: result.refund };
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
  pending: RefundRow;
  succeeded: RefundRow;
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

/** A refund that succeeds at once, as the rows it writes: the refund as made and as it ends, and the payment after it. */
function plannedRefund(payment: CardPaymentRow, pending: RefundRow): PlannedRefund {
  const now = pending.createdAt;
  const amountRefunded = payment.amountRefunded + pending.amount;
  return {
    pending,
    succeeded: { ...pending, state: transition(refundMachine, pending.state, 'succeed') },
    payment: {
      ...payment,
      amountRefunded,
      state: amountRefunded === payment.amountCaptured ? 'refunded' : 'partially_refunded',
      updatedAt: now,
    },
  };
}

/**
 * The refund as one change, with the events in the order the transaction path writes them: the
 * refund made, the payment's new state (when it changes), the posting, the refund succeeded.
 */
function refundChange(
  ctx: ServiceContext,
  read: CardPaymentRow,
  refunds: RefundRow[],
  planned: PlannedRefund,
): Change {
  const work = change()
    .insert(cardRefunds, planned.succeeded)
    .update({
      table: cardPayments,
      id: read.id,
      expect: { state: read.state, amountRefunded: read.amountRefunded, disputeId: read.disputeId },
      set: {
        state: planned.payment.state,
        amountRefunded: planned.payment.amountRefunded,
        updatedAt: planned.payment.updatedAt,
      },
    })
    .event(refundEvent(planned.pending));
  if (planned.payment.state !== read.state)
    work.event(cardPaymentEvent(planned.payment, ctx.publicUrl, byId([...refunds, planned.pending])));
  return work
    .effect(ledgerPostingsEffect, preparePosting(refundPosting(read, planned.pending)))
    .event(refundEvent(planned.succeeded));
}

/**
 * Adds a refund to the payment's refunded amount with one guarded UPDATE, so concurrent refunds can
 * never together exceed the captured amount; the state follows (partially_refunded or refunded).
 */
async function takeRefund(
  tx: Tx,
  ctx: ServiceContext,
  payment: CardPaymentRow,
  amount: bigint,
): Promise<CardPaymentRow> {
  const total = sql`${cardPayments.amountRefunded} + ${amount.toString()}::bigint`;
  const [updated] = await tx
    .update(cardPayments)
    .set({
      amountRefunded: total,
      state: sql`CASE WHEN ${total} = ${cardPayments.amountCaptured} THEN 'refunded' ELSE 'partially_refunded' END`,
      updatedAt: ctx.clock.now(),
    })
    .where(
      and(
        eq(cardPayments.id, payment.id),
        inArray(cardPayments.state, [...cardPaymentMachine.transitions.refund.from]),
        isNull(cardPayments.disputeId),
        sql`${total} <= ${cardPayments.amountCaptured}`,
      ),
    )
    .returning();
  if (!updated) {
    const current = await loadPayment(tx, ctx, payment.id);
    transition(cardPaymentMachine, current.state, 'refund');
    refuseIfDisputed(current);
    throw new SandbankError('amount_invalid', {
      param: 'amount',
      message: 'The refunds would exceed the captured amount.',
    });
  }
  if (updated.state !== payment.state) {
    const refunds = (await refundsOf(tx, [updated.id])).get(updated.id) ?? [];
    await recordEvent(tx, cardPaymentEvent(updated, ctx.publicUrl, refunds));
  }
  return updated;
}

/** The scheduled half of a pending refund (magic card …7726): it succeeds a banking day later. */
export async function settleRefundJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [refund] = await ctx.tx.select().from(cardRefunds).where(eq(cardRefunds.id, job.objectId));
  if (refund?.state !== 'pending') return;
  await step(ctx.tx, ctx, refundKind, refund, 'succeed');
}
