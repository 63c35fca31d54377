import type { Tx } from '../../db/client.ts';
import { type CommitTarget, change, commit, readAndCommit } from '../../db/commit.ts';
import { jsonbOrdered } from '../../db/json-records.ts';
import { addSeconds } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { invalidState } from '../../kernel/state-machine.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { type JobRow, jobValues } from '../scheduler/scheduler.service.ts';
import type { DisputeEvent } from './disputes.machine.ts';
import { disputeMachine } from './disputes.machine.ts';
import { withDebit, withDueJob, withWon } from './disputes.money.ts';
import type { DisputeRow, OutcomeReason } from './disputes.resource.ts';
import {
  DISPUTE_FEE_MINOR,
  DISPUTE_REVIEW_JOB,
  type DisputeStep,
  EVIDENCE_DUE_SECONDS,
  LOSING_EVIDENCE,
  loadDispute,
  lockDisputeOfJob,
  REVIEW_SECONDS,
  stepDispute,
  WINNING_EVIDENCE,
} from './disputes.rows.ts';
import type { ResolveDisputeInput, UpdateDisputeInput } from './disputes.schema.ts';
import { disputes } from './disputes.table.ts';

/**
 * A dispute's steps after it opens (opening: disputes.open.ts): evidence saved and submitted, the
 * dispute accepted, the issuer's decision, and the due work that decides on time. Each step is one
 * change (disputes.rows.ts, stepDispute), written only if the dispute is still as read — through
 * the group commit when the request has no transaction of its own — else the dispute is read again
 * under lock and the step decided on it as it now is (readAndCommit).
 */

export { magicDisputeJob, type OpenInput, openDispute, simulateDispute } from './disputes.open.ts';
export {
  DISPUTE_DUE_JOB,
  DISPUTE_FEE_MINOR,
  DISPUTE_REVIEW_JOB,
  disputeEvent,
  disputesByIds,
  disputesOfPayment,
  EVIDENCE_DUE_SECONDS,
  LOSING_EVIDENCE,
  listDisputes,
  loadDispute,
  REVIEW_SECONDS,
  WINNING_EVIDENCE,
} from './disputes.rows.ts';

export function getDispute(ctx: ServiceContext, id: string): Promise<DisputeRow> {
  return loadDispute(dbOf(ctx), ctx, id);
}

/** A step of the dispute `id`, decided by `decide` on the dispute as read, committed as one change. */
function stepOf(
  ctx: ServiceContext,
  id: string,
  decide: (row: DisputeRow) => DisputeStep,
): Promise<DisputeRow> {
  return readAndCommit(ctx, {
    read: (exec, lock) => loadDispute(exec, ctx, id, lock),
    write: async (row, target: CommitTarget) => {
      const { moved, work } = decide(row);
      await commit(target, work);
      return moved;
    },
  });
}

/** An inquiry becomes a chargeback: needs_response with a new due date, the amount and fee debited. */
function escalate(ctx: ServiceContext, row: DisputeRow): DisputeStep {
  const { moved, work } = stepDispute(ctx, row, 'escalate', {
    fee: DISPUTE_FEE_MINOR,
    evidenceDueBy: addSeconds(ctx.clock.now(), EVIDENCE_DUE_SECONDS),
    evidenceSubmittedAt: null,
    reviewEndsAt: null,
  });
  withDueJob(withDebit(work, ctx, moved, moved.fee), ctx, moved);
  return { moved, work };
}

/** A chargeback won: the amount and the fee come back. */
function win(ctx: ServiceContext, row: DisputeRow, reason: OutcomeReason): DisputeStep {
  const { moved, work } = stepDispute(ctx, row, 'win', { outcomeReason: reason, reviewEndsAt: null });
  withWon(work, ctx, moved);
  return { moved, work };
}

/** A chargeback lost (its debit stands), or an inquiry closed: nothing moves on the ledger. */
function end(
  ctx: ServiceContext,
  row: DisputeRow,
  event: 'lose' | 'close_warning',
  reason: OutcomeReason,
): DisputeStep {
  return stepDispute(ctx, row, event, { outcomeReason: reason, reviewEndsAt: null });
}

/**
 * POST /v1/disputes/{id}: saves evidence (merged into what was saved) and, unless `submit: false`,
 * submits it: the dispute is under review (warning_under_review for an inquiry) until the issuer
 * decides, two days later.
 */
