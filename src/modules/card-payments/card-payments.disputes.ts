import { addSeconds } from '../../kernel/clock.ts';
import { jobValues } from '../scheduler/scheduler.service.ts';
import type { CardPaymentRow } from './card-payments.resource.ts';

/**
 * The job a magic dispute card's capture schedules (…0259, …2685, …1976, …5423): a day of clock
 * time later the dispute opens, or the early fraud warning arrives (its handler is the disputes
 * module's, named in the disputes manifest, disputes/index.ts).
 */
export const MAGIC_DISPUTE_JOB = 'card_payment.magic_dispute';

/** How long after the capture the magic card's dispute or warning arrives: one day of clock time. */
export const MAGIC_DISPUTE_DELAY_SECONDS = 86_400;

/** The job that opens a magic card's dispute a day after `capturedAt`; none for any other card. */
export function magicDisputeJobs(payment: CardPaymentRow, capturedAt: Date) {
  if (payment.disputeBehavior === null) return [];
  return [
    jobValues({
      merchantId: payment.merchantId,
      kind: MAGIC_DISPUTE_JOB,
      objectId: payment.id,
      dueAt: addSeconds(capturedAt, MAGIC_DISPUTE_DELAY_SECONDS),
      payload: { behavior: payment.disputeBehavior },
      createdAt: capturedAt,
    }),
  ];
}
