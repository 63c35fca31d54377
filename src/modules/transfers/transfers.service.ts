import { and, desc, eq, lt } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { transitionRow } from '../../db/compare-and-set.ts';
import { inTransaction } from '../../db/tx.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { formatDecimal, parseAmount } from '../../kernel/money.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { canTransition } from '../../kernel/state-machine.ts';
import { parseInput } from '../../kernel/validation.ts';
import { type BankAccount, validateBankAccount } from '../bank-accounts/bank-account.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/events.service.ts';
import { placeHold, postHold, voidHold } from '../ledger/ledger.holds.ts';
import { post, postFundsAvailable, postPendingCredit } from '../ledger/ledger.post.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import {
  type AchMachine,
  type AchTransferEvent,
  achMachineOf,
  type EntryKind,
  rtpMachineOf,
} from './transfers.machine.ts';
import {
  achReturnReason,
  achTimeline,
  type Direction,
  RAIL_LIMIT_MINOR,
  type Rail,
  type RailOutcome,
  RTP_REJECT_REASONS,
  railOutcome,
  returnArrivesAt,
  rtpCompletesAt,
} from './transfers.rails.ts';
import { railEntryResource, type TransferRow } from './transfers.resource.ts';
import {
  createPayoutSchema,
  createTransferFieldCodes,
  createTransferSchema,
  returnTransferSchema,
} from './transfers.schema.ts';
import { transfers } from './transfers.table.ts';

/** Due work that moves a transfer or payout along the rail's timeline (payload: none; the row says what). */
export const TRANSFER_SUBMIT_JOB = 'transfer.submit';
export const TRANSFER_SETTLE_JOB = 'transfer.settle';
export const TRANSFER_RETURN_JOB = 'transfer.return';
export const TRANSFER_RTP_JOB = 'transfer.rtp_answer';

type Ctx = ServiceContext & { tx: Tx };

// ---------------------------------------------------------------------------------------------
// Reads

async function loadEntry(
  exec: Executor,
  merchantId: string,
  kind: EntryKind,
  id: string,
): Promise<TransferRow> {
  const [row] = id.includes('\u0000')
    ? []
    : await exec
        .select()
        .from(transfers)
        .where(and(eq(transfers.id, id), eq(transfers.merchantId, merchantId), eq(transfers.kind, kind)));
  if (!row) throw new SandbankError('resource_not_found', { message: `No ${kind} ${id.slice(0, 60)}.` });
  return row;
}

export function getTransfer(ctx: ServiceContext, id: string): Promise<TransferRow> {
  return loadEntry(ctx.tx ?? ctx.db, ctx.merchant.id, 'transfer', id);
}

export function getPayout(ctx: ServiceContext, id: string): Promise<TransferRow> {
  return loadEntry(ctx.tx ?? ctx.db, ctx.merchant.id, 'payout', id);
}

