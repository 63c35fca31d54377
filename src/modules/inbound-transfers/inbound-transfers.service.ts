import { and, eq } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import { jsonbOrdered } from '../../db/json-records.ts';
import { objectEvent } from '../../db/outbox.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { type StatefulKind, step } from '../../db/step.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { formatDecimal, parseAmount } from '../../kernel/money.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { canTransition, isStateOf, transition } from '../../kernel/state-machine.ts';
import { validateBankAccount } from '../bank-accounts/bank-account.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { ledgerPostingsEffect, post, postFundsAvailable } from '../ledger/ledger.post.ts';
import { preparePosting } from '../ledger/ledger.statement.ts';
import { type JobRow, jobValues } from '../scheduler/scheduler.service.ts';
import {
  achTimeline,
  isAchRail,
  isWireRail,
  RAIL_LIMIT_MINOR,
  type Rail,
} from '../transfers/transfers.rails.ts';
import { railName } from '../transfers/transfers.rows.ts';
import {
  achInboundMachine,
  INBOUND_STATES,
  type InboundState,
  instantInboundMachine,
} from './inbound-transfers.machine.ts';
import { inboundTransferResource } from './inbound-transfers.resource.ts';
import { checkInboundReturn } from './inbound-transfers.returns.ts';
import type { CreateInboundTransferInput, ReturnInboundTransferInput } from './inbound-transfers.schema.ts';
import { type InboundTransferRow, inboundTransfers } from './inbound-transfers.table.ts';
import { arrival, INBOUND_WIRE_JOB, inboundWireOmad, inboundWireTiming } from './inbound-transfers.wire.ts';

/** Due work: an inbound ACH entry settles at its window's settlement (payload: none). */
export const INBOUND_SETTLE_JOB = 'inbound_transfer.settle';

export function inboundEvent(
  row: InboundTransferRow,
  _publicUrl: string,
  type = `inbound_transfer.${row.state}`,
) {
  return objectEvent(row, type, inboundTransferResource(row));
}

const achKind: StatefulKind<InboundTransferRow, InboundState, 'settle' | 'return'> = {
  machine: achInboundMachine,
  table: inboundTransfers,
  event: inboundEvent,
};

export const common = (row: InboundTransferRow, at: Date) => ({
  merchantId: row.merchantId,
  currency: row.currency as CurrencyCode,
  source: { type: 'inbound_transfer', id: row.id },
  at,
});

// ---------------------------------------------------------------------------------------------
// Create

/**
 * POST /v1/simulate/inbound_transfers: an outside originator sends (credit) or pulls (debit) money.
 * ACH: the entry travels in the next FedACH window (achTimeline, as an outbound entry made now
 * would); a credit is in `pending` at once and becomes available at settlement; a debit takes the
 * money from `available` at settlement, below zero if it must (the bank pays the debit; the
 * merchant may return it). RTP and FedNow: a credit is available at once (`completed`). One
 * change: the entry, its events, its posting, and (ACH) the job that settles it.
 */
