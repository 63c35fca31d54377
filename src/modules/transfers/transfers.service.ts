import { and, desc, eq, lt } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { transitionRow } from '../../db/compare-and-set.ts';
import { inTransaction } from '../../db/tx.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { formatDecimal, parseAmount } from '../../kernel/money.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { transition } from '../../kernel/state-machine.ts';
import { parseInput } from '../../kernel/validation.ts';
import { validateBankAccount } from '../bank-accounts/bank-account.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/events.service.ts';
import {
  placeHold,
  post,
  postFundsAvailable,
  postHold,
  postPendingCredit,
  voidHold,
} from '../ledger/ledger.service.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import { type AchTransferEvent, achTransferMachine, rtpTransferMachine } from './transfers.machine.ts';
import {
  type AchRail,
  achReturnReason,
  achTimeline,
  type Direction,
  RAIL_LIMIT_MINOR,
  type Rail,
  RTP_REJECT_REASONS,
  railOutcome,
  returnArrivesAt,
  rtpCompletesAt,
} from './transfers.rails.ts';
import { type TransferRow, transferResource } from './transfers.resource.ts';
import { createTransferFieldCodes, createTransferSchema, returnTransferSchema } from './transfers.schema.ts';
import { transfers } from './transfers.table.ts';

/** Due work that moves a transfer along the rail's timeline (payload: none; the row says what). */
export const TRANSFER_SUBMIT_JOB = 'transfer.submit';
export const TRANSFER_SETTLE_JOB = 'transfer.settle';
export const TRANSFER_RETURN_JOB = 'transfer.return';
export const TRANSFER_RTP_JOB = 'transfer.rtp_answer';

type Ctx = ServiceContext & { tx: Tx };

// ---------------------------------------------------------------------------------------------
// Reads

async function loadTransfer(exec: Executor, merchantId: string, id: string): Promise<TransferRow> {
  const [row] = id.includes('\u0000')
    ? []
    : await exec
        .select()
        .from(transfers)
        .where(and(eq(transfers.id, id), eq(transfers.merchantId, merchantId)));
  if (!row) throw new SandbankError('resource_not_found', { message: `No transfer ${id.slice(0, 60)}.` });
  return row;
}

export function getTransfer(ctx: ServiceContext, id: string): Promise<TransferRow> {
  return loadTransfer(ctx.tx ?? ctx.db, ctx.merchant.id, id);
}

export async function listTransfers(
  ctx: ServiceContext,
  query: ListQuery & { rail?: Rail | undefined; state?: string | undefined },
): Promise<Page<TransferRow>> {
  const conditions = [eq(transfers.merchantId, ctx.merchant.id)];
  if (query.starting_after) conditions.push(lt(transfers.id, query.starting_after));
  if (query.rail) conditions.push(eq(transfers.rail, query.rail));
  if (query.state) conditions.push(eq(transfers.state, query.state));
  const rows = await (ctx.tx ?? ctx.db)
    .select()
    .from(transfers)
    .where(and(...conditions))
    .orderBy(desc(transfers.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit);
}

// ---------------------------------------------------------------------------------------------
// Create

/**
 * POST /v1/transfers. Validates everything before writing (400s change nothing), then in one
 * transaction: the row, a credit's hold on the available balance (422 insufficient_balance when
 * short, and nothing is written), its `transfer.created` event and the first due work of its rail.
 */
export async function createTransfer(ctx: ServiceContext, raw: unknown): Promise<TransferRow> {
  const input = parseInput(createTransferSchema, raw, createTransferFieldCodes);
  const rail: Rail = input.rail;
  const direction: Direction = input.direction;
  const amount = parseAmount(input.amount, input.currency);
  if (rail === 'rtp' && direction === 'debit') {
    throw new SandbankError('rail_direction_unsupported', { param: 'direction' });
  }
  if (amount > RAIL_LIMIT_MINOR[rail]) {
    throw new SandbankError('amount_exceeds_rail_limit', {
      param: 'amount',
      message: `The amount is over the ${rail} limit of ${formatDecimal(RAIL_LIMIT_MINOR[rail], 'USD')} USD per entry.`,
    });
  }
  if (rail === 'rtp' && input.sec_code !== undefined) {
    throw new SandbankError('parameter_invalid', { param: 'sec_code', message: 'sec_code is for ACH only.' });
  }
  const account = validateBankAccount(input.counterparty, 'counterparty');
  const outcome = railOutcome({
    rail,
    direction,
    routingNumber: account.routingNumber,
    accountNumber: account.accountNumber,
  });
  if (outcome.kind === 'unreachable') {
    throw new SandbankError('routing_number_unreachable', {
      param: 'counterparty.routing_number',
      message: `Routing number ${account.routingNumber} is not reachable over ACH.`,
    });
  }
  const now = ctx.clock.now();
  const id = newId('transfer');
  const timeline = rail === 'rtp' ? null : achTimeline(rail, now);
  const values: TransferRow = {
    id,
    merchantId: ctx.merchant.id,
    rail,
    direction,
    state: 'pending',
    amount,
    currency: input.currency,
    counterpartyName: input.counterparty.name,
    routingNumber: account.routingNumber,
    accountLast4: account.last4,
    accountType: account.accountType,
    secCode: rail === 'rtp' ? null : (input.sec_code ?? 'CCD'),
    outcome: outcome.kind,
    outcomeCode:
      outcome.kind === 'returns' ? outcome.reason.code : outcome.kind === 'rejected' ? outcome.reason : null,
    holdId: null,
    expectedSubmissionAt: timeline?.submitsAt ?? null,
    // An entry that stays submitted until a simulate step moves it has no settlement to expect.
    expectedSettlementAt:
      outcome.kind === 'stays_submitted' ? null : (timeline?.settlesAt ?? rtpCompletesAt(now)),
    submittedAt: null,
    settledAt: null,
    returnedAt: null,
    returnCode: null,
    returnReason: null,
    failureReason: null,
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    createdAt: now,
    updatedAt: now,
  };
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    if (direction === 'credit') {
      const hold = await placeHold(tx, {
        merchantId: ctx.merchant.id,
        currency: values.currency as CurrencyCode,
        amount,
        type: 'transfer',
        source: { type: 'transfer', id },
        at: now,
      });
      values.holdId = hold.id;
    }
    const [row] = await tx.insert(transfers).values(values).returning();
    if (!row) throw new Error('transfer insert returned no row');
    await emit(tx, row, 'created');
    await scheduleJob(tx, {
      merchantId: row.merchantId,
      kind: rail === 'rtp' ? TRANSFER_RTP_JOB : TRANSFER_SUBMIT_JOB,
      objectId: row.id,
      dueAt: rail === 'rtp' ? (row.expectedSettlementAt as Date) : (row.expectedSubmissionAt as Date),
      createdAt: now,
    });
    return row;
  });
}

