import type { Tx } from '../../db/client.ts';
import { step } from '../../db/step.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { canTransition, transition } from '../../kernel/state-machine.ts';
import type { ServiceContext } from '../context.ts';
import { post } from '../ledger/ledger.post.ts';
import { afterCollectionDebit } from './transfers.hooks.ts';
import type { TransferRow } from './transfers.resource.ts';
import { checkContest, checkDishonor, checkReturn } from './transfers.returns.ts';
import { achKind, common } from './transfers.rows.ts';
import { wsudFor } from './transfers.wsud.ts';

// The steps that bring an ACH entry's money back, and those that dispute its coming back: a return,
// the ODFI's dishonor of it and the RDFI's contest of the dishonor (their rules: transfers.returns.ts).

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
  // The code's category, direction, SEC code and time frame (transfers.returns.ts): 400 / 409, nothing written.
  const verdict = checkReturn({
    code,
    direction: row.direction as 'credit' | 'debit',
    secCode: row.secCode,
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
    wsud: wsudFor(row, reason, ctx.merchant.name, now),
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
