import { sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { insertRecordsSql } from '../../db/json-records.ts';
import { addBankingDays, nyDateOf, nyInstant } from '../../kernel/calendar.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import type { ServiceContext } from '../context.ts';
import { type JobRow, jobValues } from '../scheduler/scheduler.service.ts';
import { scheduledJobs } from '../scheduler/scheduler.table.ts';
import type { SystemAccount } from './ledger.accounts.ts';
import { type PostingsStatement, postMany, postManySql } from './ledger.batch.ts';
import { postFundsAvailable, postPendingCredit } from './ledger.post.ts';
import type { PostingInput } from './ledger.rows.ts';

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
  const credit = { ...input, merchantId: ctx.merchant.id, at };
  const posting = await postPendingCredit(tx, credit);
  await tx.insert(scheduledJobs).values(releaseJobValues(credit, posting.id));
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

/** creditPendingFunds for a batch (a group commit): the postings in bulk, the release jobs in one insert. */
export async function creditPendingFundsMany(tx: Tx, credits: PendingCredit[]): Promise<void> {
  if (credits.length === 0) return;
  const postings = await postMany(tx, credits.map(pendingCreditPosting));
  await tx
    .insert(scheduledJobs)
    .values(credits.map((credit, i) => releaseJobValues(credit, postings[i]!.id)));
}

/**
 * creditPendingFundsMany as parts of one statement (postManySql): the postings, and their release
 * jobs in a `ledger_release_jobs` CTE written only when the postings are (`ready`).
 */
export function creditPendingFundsSql(credits: PendingCredit[]): PostingsStatement {
  const statement = postManySql(credits.map(pendingCreditPosting));
  const jobs = credits.map((credit, i) => releaseJobValues(credit, statement.postings[i]!.id));
  return {
    ...statement,
    ctes: sql`${statement.ctes}, ledger_release_jobs AS (
      ${insertRecordsSql(scheduledJobs, jobs, statement.ready)}
    )`,
  };
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
