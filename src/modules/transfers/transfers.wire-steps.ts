import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { recordEvent } from '../../db/outbox.ts';
import { step } from '../../db/step.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { canTransition, transition } from '../../kernel/state-machine.ts';
import type { ServiceContext } from '../context.ts';
import { postHold, voidHold } from '../ledger/ledger.holds.ts';
import { post } from '../ledger/ledger.post.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
import { scheduleJob } from '../scheduler/scheduler.service.ts';
import type { TransferRow } from './transfers.resource.ts';
import {
  common,
  entryEvent,
  TRANSFER_WIRE_RECALL_JOB,
  TRANSFER_WIRE_RETURN_JOB,
  wireKindOf,
  withEntry,
} from './transfers.rows.ts';
import type { WireRecallInput } from './transfers.schema.ts';
import type { WireRecallRecord } from './transfers.table.ts';
import { transfers } from './transfers.table.ts';
import {
  omadOf,
  WIRE_BANK_ANSWER_SECONDS,
  WIRE_RECALL_REASONS,
  WIRE_RECALL_REFUSALS,
  WIRE_RETURN_REASONS,
  wireAnswerAt,
} from './transfers.wire.ts';

// The steps of a Fedwire entry (transfers.wire.ts has the service's schedule): processed and final
// at once, returned by the beneficiary's bank, canceled while waiting for the operating day, and
// the merchant's recall with the bank's answer.

type Ctx = ServiceContext & { tx: Tx };

/** pending → completed (a payout: paid): the service settles it; the hold goes to the rails for good. */
export async function completeWire(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  const kind = wireKindOf(row);
  transition(kind.machine, row.state, 'complete');
  const now = ctx.clock.now();
  await postHold(tx, row.merchantId, row.holdId as string, now, 'bank_rails');
  const cycleDate = (row.imad ?? '').slice(0, 8).replace(/^(\d{4})(\d{2})(\d{2})$/, '$1-$2-$3');
  const moved = await step(tx, ctx, kind, row, 'complete', {
    submittedAt: row.expectedSubmissionAt ?? now,
    settledAt: now,
    omad: omadOf(row.id, cycleDate, now),
    updatedAt: now,
  });
  if (row.outcome === 'returned')
    await scheduleJob(tx, {
      merchantId: row.merchantId,
      kind: TRANSFER_WIRE_RETURN_JOB,
      objectId: row.id,
      dueAt: wireAnswerAt(now, WIRE_BANK_ANSWER_SECONDS),
      createdAt: now,
    });
  return moved;
}

/** completed | paid → returned: the beneficiary's bank sends the funds back with `code` (pacs.004). */
export async function returnWire(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  code: string,
  recall?: WireRecallRecord,
): Promise<TransferRow> {
  const kind = wireKindOf(row);
  transition(kind.machine, row.state, 'return');
  const now = ctx.clock.now();
  await post(tx, {
    ...common(row, now),
    type: `${row.kind}_return`,
    relatedId: row.holdId,
    entries: [
      { account: 'bank_rails', amount: -row.amount },
      { account: 'available', amount: row.amount },
    ],
  });
  return step(tx, ctx, kind, row, 'return', {
    returnedAt: now,
    returnCode: code,
    returnReason: WIRE_RETURN_REASONS[code] ?? code,
    ...(recall ? { recall } : {}),
    updatedAt: now,
  });
}

/** pending → canceled: the wire had not reached the service yet; the hold is released. */
export async function cancelWire(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  const kind = wireKindOf(row);
  transition(kind.machine, row.state, 'cancel');
  const now = ctx.clock.now();
  const processedAt = row.expectedSubmissionAt;
  if (processedAt && now.getTime() >= processedAt.getTime())
    throw new SandbankError('invalid_state', {
      message: `The Fedwire Funds Service took this wire at ${processedAt.toISOString()}; it settles at once and can no longer be canceled (a completed wire can be recalled).`,
    });
  if (row.holdId) await voidHold(tx, row.merchantId, row.holdId, now);
  return step(tx, ctx, kind, row, 'cancel', { updatedAt: now });
}

/**
 * POST /v1/transfers/{id}/recall: the merchant's bank asks the beneficiary's bank to send a
 * completed wire back (camt.056). 409 invalid_state for another rail, a wire not completed, or one
 * already recalled; the answer comes an hour later inside the service's hours.
 */
