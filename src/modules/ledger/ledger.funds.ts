import type { Tx } from '../../db/client.ts';
import { type Change, change, commit } from '../../db/commit.ts';
import { addBankingDays, nyDateOf, nyInstant } from '../../kernel/calendar.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import type { ServiceContext } from '../context.ts';
import { type JobRow, jobValues } from '../scheduler/scheduler.service.ts';
import type { SystemAccount } from './ledger.accounts.ts';
import { ledgerPostingsEffect, postFundsAvailable } from './ledger.post.ts';
import type { PostingInput } from './ledger.rows.ts';
import { preparePosting } from './ledger.statement.ts';

export const FUNDS_AVAILABLE_JOB = 'ledger.funds_available';

/** fundsAvailableAt's last answer: a burst of payments on one day asks the same question. */
let lastAvailability: { key: string; at: Date } | null = null;

/** Card funds become available at the start (00:00 ET) of the second banking day after the payment. */
export function fundsAvailableAt(paidAt: Date, bankingDays = 2): Date {
  const key = `${nyDateOf(paidAt)}+${bankingDays}`;
  if (lastAvailability?.key !== key) {
    const at = nyInstant(addBankingDays(nyDateOf(paidAt), bankingDays), '00:00');
    lastAvailability = { key, at };
  }
  return new Date(lastAvailability.at);
}

/**
 * Credits money received into `pending` and schedules its move to `available`, in the caller's
 * transaction: the credit and the promise to release it commit together.
 */
export function creditPendingFunds(
  tx: Tx,
  ctx: ServiceContext,
  input: Omit<PendingCredit, 'merchantId' | 'at'>,
): Promise<void> {
  const credit = { ...input, merchantId: ctx.merchant.id, at: ctx.clock.now() };
  return commit({ db: ctx.db, tx }, creditPending(change(), credit));
}

/** Adds to a change a credit into `pending` and the job that makes it available on time. */
export function creditPending(work: Change, credit: PendingCredit): Change {
  const posting = preparePosting(pendingCreditPosting(credit));
  return work.effect(ledgerPostingsEffect, posting).job(releaseJobValues(credit, posting.row.id));
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

function pendingCreditPosting(credit: PendingCredit): PostingInput {
  return {
    merchantId: credit.merchantId,
    currency: credit.currency,
    type: credit.type,
    source: credit.source,
    at: credit.at,
    entries: [
      { account: credit.from, amount: -credit.amount },
      { account: 'pending', amount: credit.amount },
    ],
  };
}

/** The job that makes a pending credit available, as a scheduled_jobs row. */
function releaseJobValues(credit: Omit<PendingCredit, 'type' | 'from'>, postingId: string) {
  return jobValues({
    merchantId: credit.merchantId,
    kind: FUNDS_AVAILABLE_JOB,
    objectId: postingId,
    payload: {
      amount: credit.amount.toString(),
      currency: credit.currency,
      sourceType: credit.source.type,
      sourceId: credit.source.id,
    },
    dueAt: fundsAvailableAt(credit.at),
    createdAt: credit.at,
  });
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