export function updateDispute(
  ctx: ServiceContext,
  id: string,
  input: UpdateDisputeInput,
): Promise<DisputeRow> {
  return stepOf(ctx, id, (row) => {
    const submit = input.submit ?? true;
    const event: DisputeEvent = row.state === 'warning_needs_response' ? 'submit_warning' : 'submit';
    if (row.state !== 'needs_response' && row.state !== 'warning_needs_response')
      throw invalidState(disputeMachine, row.state, event);
    const evidence = jsonbOrdered({ ...row.evidence, ...definedOnly(input.evidence ?? {}) });
    const now = ctx.clock.now();
    if (!submit) {
      // Saved only: no event, the state stays.
      const set = { evidence, updatedAt: now };
      const expect = { state: row.state, updatedAt: row.updatedAt };
      return {
        moved: { ...row, ...set },
        work: change().update({ table: disputes, id: row.id, expect, set }),
      };
    }
    if (Object.values(evidence).every((text) => text.trim() === ''))
      throw new SandbankError('parameter_missing', {
        param: 'evidence',
        message: 'Submitting needs some evidence: at least one evidence field with text.',
      });
    const reviewEndsAt = addSeconds(now, REVIEW_SECONDS);
    const submitted = stepDispute(ctx, row, event, { evidence, evidenceSubmittedAt: now, reviewEndsAt });
    submitted.work.job(
      jobValues({
        merchantId: row.merchantId,
        kind: DISPUTE_REVIEW_JOB,
        objectId: row.id,
        dueAt: reviewEndsAt,
        createdAt: now,
      }),
    );
    return submitted;
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
export function closeDispute(ctx: ServiceContext, id: string): Promise<DisputeRow> {
  return stepOf(ctx, id, (row) => {
    if (row.state === 'warning_needs_response') return end(ctx, row, 'close_warning', 'accepted');
    if (row.state === 'needs_response') return end(ctx, row, 'lose', 'accepted');
    throw new SandbankError('invalid_state', {
      message: `A dispute can be closed (accepted) while it needs a response; this one is ${row.state}.`,
    });
  });
}

/** The decision on a dispute: won or lost (for an inquiry: closed, or escalated to a chargeback). */
function decide(
  ctx: ServiceContext,
  row: DisputeRow,
  outcome: 'won' | 'lost',
  reason: OutcomeReason,
): DisputeStep {
  if (row.state === 'warning_needs_response' || row.state === 'warning_under_review')
    return outcome === 'won' ? end(ctx, row, 'close_warning', reason) : escalate(ctx, row);
  return outcome === 'won' ? win(ctx, row, reason) : end(ctx, row, 'lose', reason);
}

/** POST /v1/simulate/disputes/{id}/resolve: the issuer decides now, whatever the evidence. */
export function resolveDispute(
  ctx: ServiceContext,
  id: string,
  input: ResolveDisputeInput,
): Promise<DisputeRow> {
  return stepOf(ctx, id, (row) => {
    if (disputeMachine.final.includes(row.state))
      throw invalidState(disputeMachine, row.state, input.outcome === 'won' ? 'win' : 'lose');
    return decide(ctx, row, input.outcome, 'simulated');
  });
}

// ---------------------------------------------------------------------------------------------
// Scheduled work: the dispute locked, its step written in the job's transaction.

/** The evidence due date passed: a chargeback with nothing submitted is lost, an inquiry escalates. */
export async function disputeDueJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const row = await lockDisputeOfJob(ctx.tx, job.objectId);
  if (!row || row.evidenceDueBy > ctx.clock.now()) return; // a later due date has its own job
  const due =
    row.state === 'needs_response'
      ? end(ctx, row, 'lose', 'no_response')
      : row.state === 'warning_needs_response'
        ? escalate(ctx, row)
        : null;
  if (due) await commit(ctx, due.work);
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
  const row = await lockDisputeOfJob(ctx.tx, job.objectId);
  if (!row || (row.state !== 'under_review' && row.state !== 'warning_under_review')) return;
  if (row.reviewEndsAt === null || row.reviewEndsAt > ctx.clock.now()) return;
  const outcome = evidenceOutcome(row.evidence);
  if (outcome) await commit(ctx, decide(ctx, row, outcome, 'evidence').work);
}