export function recallWire(ctx: ServiceContext, id: string, input: WireRecallInput): Promise<TransferRow> {
  return withEntry(ctx, 'transfer', id, async (tx, row) => {
    if (row.rail !== 'wire')
      throw new SandbankError('invalid_state', {
        message: `This transfer went over ${row.rail}; only wires (Fedwire) are recalled.`,
      });
    if (row.recall)
      throw new SandbankError('invalid_state', {
        message: `This wire's recall was already requested at ${row.recall.requested_at} (${row.recall.state}).`,
      });
    if (row.state !== 'completed')
      throw new SandbankError('invalid_state', {
        message: `This wire is ${row.state}; a recall needs a completed wire (a pending one can be canceled).`,
      });
    const now = ctx.clock.now();
    const dueAt = wireAnswerAt(now, WIRE_BANK_ANSWER_SECONDS);
    const recall: WireRecallRecord = {
      reason: input.reason,
      reason_text: WIRE_RECALL_REASONS[input.reason] ?? input.reason,
      requested_at: now.toISOString(),
      state: 'requested',
      answer_due_at: dueAt.toISOString(),
      answered_at: null,
      refusal_code: null,
      refusal_reason: null,
    };
    return writeRecall(tx, ctx, row, recall, 'transfer.recall_requested', async () => {
      await scheduleJob(tx, {
        merchantId: row.merchantId,
        kind: TRANSFER_WIRE_RECALL_JOB,
        objectId: row.id,
        dueAt,
        createdAt: now,
      });
    });
  });
}

/** Writes a wire's recall record and its event (a change that is not a state). */
async function writeRecall(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  recall: WireRecallRecord,
  type: string,
  then: () => Promise<void> = async () => {},
): Promise<TransferRow> {
  const now = ctx.clock.now();
  const [moved] = await tx
    .update(transfers)
    .set({ recall, updatedAt: now })
    .where(and(eq(transfers.id, row.id), eq(transfers.merchantId, row.merchantId)))
    .returning();
  const written = moved as TransferRow;
  await recordEvent(tx, entryEvent(written, ctx.publicUrl, type));
  await then();
  return written;
}

/** The beneficiary bank's answer to a recall: the funds back (FOCR), or a refusal (camt.029). */
async function answerRecall(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<void> {
  const recall = row.recall;
  if (recall?.state !== 'requested') return;
  const now = ctx.clock.now().toISOString();
  const refusal =
    row.state !== 'completed'
      ? 'ARDT'
      : row.outcome === 'recall_refused'
        ? (row.outcomeCode ?? 'CUST')
        : null;
  if (refusal) {
    const refused: WireRecallRecord = {
      ...recall,
      state: 'refused',
      answered_at: now,
      refusal_code: refusal,
      refusal_reason: WIRE_RECALL_REFUSALS[refusal] ?? refusal,
    };
    await writeRecall(tx, ctx, row, refused, 'transfer.recall_refused');
    return;
  }
  await returnWire(tx, ctx, row, 'FOCR', { ...recall, state: 'accepted', answered_at: now });
}

async function lockedWire(ctx: Ctx, job: JobRow): Promise<TransferRow | null> {
  const [row] = await ctx.tx
    .select()
    .from(transfers)
    .where(and(eq(transfers.id, job.objectId), eq(transfers.merchantId, ctx.merchant.id)))
    .for('update');
  return row ?? null;
}

/** Due work: the service processes a wire whose operating day has come (unless canceled meanwhile). */
export async function processWireJob(ctx: Ctx, job: JobRow): Promise<void> {
  const row = await lockedWire(ctx, job);
  if (row && canTransition(wireKindOf(row).machine, row.state, 'complete'))
    await completeWire(ctx.tx, ctx, row);
}

/** Due work: a magic account's bank returns the wire it cannot credit. */
export async function returnWireJob(ctx: Ctx, job: JobRow): Promise<void> {
  const row = await lockedWire(ctx, job);
  if (row && canTransition(wireKindOf(row).machine, row.state, 'return'))
    await returnWire(ctx.tx, ctx, row, row.outcomeCode ?? 'AC04');
}

/** Due work: the beneficiary's bank answers a recall. */
export async function answerRecallJob(ctx: Ctx, job: JobRow): Promise<void> {
  const row = await lockedWire(ctx, job);
  if (row) await answerRecall(ctx.tx, ctx, row);
}
