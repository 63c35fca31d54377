import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { type Change, change } from '../../db/commit.ts';
import { type EventInput, objectEvent } from '../../db/outbox.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { transition } from '../../kernel/state-machine.ts';
import type { ServiceContext } from '../context.ts';
import { type DisputeEvent, disputeMachine } from './disputes.machine.ts';
import { type DisputeRow, disputeResource } from './disputes.resource.ts';
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

/** A dispute's event (`dispute.<state>`, on arriving in it), with the dispute as it is now. */
export function disputeEvent(row: DisputeRow): EventInput {
  return objectEvent(row, `dispute.${row.state}`, disputeResource(row));
}

/** One dispute of the context's merchant (404 when it has none by this id); `lock`: FOR UPDATE. */
export async function loadDispute(
  exec: Executor,
  ctx: ServiceContext,
  id: string,
  lock = false,
): Promise<DisputeRow> {
  const query = exec
    .select()
    .from(disputes)
    .where(and(eq(disputes.id, id), eq(disputes.merchantId, ctx.merchant.id)));
  const [row] = id.includes('\u0000') ? [] : lock ? await query.for('update') : await query;
  if (!row) throw new SandbankError('resource_not_found', { message: `No dispute ${id.slice(0, 60)}.` });
  return row;
}

/** The dispute a job names, locked (null when it is gone). */
export async function lockDisputeOfJob(exec: Executor, id: string): Promise<DisputeRow | null> {
  const [row] = await exec.select().from(disputes).where(eq(disputes.id, id)).for('update');
  return row ?? null;
}

/** The merchant's disputes among `ids` (GraphQL's nodes(ids:)). */
export function disputesByIds(ctx: ServiceContext, ids: string[]): Promise<DisputeRow[]> {
  return merchantRowsByIds<DisputeRow>(ctx, disputes, ids);
}

/** Every dispute of one of the merchant's card payments, oldest first (a payment has a few at most). */
export function disputesOfPayment(
  exec: Executor,
  merchantId: string,
  paymentId: string,
): Promise<DisputeRow[]> {
  return exec
    .select()
    .from(disputes)
    .where(and(eq(disputes.merchantId, merchantId), eq(disputes.cardPaymentId, paymentId)))
    .orderBy(asc(disputes.createdAt), asc(disputes.id));
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

/** A dispute's step as a change, and the dispute as it leaves it. */
export interface DisputeStep {
  moved: DisputeRow;
  work: Change;
}

/**
 * One step of a dispute read earlier, as a change: checked against the machine (409 invalid_state),
 * then the row's update, written only if the dispute is still as read (its state and its last
 * change: a change refused with StaleRow otherwise), and its `dispute.<state>` event.
 */
export function stepDispute(
  ctx: ServiceContext,
  row: DisputeRow,
  event: DisputeEvent,
  values: Partial<DisputeRow> = {},
): DisputeStep {
  const state = transition(disputeMachine, row.state, event);
  const set = { ...values, state, updatedAt: ctx.clock.now() };
  const moved: DisputeRow = { ...row, ...set };
  const expect = { state: row.state, updatedAt: row.updatedAt };
  const work = change().update({ table: disputes, id: row.id, expect, set }).event(disputeEvent(moved));
  return { moved, work };
}