export async function createInboundTransfer(
  ctx: ServiceContext,
  input: CreateInboundTransferInput,
): Promise<InboundTransferRow> {
  const rail: Rail = input.rail;
  // Instant rails and Fedwire carry credits only and complete as they arrive (a wire: at the
  // service's next opening when it is closed).
  const instant = !isAchRail(rail);
  if (instant && input.direction === 'debit') {
    throw new SandbankError('rail_direction_unsupported', { param: 'direction' });
  }
  if (instant && input.sec_code !== undefined) {
    throw new SandbankError('parameter_invalid', { param: 'sec_code', message: 'sec_code is for ACH only.' });
  }
  const amount = parseAmount(input.amount, input.currency);
  if (amount > RAIL_LIMIT_MINOR[rail]) {
    throw new SandbankError('amount_exceeds_rail_limit', {
      param: 'amount',
      message: `The amount is over the ${rail} limit of ${formatDecimal(RAIL_LIMIT_MINOR[rail], 'USD')} USD per entry.`,
    });
  }
  const account = validateBankAccount(input.originator, 'originator');
  const now = ctx.clock.now();
  const timeline = isAchRail(rail) ? achTimeline(rail, now) : null;
  const id = newId('inboundTransfer');
  const wire = isWireRail(rail) ? inboundWireTiming(id, now) : null;
  const values: InboundTransferRow = {
    id,
    merchantId: ctx.merchant.id,
    rail,
    direction: input.direction,
    state: 'pending',
    amount,
    currency: input.currency,
    originatorName: input.originator.name,
    originatorRoutingNumber: account.routingNumber,
    originatorAccountLast4: account.last4,
    secCode: instant ? null : (input.sec_code ?? 'CCD'),
    expectedArrivalAt: timeline?.submitsAt ?? wire?.arrivesAt ?? null,
    expectedSettlementAt: timeline?.settlesAt ?? wire?.arrivesAt ?? null,
    settledAt: null,
    completedAt: null,
    imad: wire?.imad ?? null,
    omad: null,
    returnedAt: null,
    returnCode: null,
    returnReason: null,
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    createdAt: now,
    updatedAt: now,
  };
  const arrivesNow = instant && (wire === null || wire.arrivesAt.getTime() === now.getTime());
  const row = arrivesNow ? completed(values, now) : values;
  const work = change()
    .insert(inboundTransfers, row)
    .event(inboundEvent(values, ctx.publicUrl, 'inbound_transfer.created'));
  // Instant payments settle as they arrive, straight to available; an ACH credit waits in pending.
  if (arrivesNow || values.direction === 'credit') {
    const to = instant ? ('available' as const) : ('pending' as const);
    if (!instant || arrivesNow) work.effect(ledgerPostingsEffect, preparePosting(arrival(values, to, now)));
  }
  if (arrivesNow) work.event(inboundEvent(row, ctx.publicUrl));
  else
    work.job(
      jobValues({
        merchantId: values.merchantId,
        kind: wire ? INBOUND_WIRE_JOB : INBOUND_SETTLE_JOB,
        objectId: values.id,
        dueAt: values.expectedSettlementAt as Date,
        createdAt: now,
      }),
    );
  await commit(ctx, work);
  return row;
}

/** An instant entry (or a wire) as it arrives: completed at once; a wire gets its OMAD. */
export function completed(row: InboundTransferRow, now: Date): InboundTransferRow {
  const state = transition(instantInboundMachine, row.state, 'complete');
  const omad = row.imad ? inboundWireOmad(row, now) : null;
  return { ...row, state, metadata: jsonbOrdered(row.metadata), completedAt: now, omad, updatedAt: now };
}

// ---------------------------------------------------------------------------------------------
// Steps

/** pending → settled: a credit's funds become available; a debit takes the money from available. */
async function settle(tx: Tx, ctx: ServiceContext, row: InboundTransferRow): Promise<InboundTransferRow> {
  transition(achKind.machine, instantGuard(row, 'settle').state, 'settle');
  const now = ctx.clock.now();
  if (row.direction === 'credit') {
    await postFundsAvailable(tx, { ...common(row, now), amount: row.amount, relatedId: row.id });
  } else {
    await post(tx, {
      ...common(row, now),
      type: 'inbound_transfer',
      entries: [
        { account: 'available', amount: -row.amount },
        { account: 'bank_rails', amount: row.amount },
      ],
      allowNegative: ['available'],
    });
  }
  return step(tx, ctx, achKind, row, 'settle', { settledAt: now, updatedAt: now });
}

/**
 * settled → returned: the merchant sends the entry back (checkInboundReturn decides the code and
 * the time). A debit's money comes back to available; a credit's leaves available (below zero if it
 * was spent: the receiver's bank gives it back regardless).
 */
