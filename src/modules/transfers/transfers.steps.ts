import type { Tx } from '../../db/client.ts';
import { transitionRow } from '../../db/compare-and-set.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { canTransition } from '../../kernel/state-machine.ts';
import { parseInput } from '../../kernel/validation.ts';
import type { ServiceContext } from '../context.ts';
import { postHold, voidHold } from '../ledger/ledger.holds.ts';
import { post, postFundsAvailable, postPendingCredit } from '../ledger/ledger.post.ts';
import { scheduleJob } from '../scheduler/scheduler.service.ts';
import {
  type AchMachine,
  type AchTransferEvent,
  achMachineOf,
  type EntryKind,
  rtpMachineOf,
} from './transfers.machine.ts';
import { achReturnReason, RTP_REJECT_REASONS, returnArrivesAt } from './transfers.rails.ts';
import type { TransferRow } from './transfers.resource.ts';
import { emit, kindOf, step, TRANSFER_RETURN_JOB, TRANSFER_SETTLE_JOB } from './transfers.rows.ts';
import { returnTransferSchema } from './transfers.schema.ts';
import { transfers } from './transfers.table.ts';

// Steps. Each kind names its states its own way (transfers.machine.ts); the engine moves every
// entry with the same events, so a payout is `in_transit` where a transfer is `submitted`.

/** What happened to a collection's debit; the collections module listens (modules/jobs.ts). */
export type CollectionDebitStep = 'settled' | 'returned';
type CollectionDebitHook = (
  tx: Tx,
  ctx: ServiceContext,
  debit: TransferRow,
  step: CollectionDebitStep,
) => Promise<void>;
const collectionDebitHooks: CollectionDebitHook[] = [];

export function onCollectionDebit(hook: CollectionDebitHook): void {
  if (!collectionDebitHooks.includes(hook)) collectionDebitHooks.push(hook);
}

async function afterCollectionDebit(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  step: CollectionDebitStep,
) {
  if (row.collectionId === null) return;
  for (const hook of collectionDebitHooks) await hook(tx, ctx, row, step);
}

function achMachine(row: TransferRow, event: AchTransferEvent): AchMachine {
  const machine = achMachineOf(kindOf(row));
  if (row.rail === 'rtp') {
    throw new SandbankError('invalid_state', {
      message: `This RTP ${row.kind} is ${row.state}; ${event} is a step of ACH ${row.kind}s only.`,
    });
  }
  return machine;
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
  const machine = achMachine(row, 'submit');
  const now = ctx.clock.now();
  const moved = await transitionRow(tx, machine, transfers, row, 'submit', {
    submittedAt: now,
    updatedAt: now,
  });
  if (row.direction === 'credit') await postHold(tx, row.merchantId, row.holdId as string, now, 'bank_rails');
  else await postPendingCredit(tx, { ...common(row, now), type: row.kind, from: 'bank_rails' });
  await emit(tx, moved);
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
  const machine = achMachine(row, 'settle');
  const now = ctx.clock.now();
  const moved = await transitionRow(tx, machine, transfers, row, 'settle', {
    settledAt: now,
    updatedAt: now,
  });
  if (row.direction === 'debit') await postFundsAvailable(tx, { ...common(row, now), relatedId: row.id });
  await emit(tx, moved);
  await afterCollectionDebit(tx, ctx, moved, 'settled');
  const reason = row.outcome === 'returns' && row.outcomeCode ? achReturnReason(row.outcomeCode) : null;
  if (reason) {
    await scheduleJob(tx, {
      merchantId: row.merchantId,
      kind: TRANSFER_RETURN_JOB,
      objectId: row.id,
      dueAt: returnArrivesAt(now, reason),
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
): Promise<TransferRow> {
  const machine = achMachine(row, 'return');
  const wasSettled = canTransition(machine, row.state, 'return');
  const event = wasSettled ? 'return' : 'return_unsettled';
  if (!wasSettled && !canTransition(machine, row.state, event)) {
    // A wrong state is 409 before a bad code's 400.
    const from = [...machine.transitions.return_unsettled.from, ...machine.transitions.return.from];
    throw new SandbankError('invalid_state', {
      message: `This ${machine.object} is ${row.state}; return needs it to be ${from.join(' or ')}.`,
    });
  }
  const reason = achReturnReason(code);
  if (!reason) {
    throw new SandbankError('parameter_invalid', {
      param: 'code',
      message: `${code.slice(0, 8)} is not a Nacha return code (R01-R85, as listed in the reference).`,
    });
  }
  const now = ctx.clock.now();
  const moved = await transitionRow(tx, machine, transfers, row, event, {
    returnedAt: now,
    returnCode: reason.code,
    returnReason: reason.title,
    updatedAt: now,
  });
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
  await emit(tx, moved);
  await afterCollectionDebit(tx, ctx, moved, 'returned');
  return moved;
}

/** pending → canceled (ACH before submission): a credit's hold is released. */
async function cancel(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  const machine = achMachine(row, 'cancel');
  if (row.collectionId !== null) {
    throw new SandbankError('invalid_state', {
      message: `This debit pays collection ${row.reference}; it moves with the collection and cannot be canceled on its own.`,
    });
  }
  const now = ctx.clock.now();
  const moved = await transitionRow(tx, machine, transfers, row, 'cancel', { updatedAt: now });
  if (row.holdId) await voidHold(tx, row.merchantId, row.holdId, now);
  await emit(tx, moved);
  return moved;
}

/** RTP: the receiving bank's answer, seconds after the credit was sent. */
export async function answerRtp(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  const machine = rtpMachineOf(kindOf(row));
  const now = ctx.clock.now();
  const holdId = row.holdId as string;
  if (row.outcome === 'rejected') {
    const code = (row.outcomeCode ?? 'AC03') as keyof typeof RTP_REJECT_REASONS;
    const moved = await transitionRow(tx, machine, transfers, row, 'reject', {
      failureReason: `${code}: ${RTP_REJECT_REASONS[code]}`,
      updatedAt: now,
    });
    await voidHold(tx, row.merchantId, holdId, now);
    await emit(tx, moved);
    return moved;
  }
  const moved = await transitionRow(tx, machine, transfers, row, 'complete', {
    submittedAt: row.createdAt,
    settledAt: now,
    updatedAt: now,
  });
  await postHold(tx, row.merchantId, holdId, now, 'bank_rails');
  await emit(tx, moved);
  return moved;
}

/** The API's steps of one kind of entry: cancel, and the simulate steps of tests. */
function stepsOf(kind: EntryKind) {
  return {
    cancel: (ctx: ServiceContext, id: string) => step(ctx, kind, id, (tx, row) => cancel(tx, ctx, row)),
    submit: (ctx: ServiceContext, id: string) => step(ctx, kind, id, (tx, row) => submit(tx, ctx, row)),
    settle: (ctx: ServiceContext, id: string) => step(ctx, kind, id, (tx, row) => settle(tx, ctx, row)),
    /** `…/return {code?}`: R01 for a debit, R03 for a credit by default. */
    return: (ctx: ServiceContext, id: string, raw: unknown) => {
      const input = parseInput(returnTransferSchema, raw ?? {});
      return step(ctx, kind, id, (tx, row) =>
        returnEntry(tx, ctx, row, input.code ?? (row.direction === 'debit' ? 'R01' : 'R03')),
      );
    },
  };
}

export type EntrySteps = ReturnType<typeof stepsOf>;
export const transferSteps: EntrySteps = stepsOf('transfer');
export const payoutSteps: EntrySteps = stepsOf('payout');
