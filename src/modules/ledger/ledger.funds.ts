import type { Tx } from '../../db/client.ts';
import { addBankingDays, nyDateOf, nyInstant } from '../../kernel/calendar.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { newId } from '../../kernel/ids.ts';
import type { ServiceContext } from '../context.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import { scheduledJobs } from '../scheduler/scheduler.table.ts';
import { postFundsAvailable, postMany, postPendingCredit, type SystemAccount } from './ledger.service.ts';

export const FUNDS_AVAILABLE_JOB = 'ledger.funds_available';

/** Card funds become available at the start (00:00 ET) of the second banking day after the payment. */
export function fundsAvailableAt(paidAt: Date, bankingDays = 2): Date {
  return nyInstant(addBankingDays(nyDateOf(paidAt), bankingDays), '00:00');
}

/**
 * Credits money received into `pending` and schedules its move to `available`, in the caller's
 * transaction: the credit and the promise to release it commit together.
 */
export async function creditPendingFunds(
  tx: Tx,
  ctx: ServiceContext,
  input: {
    amount: bigint;
    currency: CurrencyCode;
    source: { type: string; id: string };
    type: string;
    from: SystemAccount;
  },
): Promise<void> {
  const at = ctx.clock.now();
  const posting = await postPendingCredit(tx, { ...input, merchantId: ctx.merchant.id, at });
  await scheduleJob(tx, {
    merchantId: ctx.merchant.id,
    kind: FUNDS_AVAILABLE_JOB,
    objectId: posting.id,
    dueAt: fundsAvailableAt(at),
    payload: {
      amount: input.amount.toString(),
      currency: input.currency,
      sourceType: input.source.type,
      sourceId: input.source.id,
    },
    createdAt: at,
  });
}

export interface PendingCredit {
  merchantId: string;
  amount: bigint;
  currency: CurrencyCode;
  source: { type: string; id: string };
  type: string;
  from: SystemAccount;
  at: Date;
}

/** creditPendingFunds for a batch (a group commit): the postings in bulk, the release jobs in one insert. */
export async function creditPendingFundsMany(tx: Tx, credits: PendingCredit[]): Promise<void> {
  if (credits.length === 0) return;
  const postings = await postMany(
    tx,
    credits.map((credit) => ({
      merchantId: credit.merchantId,
      currency: credit.currency,
      type: credit.type,
      source: credit.source,
      at: credit.at,
      entries: [
        { account: credit.from, amount: -credit.amount },
        { account: 'pending' as const, amount: credit.amount },
      ],
    })),
  );
  await tx.insert(scheduledJobs).values(
    credits.map((credit, i) => ({
      id: newId('job'),
      merchantId: credit.merchantId,
      kind: FUNDS_AVAILABLE_JOB,
      objectId: postings[i]!.id,
      payload: {
        amount: credit.amount.toString(),
        currency: credit.currency,
        sourceType: credit.source.type,
        sourceId: credit.source.id,
      },
      dueAt: fundsAvailableAt(credit.at),
      state: 'pending' as const,
      attempts: 0,
      createdAt: credit.at,
    })),
  );
}

/** The scheduled half: pending → available. */
export async function releasePendingFunds(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const { amount, currency, sourceType, sourceId } = job.payload;
  if (!amount || !currency || !sourceType || !sourceId)
    throw new Error(`job ${job.id} has an incomplete payload`);
  await postFundsAvailable(ctx.tx, {
    merchantId: ctx.merchant.id,
    currency: currency as CurrencyCode,
    amount: BigInt(amount),
    source: { type: sourceType, id: sourceId },
    relatedId: job.objectId,
    at: ctx.clock.now(),
  });
}
