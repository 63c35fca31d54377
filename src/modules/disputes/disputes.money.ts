import type { Change } from '../../db/commit.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import type { ServiceContext } from '../context.ts';
import { ledgerPostingsEffect } from '../ledger/ledger.post.ts';
import type { PostingInput } from '../ledger/ledger.rows.ts';
import { preparePosting } from '../ledger/ledger.statement.ts';
import { jobValues } from '../scheduler/scheduler.service.ts';
import type { DisputeRow } from './disputes.resource.ts';
import { DISPUTE_DUE_JOB } from './disputes.rows.ts';

/** What a dispute's postings share: its merchant, currency and source, the payment, now. */
function common(ctx: ServiceContext, row: DisputeRow) {
  return {
    merchantId: row.merchantId,
    currency: row.currency as CurrencyCode,
    source: { type: 'dispute', id: row.id },
    relatedId: row.cardPaymentId,
    at: ctx.clock.now(),
  };
}

function postAll(work: Change, postings: PostingInput[]): Change {
  for (const posting of postings) work.effect(ledgerPostingsEffect, preparePosting(posting));
  return work;
}

/**
 * Adds the chargeback's debit to a change: the amount, then the fee, out of available (it may go
 * below zero) to the network.
 */
export function withDebit(work: Change, ctx: ServiceContext, row: DisputeRow, fee: bigint): Change {
  const base = { ...common(ctx, row), allowNegative: ['available'] as const };
  const postings: PostingInput[] = [
    {
      ...base,
      type: 'dispute',
      description: `Chargeback of ${row.cardPaymentId}`,
      entries: [
        { account: 'available', amount: -row.amount },
        { account: 'card_network', amount: row.amount },
      ],
    },
  ];
  if (fee > 0n)
    postings.push({
      ...base,
      type: 'dispute_fee',
      description: 'Dispute fee',
      entries: [
        { account: 'available', amount: -fee },
        { account: 'card_network', amount: fee },
      ],
    });
  return postAll(work, postings);
}

/**
 * Adds a won dispute's credit to a change: the disputed amount and the fee come back to available
 * (as Stripe's test mode credits both).
 */
export function withWon(work: Change, ctx: ServiceContext, row: DisputeRow): Change {
  const base = common(ctx, row);
  const postings: PostingInput[] = [
    {
      ...base,
      type: 'dispute_won',
      description: `Dispute won: ${row.cardPaymentId}`,
      entries: [
        { account: 'card_network', amount: -row.amount },
        { account: 'available', amount: row.amount },
      ],
    },
  ];
  if (row.fee > 0n)
    postings.push({
      ...base,
      type: 'dispute_fee_returned',
      description: 'Dispute fee returned',
      entries: [
        { account: 'card_network', amount: -row.fee },
        { account: 'available', amount: row.fee },
      ],
    });
  return postAll(work, postings);
}

/** Adds to a change the job that decides a dispute at its evidence due date. */
export function withDueJob(work: Change, ctx: ServiceContext, row: DisputeRow): Change {
  return work.job(
    jobValues({
      merchantId: row.merchantId,
      kind: DISPUTE_DUE_JOB,
      objectId: row.id,
      dueAt: row.evidenceDueBy,
      createdAt: ctx.clock.now(),
    }),
  );
}
