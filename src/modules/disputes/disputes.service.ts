import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { type EventInput, objectEvent, recordEvent } from '../../db/outbox.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { type StatefulKind, step } from '../../db/step.ts';
import { addSeconds } from '../../kernel/clock.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { invalidState } from '../../kernel/state-machine.ts';
import type { CardPaymentRow } from '../card-payments/card-payments.resource.ts';
import { cardPaymentEvent, loadPayment, refundsOf } from '../card-payments/card-payments.rows.ts';
import { cardPayments } from '../card-payments/card-payments.table.ts';
import type { DisputeBehavior } from '../cards/magic-cards.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { post } from '../ledger/ledger.post.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import { type DisputeEvent, type DisputeState, disputeMachine } from './disputes.machine.ts';
import { type DisputeRow, disputeResource, type OutcomeReason } from './disputes.resource.ts';
import type {
  DisputeReason,
  ResolveDisputeInput,
  SimulateDisputeInput,
  UpdateDisputeInput,
} from './disputes.schema.ts';
import { disputes } from './disputes.table.ts';

/** The dispute fee, debited with the disputed amount when a chargeback opens: 15.00 USD (returned when won). */
export const DISPUTE_FEE_MINOR = 1500n;
/** Evidence is due 7 days (clock time) after a dispute opens, or after an inquiry is escalated. */
export const EVIDENCE_DUE_SECONDS = 7 * 86_400;
/** The issuer reviews submitted evidence for 2 days (clock time). */
export const REVIEW_SECONDS = 2 * 86_400;

export const DISPUTE_DUE_JOB = 'dispute.evidence_due';
export const DISPUTE_REVIEW_JOB = 'dispute.review';

/** The evidence text that decides a review in this sandbox (as Stripe's test mode). */
export const WINNING_EVIDENCE = 'winning_evidence';
export const LOSING_EVIDENCE = 'losing_evidence';

/** The payment states a dispute may be opened in: captured, with something not yet refunded. */
const DISPUTABLE: readonly CardPaymentRow['state'][] = ['captured', 'partially_refunded'];

export function disputeEvent(row: DisputeRow): EventInput {
  return objectEvent(row, `dispute.${row.state}`, disputeResource(row));
}

const disputeKind: StatefulKind<DisputeRow, DisputeState, DisputeEvent> = {
  machine: disputeMachine,
  table: disputes,
  event: disputeEvent,
};

// ---------------------------------------------------------------------------------------------
// Reading

export async function loadDispute(exec: Executor, ctx: ServiceContext, id: string): Promise<DisputeRow> {
  const [row] = id.includes('\u0000')
    ? []
    : await exec
        .select()
        .from(disputes)
        .where(and(eq(disputes.id, id), eq(disputes.merchantId, ctx.merchant.id)));
  if (!row) throw new SandbankError('resource_not_found', { message: `No dispute ${id.slice(0, 60)}.` });
  return row;
}

export function getDispute(ctx: ServiceContext, id: string): Promise<DisputeRow> {
  return loadDispute(dbOf(ctx), ctx, id);
}

/** The merchant's disputes among `ids` (GraphQL's nodes(ids:)). */
export function disputesByIds(ctx: ServiceContext, ids: string[]): Promise<DisputeRow[]> {
  return merchantRowsByIds<DisputeRow>(ctx, disputes, ids);
}

/** The merchant's disputes, newest first; `card_payment` narrows them to one payment's. */
export function listDisputes(
  ctx: ServiceContext,
  query: ListQuery & { card_payment?: string | undefined },
): Promise<Page<DisputeRow>> {
  return merchantPage<DisputeRow>(ctx, disputes, query, [
    query.card_payment ? eq(disputes.cardPaymentId, query.card_payment) : undefined,
  ]);
}

// ---------------------------------------------------------------------------------------------
// Money

