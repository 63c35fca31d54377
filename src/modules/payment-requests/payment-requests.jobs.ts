import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { step } from '../../db/step.ts';
import { addSeconds } from '../../kernel/clock.ts';
import { formatDecimal } from '../../kernel/money.ts';
import { canTransition } from '../../kernel/state-machine.ts';
import type { ServiceContext } from '../context.ts';
import { createInboundTransfer } from '../inbound-transfers/inbound-transfers.service.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import { decodeBehavior, RFP_PAY_SECONDS } from './payment-requests.rules.ts';
import { RFP_PAY_JOB, rejectRequest, requestKind } from './payment-requests.service.ts';
import { type PaymentRequestRow, paymentRequests } from './payment-requests.table.ts';

type Ctx = ServiceContext & { tx: Tx };

// The payer's side of an outbound request, as the clock passes, and every request's expiry. A step
// already taken through the API leaves the job nothing to do.

async function locked(ctx: Ctx, job: JobRow): Promise<PaymentRequestRow | null> {
  const [row] = await ctx.tx
    .select()
    .from(paymentRequests)
    .where(and(eq(paymentRequests.id, job.objectId), eq(paymentRequests.merchantId, ctx.merchant.id)))
    .for('update');
  return row ?? null;
}

/** Whether the request is past its expiry (the expiry job wins over an answer or a payment due at the same instant). */
const lapsed = (ctx: Ctx, row: PaymentRequestRow) => ctx.clock.now().getTime() >= row.expiresAt.getTime();

/** The payer's bank answers (pain.014): rejects with its reason, or accepts (and pays a minute later). */
export async function answerRequestJob(ctx: Ctx, job: JobRow): Promise<void> {
  const row = await locked(ctx, job);
  if (row?.state !== 'pending' || lapsed(ctx, row)) return;
  const behavior = decodeBehavior(row.behavior);
  if (behavior.kind === 'rejects') {
    await rejectRequest(ctx.tx, ctx, row, behavior.code);
    return;
  }
  const now = ctx.clock.now();
  await step(ctx.tx, ctx, requestKind, row, 'accept', { respondedAt: now, updatedAt: now });
  if (behavior.kind === 'pays')
    await scheduleJob(ctx.tx, {
      merchantId: row.merchantId,
      kind: RFP_PAY_JOB,
      objectId: row.id,
      dueAt: addSeconds(now, RFP_PAY_SECONDS),
      createdAt: now,
    });
}

/**
 * The payer pays an accepted request: its credit transfer arrives on the request's rail (an inbound
 * transfer, completed, its money available) and the request is paid, naming it.
 */
export async function payRequestJob(ctx: Ctx, job: JobRow): Promise<void> {
  const row = await locked(ctx, job);
  if (!row || !canTransition(requestKind.machine, row.state, 'pay') || lapsed(ctx, row)) return;
  const arrived = await createInboundTransfer(ctx, {
    rail: row.rail as 'rtp' | 'fednow',
    direction: 'credit',
    amount: formatDecimal(row.amount, 'USD'),
    currency: 'USD',
    originator: {
      name: row.counterpartyName,
      routing_number: row.routingNumber,
      account_number: `0000${row.accountLast4}`,
      account_type: 'checking',
    },
    reference: row.reference ?? undefined,
    description: `Pays request for payment ${row.id}`,
    metadata: { payment_request: row.id },
  });
  const now = ctx.clock.now();
  await step(ctx.tx, ctx, requestKind, row, 'pay', { paidAt: now, transferId: arrived.id, updatedAt: now });
}

/** A request unpaid at its expiry lapses. */
export async function expireRequestJob(ctx: Ctx, job: JobRow): Promise<void> {
  const row = await locked(ctx, job);
  if (row && canTransition(requestKind.machine, row.state, 'expire'))
    await step(ctx.tx, ctx, requestKind, row, 'expire');
}