async function listEntries(
  ctx: ServiceContext,
  kind: EntryKind,
  query: ListQuery & { rail?: Rail | undefined; state?: string | undefined },
): Promise<Page<TransferRow>> {
  const conditions = [eq(transfers.merchantId, ctx.merchant.id), eq(transfers.kind, kind)];
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

export const listTransfers = (
  ctx: ServiceContext,
  query: ListQuery & { rail?: Rail | undefined; state?: string | undefined },
) => listEntries(ctx, 'transfer', query);

export const listPayouts = (
  ctx: ServiceContext,
  query: ListQuery & { method?: Rail | undefined; state?: string | undefined },
) => listEntries(ctx, 'payout', { ...query, rail: query.method });

/** The ACH debits that pay a collection (its checkout's bank-account payments), newest first. */
export function debitsOfCollection(exec: Executor, merchantId: string, collectionId: string) {
  return exec
    .select()
    .from(transfers)
    .where(and(eq(transfers.collectionId, collectionId), eq(transfers.merchantId, merchantId)))
    .orderBy(desc(transfers.id));
}

// ---------------------------------------------------------------------------------------------
// Create

/** What an entry is, once its request is parsed: the one shape transfers, payouts and a checkout's debit share. */
interface EntrySpec {
  kind: EntryKind;
  rail: Rail;
  direction: Direction;
  amount: bigint;
  currency: CurrencyCode;
  account: BankAccount;
  name: string;
  secCode: string | null;
  collectionId?: string;
  reference: string | null;
  description: string | null;
  metadata: Record<string, string>;
}

/** The request's names of the rail and the account (errors point at them). */
interface SpecParams {
  rail: string;
  account: string;
}

/** Rail rules that need the whole request: RTP is credit-only, per-rail limits, reachable routing. */
function checkRailRules(spec: EntrySpec, params: SpecParams): RailOutcome {
  if (spec.rail === 'rtp' && spec.direction === 'debit') {
    throw new SandbankError('rail_direction_unsupported', { param: 'direction' });
  }
  if (spec.amount > RAIL_LIMIT_MINOR[spec.rail]) {
    throw new SandbankError('amount_exceeds_rail_limit', {
      param: 'amount',
      message: `The amount is over the ${spec.rail} limit of ${formatDecimal(RAIL_LIMIT_MINOR[spec.rail], 'USD')} USD per entry.`,
    });
  }
  const outcome = railOutcome({
    rail: spec.rail,
    direction: spec.direction,
    routingNumber: spec.account.routingNumber,
    accountNumber: spec.account.accountNumber,
  });
  if (outcome.kind === 'unreachable') {
    throw new SandbankError('routing_number_unreachable', {
      param: `${params.account}.routing_number`,
      message: `Routing number ${spec.account.routingNumber} is not reachable over ACH.`,
    });
  }
  return outcome;
}

/**
 * Writes a checked entry in the caller's transaction: the row, a credit's hold on the available
 * balance (422 insufficient_balance when short: the caller's transaction then writes nothing), its
 * `created` event and the first due work of its rail.
 */
async function insertEntry(tx: Tx, ctx: ServiceContext, spec: EntrySpec, outcome: RailOutcome) {
  const now = ctx.clock.now();
  const id = newId(spec.kind);
  const timeline = spec.rail === 'rtp' ? null : achTimeline(spec.rail, now);
  const values: TransferRow = {
    id,
    merchantId: ctx.merchant.id,
    kind: spec.kind,
    rail: spec.rail,
    direction: spec.direction,
    state: 'pending',
    amount: spec.amount,
    currency: spec.currency,
    counterpartyName: spec.name,
    routingNumber: spec.account.routingNumber,
    accountLast4: spec.account.last4,
    accountType: spec.account.accountType,
    secCode: spec.secCode,
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
    collectionId: spec.collectionId ?? null,
    reference: spec.reference,
    description: spec.description,
    metadata: spec.metadata,
    createdAt: now,
    updatedAt: now,
  };
  if (spec.direction === 'credit') {
    const hold = await placeHold(tx, {
      merchantId: ctx.merchant.id,
      currency: spec.currency,
      amount: spec.amount,
      type: spec.kind,
      source: { type: spec.kind, id },
      at: now,
    });
    values.holdId = hold.id;
  }
  const [row] = await tx.insert(transfers).values(values).returning();
  if (!row) throw new Error('transfer insert returned no row');
  await emit(tx, row, 'created');
  await scheduleJob(tx, {
    merchantId: row.merchantId,
    kind: spec.rail === 'rtp' ? TRANSFER_RTP_JOB : TRANSFER_SUBMIT_JOB,
    objectId: row.id,
    dueAt: spec.rail === 'rtp' ? (row.expectedSettlementAt as Date) : (row.expectedSubmissionAt as Date),
    createdAt: now,
  });
  return row;
}

/** Checks everything before writing (400s change nothing), then writes in one transaction. */
function createEntry(ctx: ServiceContext, spec: EntrySpec, params: SpecParams): Promise<TransferRow> {
  const outcome = checkRailRules(spec, params);
  return inTransaction(ctx.db, ctx.tx, (tx) => insertEntry(tx, ctx, spec, outcome));
}

/** POST /v1/transfers: a credit sends money (held from available at once), a debit pulls it. */
export function createTransfer(ctx: ServiceContext, raw: unknown): Promise<TransferRow> {
  const input = parseInput(createTransferSchema, raw, createTransferFieldCodes);
  if (input.rail === 'rtp' && input.sec_code !== undefined) {
    throw new SandbankError('parameter_invalid', { param: 'sec_code', message: 'sec_code is for ACH only.' });
  }
  const spec: EntrySpec = {
    kind: 'transfer',
    rail: input.rail,
    direction: input.direction,
    amount: parseAmount(input.amount, input.currency),
    currency: input.currency,
    account: validateBankAccount(input.counterparty, 'counterparty'),
    name: input.counterparty.name,
    secCode: input.rail === 'rtp' ? null : (input.sec_code ?? 'CCD'),
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
  };
  return createEntry(ctx, spec, { rail: 'rail', account: 'counterparty' });
}

/**
 * POST /v1/payouts: the merchant's available USD to its own bank account, as a credit on the
 * chosen rail (CCD for ACH: a business's own account).
 */
export function createPayout(ctx: ServiceContext, raw: unknown): Promise<TransferRow> {
  const input = parseInput(createPayoutSchema, raw, createTransferFieldCodes);
  const spec: EntrySpec = {
    kind: 'payout',
    rail: input.method,
    direction: 'credit',
    amount: parseAmount(input.amount, input.currency),
    currency: input.currency,
    account: validateBankAccount(input.destination, 'destination'),
    name: input.destination.name,
    secCode: input.method === 'rtp' ? null : 'CCD',
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
  };
  return createEntry(ctx, spec, { rail: 'method', account: 'destination' });
}

/**
 * A checkout paid by bank account (collections.pay.ts): a standard ACH debit of the payer's account
 * (SEC code WEB, an internet-authorized consumer debit), written in the caller's transaction. The
 * collection follows it through the hooks of onCollectionDebit.
 */
export function createCollectionDebit(
  tx: Tx,
  ctx: ServiceContext,
  collection: { id: string; reference: string; amount: bigint; currency: string },
  account: BankAccount,
): Promise<TransferRow> {
  const spec: EntrySpec = {
    kind: 'transfer',
    rail: 'ach',
    direction: 'debit',
    amount: collection.amount,
    currency: collection.currency as CurrencyCode,
    account,
    name: account.name ?? 'Checkout payer',
    secCode: 'WEB',
    collectionId: collection.id,
    reference: collection.reference,
    description: `Checkout payment of collection ${collection.reference}`,
    metadata: {},
  };
  return insertEntry(tx, ctx, spec, checkRailRules(spec, { rail: 'method', account: 'bank_account' }));
}

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

// ---------------------------------------------------------------------------------------------
// Steps. Each kind names its states its own way (transfers.machine.ts); the engine moves every
// entry with the same events, so a payout is `in_transit` where a transfer is `submitted`.

function emit(tx: Tx, row: TransferRow, type: string = row.state): Promise<string> {
  return recordEvent(tx, {
    merchantId: row.merchantId,
    type: `${row.kind}.${type}`,
    objectId: row.id,
    data: { object: railEntryResource(row) },
    at: row.updatedAt,
  });
}

const kindOf = (row: TransferRow) => row.kind as EntryKind;

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
async function submit(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
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
async function settle(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
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
async function returnEntry(
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
async function answerRtp(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
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

/** A step requested through the API (simulate/… or cancel), in a transaction of its own. */
function step(
  ctx: ServiceContext,
  kind: EntryKind,
  id: string,
  work: (tx: Tx, row: TransferRow) => Promise<TransferRow>,
): Promise<TransferRow> {
  return inTransaction(ctx.db, ctx.tx, async (tx) =>
    work(tx, await loadEntry(tx, ctx.merchant.id, kind, id)),
  );
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

// ---------------------------------------------------------------------------------------------
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
      ? canTransition(rtpMachineOf(kindOf(row)), row.state, 'complete')
      : row.rail !== 'rtp' && canTransition(achMachineOf(kindOf(row)), row.state, event);
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