async function returnInbound(
  tx: Tx,
  ctx: ServiceContext,
  row: InboundTransferRow,
  code: string,
): Promise<InboundTransferRow> {
  transition(achKind.machine, instantGuard(row, 'return').state, 'return');
  const now = ctx.clock.now();
  const reason = checkInboundReturn(
    {
      direction: row.direction as 'credit' | 'debit',
      secCode: row.secCode,
      settledAt: row.settledAt as Date,
    },
    code,
    now,
  );
  const sign = row.direction === 'debit' ? 1n : -1n;
  await post(tx, {
    ...common(row, now),
    type: 'inbound_transfer_return',
    relatedId: null,
    entries: [
      { account: 'available', amount: sign * row.amount },
      { account: 'bank_rails', amount: -sign * row.amount },
    ],
    ...(sign < 0n ? { allowNegative: ['available'] as const } : {}),
  });
  return step(tx, ctx, achKind, row, 'return', {
    returnedAt: now,
    returnCode: reason.code,
    returnReason: reason.title,
    updatedAt: now,
  });
}

/** 409 on an instant entry: settle and return are steps of ACH entries only. */
function instantGuard(row: InboundTransferRow, event: string): InboundTransferRow {
  if (!isAchRail(row.rail)) {
    throw new SandbankError('invalid_state', {
      message: `This ${railName(row.rail)} inbound transfer is ${row.state}; ${event} is a step of ACH entries only (instant payments and wires are final).`,
    });
  }
  return row;
}

async function loadInbound(
  exec: Executor,
  merchantId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<InboundTransferRow> {
  const query = exec
    .select()
    .from(inboundTransfers)
    .where(and(eq(inboundTransfers.id, id), eq(inboundTransfers.merchantId, merchantId)));
  const [row] = id.includes('\u0000') ? [] : options.lock ? await query.for('update') : await query;
  if (!row)
    throw new SandbankError('resource_not_found', { message: `No inbound transfer ${id.slice(0, 60)}.` });
  return row;
}

function withInbound(
  ctx: ServiceContext,
  id: string,
  work: (tx: Tx, row: InboundTransferRow) => Promise<InboundTransferRow>,
): Promise<InboundTransferRow> {
  return inContextTx(ctx, async (tx) => work(tx, await loadInbound(tx, ctx.merchant.id, id, { lock: true })));
}

/** POST /v1/simulate/inbound_transfers/{id}/settle: settles a pending ACH entry now. */
export const settleInboundTransfer = (ctx: ServiceContext, id: string) =>
  withInbound(ctx, id, (tx, row) => settle(tx, ctx, row));

/** POST /v1/inbound_transfers/{id}/return {code}: the merchant sends a settled ACH entry back. */
export const returnInboundTransfer = (ctx: ServiceContext, id: string, input: ReturnInboundTransferInput) =>
  withInbound(ctx, id, (tx, row) => returnInbound(tx, ctx, row, input.code));

/** The settle job: a step already taken through the API leaves it nothing to do. */
export async function settleInboundJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [row] = await ctx.tx
    .select()
    .from(inboundTransfers)
    .where(and(eq(inboundTransfers.id, job.objectId), eq(inboundTransfers.merchantId, ctx.merchant.id)))
    .for('update');
  if (row && isAchRail(row.rail) && canTransition(achKind.machine, row.state, 'settle')) {
    await settle(ctx.tx, ctx, row);
  }
}

// ---------------------------------------------------------------------------------------------
// Read

export function getInboundTransfer(ctx: ServiceContext, id: string): Promise<InboundTransferRow> {
  return loadInbound(dbOf(ctx), ctx.merchant.id, id);
}

/** The merchant's inbound transfers among `ids` (GraphQL's nodes(ids:)). */
export function inboundTransfersByIds(ctx: ServiceContext, ids: string[]): Promise<InboundTransferRow[]> {
  return merchantRowsByIds<InboundTransferRow>(ctx, inboundTransfers, ids);
}

export async function listInboundTransfers(
  ctx: ServiceContext,
  query: ListQuery & { rail?: Rail | undefined; state?: string | undefined },
): Promise<Page<InboundTransferRow>> {
  const state = query.state || undefined;
  if (state !== undefined && !isStateOf(INBOUND_STATES, state)) return toPage([], query.limit);
  return merchantPage(ctx, inboundTransfers, query, [
    query.rail ? eq(inboundTransfers.rail, query.rail) : undefined,
    state === undefined ? undefined : eq(inboundTransfers.state, state),
  ]);
}