/** The chargeback's debit: the amount, then the fee, out of available (it may go below zero) to the network. */
async function postDebit(tx: Tx, ctx: ServiceContext, row: DisputeRow, fee: bigint): Promise<void> {
  const common = {
    merchantId: row.merchantId,
    currency: row.currency as CurrencyCode,
    source: { type: 'dispute', id: row.id },
    relatedId: row.cardPaymentId,
    at: ctx.clock.now(),
    allowNegative: ['available'] as const,
  };
  await post(tx, {
    ...common,
    type: 'dispute',
    description: `Chargeback of ${row.cardPaymentId}`,
    entries: [
      { account: 'available', amount: -row.amount },
      { account: 'card_network', amount: row.amount },
    ],
  });
  if (fee > 0n)
    await post(tx, {
      ...common,
      type: 'dispute_fee',
      description: 'Dispute fee',
      entries: [
        { account: 'available', amount: -fee },
        { account: 'card_network', amount: fee },
      ],
    });
}

/** A won dispute: the disputed amount and the fee come back to available (as Stripe's test mode credits both). */
async function postWon(tx: Tx, ctx: ServiceContext, row: DisputeRow): Promise<void> {
  const common = {
    merchantId: row.merchantId,
    currency: row.currency as CurrencyCode,
    source: { type: 'dispute', id: row.id },
    relatedId: row.cardPaymentId,
    at: ctx.clock.now(),
  };
  await post(tx, {
    ...common,
    type: 'dispute_won',
    description: `Dispute won: ${row.cardPaymentId}`,
    entries: [
      { account: 'card_network', amount: -row.amount },
      { account: 'available', amount: row.amount },
    ],
  });
  if (row.fee > 0n)
    await post(tx, {
      ...common,
      type: 'dispute_fee_returned',
      description: 'Dispute fee returned',
      entries: [
        { account: 'card_network', amount: -row.fee },
        { account: 'available', amount: row.fee },
      ],
    });
}

async function scheduleDue(tx: Tx, ctx: ServiceContext, row: DisputeRow): Promise<void> {
  await scheduleJob(tx, {
    merchantId: row.merchantId,
    kind: DISPUTE_DUE_JOB,
    objectId: row.id,
    dueAt: row.evidenceDueBy,
    createdAt: ctx.clock.now(),
  });
}

// ---------------------------------------------------------------------------------------------
// Opening

export interface OpenInput {
  reason: DisputeReason;
  amount?: bigint;
  inquiry: boolean;
}

/** Refused unless the payment is captured, not refunded in full, and not disputed yet. */
function checkDisputable(payment: CardPaymentRow): void {
  if (payment.disputeId !== null)
    throw new SandbankError('invalid_state', {
      message: `This card payment is already disputed (${payment.disputeId}).`,
    });
  if (!DISPUTABLE.includes(payment.state))
    throw new SandbankError('invalid_state', {
      message: `A dispute needs a captured payment with something not refunded; this one is ${payment.state}.`,
    });
}

/**
 * Opens a dispute on a captured payment in the caller's transaction: the payment is marked (one
 * guarded UPDATE, so two openings race to one dispute), the dispute is written with its event and
 * its due-date job, and a chargeback's amount and fee leave the merchant's available balance.
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
  const marked = await tx
    .update(cardPayments)
    .set({ disputeId: id, updatedAt: now })
    .where(
      and(
        eq(cardPayments.id, payment.id),
        isNull(cardPayments.disputeId),
        inArray(cardPayments.state, [...DISPUTABLE]),
        sql`${cardPayments.amountCaptured} - ${cardPayments.amountRefunded} >= ${amount.toString()}::bigint`,
      ),
    )
    .returning({ id: cardPayments.id });
  if (marked.length === 0) {
    checkDisputable(await loadPayment(tx, ctx, payment.id));
    throw new SandbankError('amount_invalid', {
      param: 'amount',
      message: 'The dispute would exceed what is captured and not refunded.',
    });
  }
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
  await tx.insert(disputes).values(row);
  await recordEvent(tx, disputeEvent(row));
  if (!input.inquiry) await postDebit(tx, ctx, row, row.fee);
  await scheduleDue(tx, ctx, row);
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

// ---------------------------------------------------------------------------------------------
// Steps

/** An inquiry becomes a chargeback: needs_response with a new due date, the amount and fee debited. */
async function escalate(tx: Tx, ctx: ServiceContext, row: DisputeRow): Promise<DisputeRow> {
  const now = ctx.clock.now();
  const moved = await step(tx, ctx, disputeKind, row, 'escalate', {
    fee: DISPUTE_FEE_MINOR,
    evidenceDueBy: addSeconds(now, EVIDENCE_DUE_SECONDS),
    evidenceSubmittedAt: null,
    reviewEndsAt: null,
  });
  await postDebit(tx, ctx, moved, moved.fee);
  await scheduleDue(tx, ctx, moved);
  return moved;
}

