import type { Tx } from '../../db/client.ts';
import { step } from '../../db/step.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { transition } from '../../kernel/state-machine.ts';
import type { ServiceContext } from '../context.ts';
import { postHold, voidHold } from '../ledger/ledger.holds.ts';
import { postFundsAvailable, postPendingCredit } from '../ledger/ledger.post.ts';
import { scheduleJob } from '../scheduler/scheduler.service.ts';
import { afterAchSettled, afterCollectionDebit } from './transfers.hooks.ts';
import type { EntryKind } from './transfers.machine.ts';
import { isWireRail, RTP_REJECT_REASONS } from './transfers.rails.ts';
import type { TransferRow } from './transfers.resource.ts';
import { returnRule, scheduledReturnAt } from './transfers.returns.ts';
import {
  achKind,
  common,
  rtpKindOf,
  TRANSFER_RETURN_JOB,
  TRANSFER_SETTLE_JOB,
  withEntry,
} from './transfers.rows.ts';
import type {
  ContestDishonoredReturnInput,
  DishonorReturnInput,
  ReturnTransferInput,
} from './transfers.schema.ts';
import { contestDishonoredReturn, dishonorReturn, returnEntry } from './transfers.steps-returns.ts';
import { cancelWire } from './transfers.wire-steps.ts';

/** What happened to a collection's debit, as collections.pay.ts names it (the hook is in transfers.hooks.ts). */
export type { CollectionDebitStep } from './transfers.hooks.ts';
/** The return steps (transfers.steps-returns.ts), for the rail's due work. */
export { contestDishonoredReturn, dishonorReturn, returnEntry };

// Steps. Each kind names its states its own way (transfers.machine.ts); the engine moves every
// entry with the same events, so a payout is `in_transit` where a transfer is `submitted`.
// A step is checked against the machine first (a wrong state is the entry's 409, not its hold's),
// then the ledger moves, then step() takes it: the entry's event follows the ledger's. The return
// steps are in transfers.steps-returns.ts; an entry's kind and its postings' common part in transfers.rows.ts.

/** pending → submitted: a credit's hold goes to the rail; a debit's funds arrive in `pending`. */
export async function submit(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  const kind = achKind(row, 'submit');
  transition(kind.machine, row.state, 'submit');
  const now = ctx.clock.now();
  if (row.direction === 'credit') await postHold(tx, row.merchantId, row.holdId as string, now, 'bank_rails');
  else await postPendingCredit(tx, { ...common(row, now), type: row.kind, from: 'bank_rails' });
  const moved = await step(tx, ctx, kind, row, 'submit', { submittedAt: now, updatedAt: now });
  if (row.outcome !== 'stays_submitted') {
    // A step taken early keeps the rail's settlement time; a late one settles when it is due now.
    const settlesAt = Math.max((row.expectedSettlementAt ?? now).getTime(), now.getTime());
    await scheduleJob(tx, {
      merchantId: row.merchantId,
      kind: TRANSFER_SETTLE_JOB,
      objectId: row.id,
      dueAt: new Date(settlesAt),
      createdAt: now,
    });
  }
  return moved;
}

/** submitted → settled: a debit's funds become available; a magic account's return is scheduled. */
export async function settle(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  const kind = achKind(row, 'settle');
  transition(kind.machine, row.state, 'settle');
  const now = ctx.clock.now();
  if (row.direction === 'debit') await postFundsAvailable(tx, { ...common(row, now), relatedId: row.id });
  const moved = await step(tx, ctx, kind, row, 'settle', { settledAt: now, updatedAt: now });
  await afterCollectionDebit(tx, ctx, moved, 'settled');
  await afterAchSettled(tx, ctx, moved);
  const rule = row.outcome === 'returns' && row.outcomeCode ? returnRule(row.outcomeCode) : null;
  if (rule) {
    await scheduleJob(tx, {
      merchantId: row.merchantId,
      kind: TRANSFER_RETURN_JOB,
      objectId: row.id,
      dueAt: scheduledReturnAt(rule, now),
      createdAt: now,
    });
  }
  return moved;
}

/** pending → canceled (ACH before submission, a wire before its operating day): a credit's hold is released. */
async function cancel(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  if (isWireRail(row.rail)) return cancelWire(tx, ctx, row);
  const kind = achKind(row, 'cancel');
  if (row.collectionId !== null) {
    throw new SandbankError('invalid_state', {
      message: `This debit pays collection ${row.reference}; it moves with the collection and cannot be canceled on its own.`,
    });
  }
  transition(kind.machine, row.state, 'cancel');
  const now = ctx.clock.now();
  if (row.holdId) await voidHold(tx, row.merchantId, row.holdId, now);
  return step(tx, ctx, kind, row, 'cancel', { updatedAt: now });
}

/** RTP: the receiving bank's answer, seconds after the credit was sent. */
export async function answerRtp(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  const kind = rtpKindOf(row);
  const now = ctx.clock.now();
  const holdId = row.holdId as string;
  if (row.outcome === 'rejected') {
    const code = (row.outcomeCode ?? 'AC03') as keyof typeof RTP_REJECT_REASONS;
    transition(kind.machine, row.state, 'reject');
    await voidHold(tx, row.merchantId, holdId, now);
    return step(tx, ctx, kind, row, 'reject', {
      failureReason: `${code}: ${RTP_REJECT_REASONS[code]}`,
      updatedAt: now,
    });
  }
  transition(kind.machine, row.state, 'complete');
  await postHold(tx, row.merchantId, holdId, now, 'bank_rails');
  return step(tx, ctx, kind, row, 'complete', {
    submittedAt: row.createdAt,
    settledAt: now,
    updatedAt: now,
  });
}

/** The API's steps of one kind of entry: cancel, and the simulate steps of tests. */
function stepsOf(kind: EntryKind) {
  return {
    cancel: (ctx: ServiceContext, id: string) => withEntry(ctx, kind, id, (tx, row) => cancel(tx, ctx, row)),
    submit: (ctx: ServiceContext, id: string) => withEntry(ctx, kind, id, (tx, row) => submit(tx, ctx, row)),
    settle: (ctx: ServiceContext, id: string) => withEntry(ctx, kind, id, (tx, row) => settle(tx, ctx, row)),
    /** `…/return {code?, untimely?}`: R01 for a debit, R03 for a credit by default. */
    return: (ctx: ServiceContext, id: string, input: ReturnTransferInput = {}) =>
      withEntry(ctx, kind, id, (tx, row) =>
        returnEntry(tx, ctx, row, input.code ?? (row.direction === 'debit' ? 'R01' : 'R03'), {
          untimely: input.untimely ?? false,
        }),
      ),
    /** `…/dishonor_return {code}`: the ODFI refuses the return. */
    dishonorReturn: (ctx: ServiceContext, id: string, input: DishonorReturnInput) =>
      withEntry(ctx, kind, id, (tx, row) => dishonorReturn(tx, ctx, row, input.code)),
    /** `…/contest_dishonored_return {code}`: the RDFI contests the dishonor. */
    contestDishonoredReturn: (ctx: ServiceContext, id: string, input: ContestDishonoredReturnInput) =>
      withEntry(ctx, kind, id, (tx, row) => contestDishonoredReturn(tx, ctx, row, input.code)),
  };
}

export type EntrySteps = ReturnType<typeof stepsOf>;
export const transferSteps: EntrySteps = stepsOf('transfer');
export const payoutSteps: EntrySteps = stepsOf('payout');
