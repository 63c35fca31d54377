import type { Tx } from '../../db/client.ts';
import { type StatefulKind, step } from '../../db/step.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { canTransition, transition } from '../../kernel/state-machine.ts';
import type { ServiceContext } from '../context.ts';
import { postHold, voidHold } from '../ledger/ledger.holds.ts';
import { post, postFundsAvailable, postPendingCredit } from '../ledger/ledger.post.ts';
import { scheduleJob } from '../scheduler/scheduler.service.ts';
import { afterAchSettled, afterCollectionDebit } from './transfers.hooks.ts';
import type { AchTransferEvent, EntryKind, EntryState } from './transfers.machine.ts';
import { isInstantRail, RTP_REJECT_REASONS } from './transfers.rails.ts';
import type { TransferRow } from './transfers.resource.ts';
import {
  checkContest,
  checkDishonor,
  checkReturn,
  returnRule,
  scheduledReturnAt,
} from './transfers.returns.ts';
import {
  achKindOf,
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

/** What happened to a collection's debit, as collections.pay.ts names it (the hook is in transfers.hooks.ts). */
export type { CollectionDebitStep } from './transfers.hooks.ts';

// Steps. Each kind names its states its own way (transfers.machine.ts); the engine moves every
// entry with the same events, so a payout is `in_transit` where a transfer is `submitted`.
// A step is checked against the machine first (a wrong state is the entry's 409, not its hold's),
// then the ledger moves, then step() takes it: the entry's event follows the ledger's.

type AchKind = StatefulKind<TransferRow, EntryState, AchTransferEvent>;

/** The entry's ACH kind (409 on an RTP entry: `event` is a step of ACH entries only). */
function achKind(row: TransferRow, event: AchTransferEvent): AchKind {
  if (isInstantRail(row.rail)) {
    throw new SandbankError('invalid_state', {
      message: `This ${row.rail === 'fednow' ? 'FedNow' : 'RTP'} ${row.kind} is ${row.state}; ${event} is a step of ACH ${row.kind}s only.`,
    });
  }
  return achKindOf(row);
}

const common = (row: TransferRow, at: Date) => ({
  merchantId: row.merchantId,
  currency: row.currency as CurrencyCode,
  amount: row.amount,
  source: { type: row.kind, id: row.id },
  at,
});

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

/**
 * submitted | settled → returned (a payout: failed | returned), undoing the entry's ledger effect:
 * a credit's money comes back to `available`; a debit's leaves `pending` (not settled yet) or
 * `available` (settled, even below zero, as an ODFI's balance does when a debit it already paid
 * out bounces).
 */
export async function returnEntry(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  code: string,
  options: { untimely?: boolean } = {},
): Promise<TransferRow> {
  const kind = achKind(row, 'return');
  const machine = kind.machine;
  const wasSettled = canTransition(machine, row.state, 'return');
  const event = wasSettled ? 'return' : 'return_unsettled';
  if (!wasSettled && !canTransition(machine, row.state, event)) {
    // A wrong state is 409 before a bad code's 400.
    const from = [...machine.transitions.return_unsettled.from, ...machine.transitions.return.from];
    throw new SandbankError('invalid_state', {
      message: `This ${machine.object} is ${row.state}; return needs it to be ${from.join(' or ')}.`,
    });
  }
  const now = ctx.clock.now();
  // The code's category, direction and time frame (transfers.returns.ts): 400 / 422, nothing written.
  const verdict = checkReturn({
    code,
    direction: row.direction as 'credit' | 'debit',
    settledAt: wasSettled ? row.settledAt : null,
    now,
    untimely: options.untimely ?? false,
  });
  const reason = verdict.rule;
  const from = row.direction === 'credit' ? 'available' : wasSettled ? 'available' : 'pending';
  const sign = row.direction === 'credit' ? 1n : -1n;
  await post(tx, {
    ...common(row, now),
    type: `${row.kind}_return`,
    relatedId: row.holdId,
    entries: [
      { account: 'bank_rails', amount: -sign * row.amount },
      { account: from, amount: sign * row.amount },
    ],
    ...(sign < 0n ? { allowNegative: [from] } : {}),
  });
  const moved = await step(tx, ctx, kind, row, event, {
    returnedAt: now,
    returnCode: reason.code,
    returnReason: reason.title,
    returnUntimely: verdict.untimely,
    updatedAt: now,
  });
  await afterCollectionDebit(tx, ctx, moved, 'returned');
  return moved;
}

/**
 * Moves the entry's money between `bank_rails` and `available` again: `effect` 'forward' re-applies
 * the entry (a credit's money leaves available, a debit's arrives), 'returned' undoes it (as a return
 * does). Available may go below zero, as an ODFI's balance does.
 */
async function postReturnEffect(
  tx: Tx,
  row: TransferRow,
  at: Date,
  type: 'transfer_return' | 'payout_return' | 'transfer_return_dishonored' | 'payout_return_dishonored',
  effect: 'forward' | 'returned',
): Promise<void> {
  // +1: the money comes to available (a returned credit, a forward debit).
  const toAvailable = (row.direction === 'credit') === (effect === 'returned') ? 1n : -1n;
  await post(tx, {
    ...common(row, at),
    type,
    relatedId: row.holdId,
    entries: [
      { account: 'bank_rails', amount: -toAvailable * row.amount },
      { account: 'available', amount: toAvailable * row.amount },
    ],
    ...(toAvailable < 0n ? { allowNegative: ['available'] } : {}),
  });
}

/**
 * returned → return_dishonored: the ODFI refuses the return (R61-R70, within 5 banking days of the
 * return); the entry's effect is applied again, as if it had not come back. Only a return of a
 * settled entry can be dishonored, and not that of a collection's debit (409: the return failed
 * the collection, a final state).
 */
export async function dishonorReturn(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  code: string,
): Promise<TransferRow> {
  const kind = achKind(row, 'dishonor_return');
  transition(kind.machine, row.state, 'dishonor_return');
  if (row.settledAt === null || row.returnedAt === null || row.returnCode === null) {
    throw new SandbankError('invalid_state', {
      message: `This ${kind.machine.object} came back before it settled; only the return of a settled entry can be dishonored.`,
    });
  }
  if (row.collectionId !== null) {
    // Its return failed the collection (final): the money cannot come back while it stays failed.
    throw new SandbankError('invalid_state', {
      message: `This debit paid collection ${row.reference}, which its return failed; the return of a collection's debit is not dishonored.`,
    });
  }
  const now = ctx.clock.now();
  const verdict = checkDishonor({
    code,
    returnCode: row.returnCode,
    returnUntimely: row.returnUntimely,
    direction: row.direction as 'credit' | 'debit',
    returnedAt: row.returnedAt,
    now,
  });
  await postReturnEffect(tx, row, now, `${row.kind}_return_dishonored` as const, 'forward');
  return step(tx, ctx, kind, row, 'dishonor_return', {
    dishonoredAt: now,
    dishonorCode: verdict.code,
    dishonorReason: verdict.title,
    updatedAt: now,
  });
}

/**
 * return_dishonored → return_contested: the RDFI contests the dishonor (R71-R77, within 2 banking
 * days of it); the entry is returned again in the ledger.
 */
export async function contestDishonoredReturn(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  code: string,
): Promise<TransferRow> {
  const kind = achKind(row, 'contest_dishonored_return');
  transition(kind.machine, row.state, 'contest_dishonored_return');
  const now = ctx.clock.now();
  const verdict = checkContest({
    code,
    dishonorCode: row.dishonorCode as string,
    dishonoredAt: row.dishonoredAt as Date,
    now,
  });
  await postReturnEffect(tx, row, now, `${row.kind}_return` as const, 'returned');
  return step(tx, ctx, kind, row, 'contest_dishonored_return', {
    contestedAt: now,
    contestCode: verdict.code,
    contestReason: verdict.title,
    updatedAt: now,
  });
}

/** pending → canceled (ACH before submission): a credit's hold is released. */
async function cancel(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
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