async function win(tx: Tx, ctx: ServiceContext, row: DisputeRow, reason: OutcomeReason) {
  const moved = await step(tx, ctx, disputeKind, row, 'win', { outcomeReason: reason, reviewEndsAt: null });
  await postWon(tx, ctx, moved);
  return moved;
}

function lose(tx: Tx, ctx: ServiceContext, row: DisputeRow, reason: OutcomeReason) {
  return step(tx, ctx, disputeKind, row, 'lose', { outcomeReason: reason, reviewEndsAt: null });
}

function closeWarning(tx: Tx, ctx: ServiceContext, row: DisputeRow, reason: OutcomeReason) {
  return step(tx, ctx, disputeKind, row, 'close_warning', { outcomeReason: reason, reviewEndsAt: null });
}

/**
 * POST /v1/disputes/{id}: saves evidence (merged into what was saved) and, unless `submit: false`,
 * submits it: the dispute is under review (warning_under_review for an inquiry) until the issuer
 * decides, two days later.
 */
export async function updateDispute(
  ctx: ServiceContext,
  id: string,
  input: UpdateDisputeInput,
): Promise<DisputeRow> {
  return inContextTx(ctx, async (tx) => {
    const row = await loadDispute(tx, ctx, id);
    const submit = input.submit ?? true;
    const event: DisputeEvent = row.state === 'warning_needs_response' ? 'submit_warning' : 'submit';
    if (row.state !== 'needs_response' && row.state !== 'warning_needs_response')
      throw invalidState(disputeMachine, row.state, event);
    const evidence = { ...row.evidence, ...definedOnly(input.evidence ?? {}) };
    const now = ctx.clock.now();
    if (!submit) {
      const [saved] = await tx
        .update(disputes)
        .set({ evidence, updatedAt: now })
        .where(and(eq(disputes.id, row.id), eq(disputes.state, row.state)))
        .returning();
      if (!saved) throw invalidState(disputeMachine, (await loadDispute(tx, ctx, id)).state, event);
      return saved;
    }
    if (Object.values(evidence).every((text) => text.trim() === ''))
      throw new SandbankError('parameter_missing', {
        param: 'evidence',
        message: 'Submitting needs some evidence: at least one evidence field with text.',
      });
    const reviewEndsAt = addSeconds(now, REVIEW_SECONDS);
    const moved = await step(tx, ctx, disputeKind, row, event, {
      evidence,
      evidenceSubmittedAt: now,
      reviewEndsAt,
    });
    await scheduleJob(tx, {
      merchantId: row.merchantId,
      kind: DISPUTE_REVIEW_JOB,
      objectId: row.id,
      dueAt: reviewEndsAt,
      createdAt: now,
    });
    return moved;
  });
}

