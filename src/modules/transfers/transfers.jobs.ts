import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { canTransition } from '../../kernel/state-machine.ts';
import type { ServiceContext } from '../context.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
import type { AchTransferEvent } from './transfers.machine.ts';
import { isAchRail, isInstantRail } from './transfers.rails.ts';
import type { TransferRow } from './transfers.resource.ts';
import { achKindOf, rtpKindOf } from './transfers.rows.ts';
import { answerRtp, returnEntry, settle, submit } from './transfers.steps.ts';
import { transfers } from './transfers.table.ts';

type Ctx = ServiceContext & { tx: Tx };

// Due work: the rail moving the entry on as the clock passes. A step already taken through the
// API leaves the job nothing to do.

async function dueStep(
  ctx: Ctx,
  job: JobRow,
  event: AchTransferEvent | 'complete',
  work: (tx: Tx, row: TransferRow) => Promise<TransferRow>,
): Promise<void> {
  // Locked, so a step racing through the API waits for this one (or this one sees its result)
  // instead of making the job fail on a compare-and-set it lost.
  const [row] = await ctx.tx
    .select()
    .from(transfers)
    .where(and(eq(transfers.id, job.objectId), eq(transfers.merchantId, ctx.merchant.id)))
    .for('update');
  if (!row) return;
  const due =
    event === 'complete'
      ? isInstantRail(row.rail) && canTransition(rtpKindOf(row).machine, row.state, 'complete')
      : isAchRail(row.rail) && canTransition(achKindOf(row).machine, row.state, event);
  if (due) await work(ctx.tx, row);
}

export const submitTransferJob = (ctx: Ctx, job: JobRow) =>
  dueStep(ctx, job, 'submit', (tx, row) => submit(tx, ctx, row));
export const settleTransferJob = (ctx: Ctx, job: JobRow) =>
  dueStep(ctx, job, 'settle', (tx, row) => settle(tx, ctx, row));
export const returnTransferJob = (ctx: Ctx, job: JobRow) =>
  dueStep(ctx, job, 'return', (tx, row) => returnEntry(tx, ctx, row, row.outcomeCode ?? 'R01'));
export const answerRtpJob = (ctx: Ctx, job: JobRow) =>
  dueStep(ctx, job, 'complete', (tx, row) => answerRtp(tx, ctx, row));
