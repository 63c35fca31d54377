import { and, eq, sql } from 'drizzle-orm';
import { type Executor, queryRows, type Tx } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import { objectEvent } from '../../db/outbox.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { type StatefulKind, step } from '../../db/step.ts';
import { FixedClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { amountsOf, windowOf } from './reconciliation.input.ts';
import {
  type ExpectedPaymentEvent,
  type ExpectedPaymentState,
  expectedPaymentMachine,
} from './reconciliation.machine.ts';
import { type Movement, matchMovements } from './reconciliation.match.ts';
import { expectedPaymentResource } from './reconciliation.resource.ts';
import type { CreateExpectedPaymentInput } from './reconciliation.schema.ts';
import {
  type ExpectedPaymentRow,
  expectedPaymentMatches,
  expectedPayments,
  type MatchRecord,
} from './reconciliation.table.ts';

export const expectedPaymentKind: StatefulKind<
  ExpectedPaymentRow,
  ExpectedPaymentState,
  ExpectedPaymentEvent
> = {
  machine: expectedPaymentMachine,
  table: expectedPayments,
  event: (row) => objectEvent(row, `expected_payment.${row.state}`, expectedPaymentResource(row)),
};

/** POST /v1/expected_payments: money the merchant expects, matched from now on. */
export async function createExpectedPayment(
  ctx: ServiceContext,
  input: CreateExpectedPaymentInput,
): Promise<ExpectedPaymentRow> {
  const now = ctx.clock.now();
  const { min, max } = amountsOf(input);
  const window = windowOf(input, now);
  const row: ExpectedPaymentRow = {
    id: newId('expectedPayment'),
    merchantId: ctx.merchant.id,
    direction: input.direction,
    rail: input.rail ?? null,
    currency: 'USD',
    amountMin: min,
    amountMax: max,
    dateFrom: window.from,
    dateTo: window.to,
    windowStart: window.start,
    windowEnd: window.end,
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    state: 'unmatched',
    amountMatched: 0n,
    matches: [],
    matchedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await commit(
    ctx,
    change()
      .insert(expectedPayments, row)
      .event(objectEvent(row, 'expected_payment.created', expectedPaymentResource(row))),
  );
  await reconcile(ctx);
  return getExpectedPayment(ctx, row.id);
}

interface MovementRow {
  id: string;
  source_type: string;
  source_id: string;
  amount: string;
  created_at: string | Date;
  rail: string | null;
  reference: string | null;
  description: string | null;
}

/** The merchant's bank movements in a window, of one direction, that no expected payment took. */
async function movementsFor(tx: Executor, row: ExpectedPaymentRow, until: Date): Promise<Movement[]> {
  const end = new Date(Math.min(row.windowEnd.getTime(), until.getTime() + 1));
  const sign = row.direction === 'credit' ? sql`> 0` : sql`< 0`;
  const rows = await queryRows<MovementRow>(
    tx,
    sql`SELECT p.id, p.source_type, p.source_id, abs(p.available_delta + p.pending_delta + p.reserved_delta)::text AS amount,
      p.created_at, COALESCE(t.rail, i.rail) AS rail, COALESCE(t.reference, i.reference) AS reference,
      COALESCE(t.description, i.description, p.description) AS description
    FROM ledger_postings p
    LEFT JOIN transfers t ON t.id = p.source_id AND p.source_type IN ('transfer', 'payout')
    LEFT JOIN inbound_transfers i ON i.id = p.source_id AND p.source_type = 'inbound_transfer'
    LEFT JOIN expected_payment_matches x ON x.posting_id = p.id
    WHERE p.merchant_id = ${row.merchantId} AND p.currency = ${row.currency}
      AND p.source_type IN ('transfer', 'payout', 'inbound_transfer')
      AND p.type NOT LIKE '%return%'
      AND p.created_at >= ${row.windowStart.toISOString()}::timestamptz AND p.created_at < ${end.toISOString()}::timestamptz
      AND p.available_delta + p.pending_delta + p.reserved_delta ${sign}
      AND x.posting_id IS NULL
    ORDER BY p.created_at, p.id`,
  );
  return rows.map((r) => ({
    postingId: r.id,
    sourceType: r.source_type,
    sourceId: r.source_id,
    amount: BigInt(r.amount),
    bookedAt: new Date(r.created_at),
    rail: r.rail,
    reference: r.reference,
    description: r.description,
  }));
}

/** One open expected payment against the movements so far: matched, partly matched, or overdue. */
async function reconcileOne(
  tx: Tx,
  ctx: ServiceContext,
  row: ExpectedPaymentRow,
  until: Date,
): Promise<void> {
  const outcome = matchMovements(row, await movementsFor(tx, row, until));
  let current = row;
  if (outcome.taken.length > 0) {
    await tx.insert(expectedPaymentMatches).values(
      outcome.taken.map((m) => ({
        postingId: m.postingId,
        merchantId: row.merchantId,
        expectedPaymentId: row.id,
      })),
    );
    const last = outcome.taken.at(-1) as Movement;
    const matches: MatchRecord[] = [
      ...row.matches,
      ...outcome.taken.map((m) => ({
        posting_id: m.postingId,
        source_type: m.sourceType,
        source_id: m.sourceId,
        amount: m.amount.toString(),
        booked_at: m.bookedAt.toISOString(),
      })),
    ];
    // A movement booked before the expected payment was created matches it as of its creation.
    const when = new Date(Math.max(last.bookedAt.getTime(), row.updatedAt.getTime()));
    const at = { clock: new FixedClock(when), publicUrl: ctx.publicUrl };
    current = await step(
      tx,
      at,
      expectedPaymentKind,
      row,
      outcome.state === 'matched' ? 'match' : 'match_part',
      {
        amountMatched: outcome.total,
        matches,
        ...(outcome.state === 'matched' ? { matchedAt: when } : {}),
      },
    );
  }
  if (current.state !== 'matched' && current.windowEnd.getTime() <= until.getTime()) {
    const at = { clock: new FixedClock(current.windowEnd), publicUrl: ctx.publicUrl };
    await step(tx, at, expectedPaymentKind, current, 'lapse');
  }
}

/**
 * Matches the merchant's open expected payments against the bank movements booked up to `until`,
 * and marks overdue those whose window has ended: after each clock advance, and before expected
 * payments are created or read. Each change is an event dated when it happened (the movement's
 * booking, the window's end).
 */
export async function reconcile(ctx: ServiceContext, until: Date = ctx.clock.now()): Promise<void> {
  await inContextTx(ctx, async (tx) => {
    // One reconciliation of a merchant at a time: two that lock different open rows would otherwise
    // both find a movement free and race to take it.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`reconcile:${ctx.merchant.id}`}))`);
    const open = await tx
      .select()
      .from(expectedPayments)
      .where(
        and(
          eq(expectedPayments.merchantId, ctx.merchant.id),
          sql`${expectedPayments.state} IN ('unmatched', 'partially_matched')`,
        ),
      )
      .orderBy(expectedPayments.createdAt, expectedPayments.id)
      .for('update');
    for (const row of open) await reconcileOne(tx, ctx, row, until);
  });
}

export async function getExpectedPayment(ctx: ServiceContext, id: string): Promise<ExpectedPaymentRow> {
  const [row] = await dbOf(ctx)
    .select()
    .from(expectedPayments)
    .where(and(eq(expectedPayments.id, id), eq(expectedPayments.merchantId, ctx.merchant.id)));
  if (!row)
    throw new SandbankError('resource_not_found', { message: `No expected payment ${id.slice(0, 60)}.` });
  return row;
}

export async function readExpectedPayment(ctx: ServiceContext, id: string): Promise<ExpectedPaymentRow> {
  await reconcile(ctx);
  return getExpectedPayment(ctx, id);
}

export async function listExpectedPayments(
  ctx: ServiceContext,
  query: ListQuery & { state?: ExpectedPaymentState | undefined },
): Promise<Page<ExpectedPaymentRow>> {
  await reconcile(ctx);
  return merchantPage(ctx, expectedPayments, query, [
    query.state ? eq(expectedPayments.state, query.state) : undefined,
  ]);
}

export function expectedPaymentsByIds(ctx: ServiceContext, ids: string[]): Promise<ExpectedPaymentRow[]> {
  return merchantRowsByIds<ExpectedPaymentRow>(ctx, expectedPayments, ids);
}

/** POST /v1/expected_payments/{id}/cancel: no longer expected (unmatched or partly matched only). */
export async function cancelExpectedPayment(ctx: ServiceContext, id: string): Promise<ExpectedPaymentRow> {
  await reconcile(ctx);
  return inContextTx(ctx, async (tx) => {
    const row = await getExpectedPayment({ ...ctx, tx }, id);
    return step(tx, ctx, expectedPaymentKind, row, 'cancel');
  });
}