function definedOnly(record: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/**
 * POST /v1/disputes/{id}/close: the merchant accepts the dispute without contesting it — a
 * chargeback is lost (its debit stands), an inquiry is closed (warning_closed).
 */
export async function closeDispute(ctx: ServiceContext, id: string): Promise<DisputeRow> {
  return inContextTx(ctx, async (tx) => {
    const row = await loadDispute(tx, ctx, id);
    if (row.state === 'warning_needs_response') return closeWarning(tx, ctx, row, 'accepted');
    if (row.state === 'needs_response') return lose(tx, ctx, row, 'accepted');
    throw new SandbankError('invalid_state', {
      message: `A dispute can be closed (accepted) while it needs a response; this one is ${row.state}.`,
    });
  });
}

/** The decision on a dispute: won or lost (for an inquiry: closed, or escalated to a chargeback). */
async function decide(
  tx: Tx,
  ctx: ServiceContext,
  row: DisputeRow,
  outcome: 'won' | 'lost',
  reason: OutcomeReason,
): Promise<DisputeRow> {
  if (row.state === 'warning_needs_response' || row.state === 'warning_under_review')
    return outcome === 'won' ? closeWarning(tx, ctx, row, reason) : escalate(tx, ctx, row);
  return outcome === 'won' ? win(tx, ctx, row, reason) : lose(tx, ctx, row, reason);
}

/** POST /v1/simulate/disputes/{id}/resolve: the issuer decides now, whatever the evidence. */
export async function resolveDispute(
  ctx: ServiceContext,
  id: string,
  input: ResolveDisputeInput,
): Promise<DisputeRow> {
  return inContextTx(ctx, async (tx) => {
    const row = await loadDispute(tx, ctx, id);
    if (disputeMachine.final.includes(row.state))
      throw invalidState(disputeMachine, row.state, input.outcome === 'won' ? 'win' : 'lose');
    return decide(tx, ctx, row, input.outcome, 'simulated');
  });
}

// ---------------------------------------------------------------------------------------------
// Scheduled work

/** The evidence due date passed: a chargeback with nothing submitted is lost, an inquiry escalates. */
export async function disputeDueJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [row] = await ctx.tx.select().from(disputes).where(eq(disputes.id, job.objectId));
  if (!row || row.evidenceDueBy > ctx.clock.now()) return; // a later due date has its own job
  if (row.state === 'needs_response') await lose(ctx.tx, ctx, row, 'no_response');
  else if (row.state === 'warning_needs_response') await escalate(ctx.tx, ctx, row);
}

/** What the submitted evidence decides: `losing_evidence` loses, `winning_evidence` wins, else no decision. */
export function evidenceOutcome(evidence: Record<string, string>): 'won' | 'lost' | null {
  const texts = Object.values(evidence);
  if (texts.some((text) => text.includes(LOSING_EVIDENCE))) return 'lost';
  if (texts.some((text) => text.includes(WINNING_EVIDENCE))) return 'won';
  return null;
}

/** The issuer's review ends: the evidence decides (winning_evidence / losing_evidence), or it stays under review. */
export async function disputeReviewJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [row] = await ctx.tx.select().from(disputes).where(eq(disputes.id, job.objectId));
  if (!row || (row.state !== 'under_review' && row.state !== 'warning_under_review')) return;
  if (row.reviewEndsAt === null || row.reviewEndsAt > ctx.clock.now()) return;
  const outcome = evidenceOutcome(row.evidence);
  if (outcome) await decide(ctx.tx, ctx, row, outcome, 'evidence');
}

/** A magic card's capture, a day on: its dispute opens, or its early fraud warning arrives. */
export async function magicDisputeJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [payment] = await ctx.tx.select().from(cardPayments).where(eq(cardPayments.id, job.objectId));
  if (!payment) return;
  const behavior = (job.payload.behavior ?? payment.disputeBehavior) as DisputeBehavior | null;
  if (behavior === 'early_fraud_warning') {
    if (payment.earlyFraudWarningAt !== null) return;
    const now = ctx.clock.now();
    const [warned] = await ctx.tx
      .update(cardPayments)
      .set({ earlyFraudWarningAt: now, updatedAt: now })
      .where(and(eq(cardPayments.id, payment.id), isNull(cardPayments.earlyFraudWarningAt)))
      .returning();
    if (!warned) return;
    const refunds = (await refundsOf(ctx.tx, [warned.id])).get(warned.id) ?? [];
    await recordEvent(ctx.tx, {
      ...cardPaymentEvent(warned, ctx.publicUrl, refunds),
      type: 'card_payment.early_fraud_warning',
    });
    return;
  }
  // Refunded in full, or disputed meanwhile: the cardholder has nothing left to dispute.
  if (behavior === null || payment.disputeId !== null || !DISPUTABLE.includes(payment.state)) return;
  await openDispute(ctx.tx, ctx, payment, {
    reason: behavior === 'inquiry' ? 'general' : behavior,
    inquiry: behavior === 'inquiry',
  });
}
