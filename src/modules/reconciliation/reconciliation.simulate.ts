import { scheduledJobs } from '../../db/scheduled-jobs.table.ts';
import { addCalendarDays, nyInstant } from '../../kernel/calendar.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { formatDecimal } from '../../kernel/money.ts';
import { inContextTx, type JobHandler, type ServiceContext } from '../context.ts';
import type { CreateInboundTransferInput } from '../inbound-transfers/inbound-transfers.schema.ts';
import { createInboundTransfer } from '../inbound-transfers/inbound-transfers.service.ts';
import { jobValues } from '../scheduler/scheduler.service.ts';
import { getExpectedPayment, reconcile } from './reconciliation.service.ts';
import type { ExpectedPaymentRow } from './reconciliation.table.ts';

/**
 * POST /v1/simulate/expected_payments/{id}/pay: the payer of an expected credit pays it now, as an
 * inbound transfer on its rail (ACH when it names none) carrying its reference. The cents of its
 * amount_max choose how (docs/guide/reconciliation.md):
 * .01 pays 1.00 short, .02 pays in two halves, .03 pays 1.00 over, .04 pays with another reference,
 * .05 pays in full but late (at 10:00 New York the day after the window ends); any other amount
 * pays amount_max exactly.
 */
export const PAYER_BEHAVIORS = {
  '01': 'pays 1.00 short: partially matched (with a reference), or not matched at all',
  '02': 'pays in two halves, one after the other: partially matched, then matched',
  '03': 'pays 1.00 over the range: not matched (an overpayment to resolve by hand)',
  '04': 'pays the amount under another reference: not matched (with a reference)',
  '05': 'pays in full the day after the window ends: overdue, and the late payment stays unmatched',
} as const;

export const LATE_PAYMENT_JOB = 'expected_payment.late_payment';

const ONE_DOLLAR = 100n;

function paymentsFor(row: ExpectedPaymentRow): { amount: bigint; reference: string | null }[] {
  const cents = (row.amountMax % 100n).toString().padStart(2, '0');
  const reference = row.reference;
  switch (cents) {
    case '01':
      return [{ amount: row.amountMax > ONE_DOLLAR ? row.amountMax - ONE_DOLLAR : 1n, reference }];
    case '02': {
      const half = row.amountMax / 2n;
      return [
        { amount: half, reference },
        { amount: row.amountMax - half, reference },
      ];
    }
    case '03':
      return [{ amount: row.amountMax + ONE_DOLLAR, reference }];
    case '04':
      return [{ amount: row.amountMax, reference: `OTHER-${reference ?? 'REF'}`.slice(0, 100) }];
    default:
      return [{ amount: row.amountMax, reference }];
  }
}

export async function simulatePayment(ctx: ServiceContext, id: string): Promise<ExpectedPaymentRow> {
  const row = await getExpectedPayment(ctx, id);
  if (row.direction !== 'credit')
    throw new SandbankError('invalid_state', {
      message:
        'Only an expected credit has a payer to simulate; an expected debit is matched by your own transfer or payout.',
    });
  if (row.state !== 'unmatched' && row.state !== 'partially_matched')
    throw new SandbankError('invalid_state', { message: `This expected payment is ${row.state}.` });
  const now = ctx.clock.now();
  if (now.getTime() < row.windowStart.getTime() || now.getTime() >= row.windowEnd.getTime())
    throw new SandbankError('invalid_state', {
      message: `The merchant's clock (${now.toISOString()}) is outside the window (${row.dateFrom} to ${row.dateTo}): advance it into the window first.`,
    });
  if (row.amountMax % 100n === 5n) {
    // The payer pays late: at 10:00 New York the day after the window's last day.
    await inContextTx(ctx, (tx) =>
      tx.insert(scheduledJobs).values(
        jobValues({
          merchantId: row.merchantId,
          kind: LATE_PAYMENT_JOB,
          objectId: row.id,
          payload: { amount: row.amountMax.toString() },
          dueAt: nyInstant(addCalendarDays(row.dateTo, 1), '10:00'),
          createdAt: now,
        }),
      ),
    );
    return getExpectedPayment(ctx, id);
  }
  for (const payment of paymentsFor(row)) {
    await pay(ctx, row, payment);
    await reconcile(ctx);
  }
  return getExpectedPayment(ctx, id);
}

/** The late payer's payment, when its job falls due. */
export const latePaymentJob: JobHandler = async (ctx, job) => {
  const row = await getExpectedPayment(ctx, job.objectId);
  await pay(ctx, row, {
    amount: BigInt(job.payload.amount ?? row.amountMax.toString()),
    reference: row.reference,
  });
};

/** The payer's inbound transfer: on the expected rail (ACH when none), carrying the reference given. */
async function pay(
  ctx: ServiceContext,
  row: ExpectedPaymentRow,
  payment: { amount: bigint; reference: string | null },
): Promise<void> {
  const input: CreateInboundTransferInput = {
    rail: (row.rail ?? 'ach') as CreateInboundTransferInput['rail'],
    direction: 'credit',
    amount: formatDecimal(payment.amount, 'USD'),
    currency: 'USD',
    originator: {
      name: 'Expected payer',
      routing_number: '021000021',
      account_number: '000987654321',
      account_type: 'checking',
    },
    ...(payment.reference ? { reference: payment.reference } : {}),
    description: `Payment of expected payment ${row.id}`,
  };
  await createInboundTransfer(ctx, input);
}