// ---------------------------------------------------------------------------------------------
// Steps

function emit(tx: Tx, row: TransferRow, type: string = row.state): Promise<string> {
  return recordEvent(tx, {
    merchantId: row.merchantId,
    type: `transfer.${type}`,
    objectId: row.id,
    data: { object: transferResource(row) },
    at: row.updatedAt,
  });
}

function assertAch(
  row: TransferRow,
  event: AchTransferEvent,
): asserts row is TransferRow & { rail: AchRail } {
  if (row.rail === 'rtp') {
    throw new SandbankError('invalid_state', {
      message: `This RTP transfer is ${row.state}; ${event} is a step of ACH transfers only.`,
    });
  }
}

const common = (row: TransferRow, at: Date) => ({
  merchantId: row.merchantId,
  currency: row.currency as CurrencyCode,
  amount: row.amount,
  source: { type: 'transfer', id: row.id },
  at,
});

/** pending → submitted: a credit's hold goes to the rail; a debit's funds arrive in `pending`. */
async function submit(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  assertAch(row, 'submit');
  const now = ctx.clock.now();
  const moved = await transitionRow(tx, achTransferMachine, transfers, row, 'submit', {
    submittedAt: now,
    updatedAt: now,
  });
  if (row.direction === 'credit') await postHold(tx, row.merchantId, row.holdId as string, now, 'bank_rails');
  else await postPendingCredit(tx, { ...common(row, now), type: 'transfer', from: 'bank_rails' });
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
async function settle(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  assertAch(row, 'settle');
  const now = ctx.clock.now();
  const moved = await transitionRow(tx, achTransferMachine, transfers, row, 'settle', {
    settledAt: now,
    updatedAt: now,
  });
  if (row.direction === 'debit') await postFundsAvailable(tx, { ...common(row, now), relatedId: row.id });
  await emit(tx, moved);
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
 * submitted | settled → returned, undoing the entry's ledger effect: a credit's money comes back to
 * `available`; a debit's leaves `pending` (not settled yet) or `available` (settled, even below
 * zero, as an ODFI's balance does when a debit it already paid out bounces).
 */
async function returnEntry(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  code: string,
): Promise<TransferRow> {
  assertAch(row, 'return');
  transition(achTransferMachine, row.state as never, 'return'); // a wrong state is 409 before a bad code's 400
  const reason = achReturnReason(code);
  if (!reason) {
    throw new SandbankError('parameter_invalid', {
      param: 'code',
      message: `${code.slice(0, 8)} is not a Nacha return code (R01-R85, as listed in the reference).`,
    });
  }
  const now = ctx.clock.now();
  const wasSettled = row.state === 'settled';
  const moved = await transitionRow(tx, achTransferMachine, transfers, row, 'return', {
    returnedAt: now,
    returnCode: reason.code,
    returnReason: reason.title,
    updatedAt: now,
  });
  const from = row.direction === 'credit' ? 'available' : wasSettled ? 'available' : 'pending';
  const sign = row.direction === 'credit' ? 1n : -1n;
  await post(tx, {
    ...common(row, now),
    type: 'transfer_return',
    relatedId: row.holdId,
    entries: [
      { account: 'bank_rails', amount: -sign * row.amount },
      { account: from, amount: sign * row.amount },
    ],
    ...(sign < 0n ? { allowNegative: [from] } : {}),
  });
  await emit(tx, moved);
  return moved;
}

/** pending → canceled (ACH before submission): a credit's hold is released. */
async function cancel(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  assertAch(row, 'cancel');
  const now = ctx.clock.now();
  const moved = await transitionRow(tx, achTransferMachine, transfers, row, 'cancel', { updatedAt: now });
  if (row.holdId) await voidHold(tx, row.merchantId, row.holdId, now);
  await emit(tx, moved);
  return moved;
}

/** RTP: the receiving bank's answer, seconds after the credit was sent. */
async function answerRtp(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  const now = ctx.clock.now();
  const holdId = row.holdId as string;
  if (row.outcome === 'rejected') {
    const code = (row.outcomeCode ?? 'AC03') as keyof typeof RTP_REJECT_REASONS;
    const moved = await transitionRow(tx, rtpTransferMachine, transfers, row, 'reject', {
      failureReason: `${code}: ${RTP_REJECT_REASONS[code]}`,
      updatedAt: now,
    });
    await voidHold(tx, row.merchantId, holdId, now);
    await emit(tx, moved);
    return moved;
  }
  const moved = await transitionRow(tx, rtpTransferMachine, transfers, row, 'complete', {
    submittedAt: row.createdAt,
    settledAt: now,
    updatedAt: now,
  });
  await postHold(tx, row.merchantId, holdId, now, 'bank_rails');
  await emit(tx, moved);
  return moved;
}

/** A step requested through the API (simulate/… or cancel), in a transaction of its own. */
function step(
  ctx: ServiceContext,
  id: string,
  work: (tx: Tx, row: TransferRow) => Promise<TransferRow>,
): Promise<TransferRow> {
  return inTransaction(ctx.db, ctx.tx, async (tx) => work(tx, await loadTransfer(tx, ctx.merchant.id, id)));
}

export const cancelTransfer = (ctx: ServiceContext, id: string) =>
  step(ctx, id, (tx, row) => cancel(tx, ctx, row));
export const simulateSubmit = (ctx: ServiceContext, id: string) =>
  step(ctx, id, (tx, row) => submit(tx, ctx, row));
export const simulateSettle = (ctx: ServiceContext, id: string) =>
  step(ctx, id, (tx, row) => settle(tx, ctx, row));

/** `POST /v1/simulate/transfers/{id}/return {code?}`: R01 for a debit, R03 for a credit by default. */
export function simulateReturn(ctx: ServiceContext, id: string, raw: unknown): Promise<TransferRow> {
  const input = parseInput(returnTransferSchema, raw ?? {});
  return step(ctx, id, (tx, row) =>
    returnEntry(tx, ctx, row, input.code ?? (row.direction === 'debit' ? 'R01' : 'R03')),
  );
}

// ---------------------------------------------------------------------------------------------
// Due work: the rail moving the transfer on as the clock passes. A step already taken through the
// API leaves the job nothing to do.

async function dueStep(
  ctx: Ctx,
  job: JobRow,
  from: string,
  work: (tx: Tx, row: TransferRow) => Promise<TransferRow>,
): Promise<void> {
  // Locked, so a step racing through the API waits for this one (or this one sees its result)
  // instead of making the job fail on a compare-and-set it lost.
  const [row] = await ctx.tx
    .select()
    .from(transfers)
    .where(and(eq(transfers.id, job.objectId), eq(transfers.merchantId, ctx.merchant.id)))
    .for('update');
  if (row?.state === from) await work(ctx.tx, row);
}

export const submitTransferJob = (ctx: Ctx, job: JobRow) =>
  dueStep(ctx, job, 'pending', (tx, row) => submit(tx, ctx, row));
export const settleTransferJob = (ctx: Ctx, job: JobRow) =>
  dueStep(ctx, job, 'submitted', (tx, row) => settle(tx, ctx, row));
export const returnTransferJob = (ctx: Ctx, job: JobRow) =>
  dueStep(ctx, job, 'settled', (tx, row) => returnEntry(tx, ctx, row, row.outcomeCode ?? 'R01'));
export const answerRtpJob = (ctx: Ctx, job: JobRow) =>
  dueStep(ctx, job, 'pending', (tx, row) => answerRtp(tx, ctx, row));
