import type { Tx } from '../../db/client.ts';
import { type Change, change, commit, commitUnlessStale } from '../../db/commit.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { parseAmount } from '../../kernel/money.ts';
import { transition } from '../../kernel/state-machine.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { followAcquirer } from '../issuing/issuing.closed-loop.ts';
import { creditPending, type PendingCredit } from '../ledger/ledger.funds.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
import { scheduledJobs } from '../scheduler/scheduler.table.ts';
import { magicDisputeJobs } from './card-payments.disputes.ts';
import { cardPaymentMachine } from './card-payments.machine.ts';
import type { CardPaymentRow } from './card-payments.resource.ts';
import {
  type CardPaymentDetail,
  cardPaymentEvent,
  loadPayment,
  stepCardPayment,
  withRefunds,
} from './card-payments.rows.ts';
import type { CaptureInput } from './card-payments.schema.ts';
import { cardPayments } from './card-payments.table.ts';

export const EXPIRE_AUTHORIZATION_JOB = 'card_payment.expire_authorization';

/** A captured payment's money: into `pending`, available two banking days later. */
export function captureCredit(payment: CardPaymentRow, at: Date): PendingCredit {
  return {
    merchantId: payment.merchantId,
    amount: payment.amountCaptured,
    currency: payment.currency as CurrencyCode,
    source: { type: 'card_payment', id: payment.id },
    type: 'card_payment',
    from: 'card_network',
    at,
  };
}

function creditCapture(tx: Tx, ctx: ServiceContext, captured: CardPaymentRow): Promise<void> {
  return commit({ db: ctx.db, tx }, creditPending(change(), captureCredit(captured, ctx.clock.now())));
}

export type CaptureHook = (tx: Tx, ctx: ServiceContext, captured: CardPaymentRow) => Promise<void>;
const captureHooks: CaptureHook[] = [];

/**
 * Work another module does when a payment made through a collection's checkout is captured (the
 * collection succeeds), in the capture's transaction; registered once at start-up (modules/reactions.ts).
 * Payments that belong to no collection run no hook, which lets the API's captured-at-once payments
 * take the group commit (newPaymentChange, through commit()).
 */
export function onCardPaymentCaptured(hook: CaptureHook): void {
  if (!captureHooks.includes(hook)) captureHooks.push(hook);
}

export async function afterCapture(tx: Tx, ctx: ServiceContext, captured: CardPaymentRow): Promise<void> {
  // The issuer first: it locks both merchants' ledgers in one order before either is touched.
  if (captured.issuingAuthorizationId)
    await followAcquirer(tx, ctx, captured.issuingAuthorizationId, {
      kind: 'capture',
      amount: captured.amountCaptured,
    });
  await creditCapture(tx, ctx, captured);
  const disputeJobs = magicDisputeJobs(captured, ctx.clock.now());
  if (disputeJobs.length > 0) await tx.insert(scheduledJobs).values(disputeJobs);
  if (captured.collectionId === null) return;
  for (const hook of captureHooks) await hook(tx, ctx, captured);
}

export async function capture(tx: Tx, ctx: ServiceContext, payment: CardPaymentRow, amount: bigint) {
  const captured = await stepCardPayment(tx, ctx, payment, 'capture', { amountCaptured: amount });
  await afterCapture(tx, ctx, captured);
  return captured;
}

/** Captures an authorization, in full or in part (the rest of the authorization is released). */
export async function captureCardPayment(
  ctx: ServiceContext,
  id: string,
  input: CaptureInput,
): Promise<CardPaymentDetail> {
  const read = ctx.tx ? null : await loadPayment(ctx.db, ctx, id);
  if (read && read.collectionId === null && read.issuingAuthorizationId === null) {
    // The common case, a payment of no collection and no card of this sandbox: one change (the
    // group commit), written only if the payment is still as read; else the transaction below.
    const captured = capturedRow(ctx, read, input);
    if (await commitUnlessStale(ctx, captureChange(ctx, read, captured))) return { ...captured, refunds: [] }; // an authorization has no refunds
  }
  const payment = await inContextTx(ctx, async (tx) => {
    const current = await loadPayment(tx, ctx, id);
    return capture(tx, ctx, current, capturedRow(ctx, current, input).amountCaptured);
  });
  return withRefunds(dbOf(ctx), payment);
}

/** The payment as a capture leaves it; refused (409, 400) when it cannot be captured as asked. */
function capturedRow(ctx: ServiceContext, current: CardPaymentRow, input: CaptureInput): CardPaymentRow {
  const state = transition(cardPaymentMachine, current.state, 'capture');
  // Past its expiry an authorization cannot be captured, even before the expiry job has run.
  if (current.authorizationExpiresAt && current.authorizationExpiresAt <= ctx.clock.now())
    throw new SandbankError('invalid_state', {
      message: `This authorization expired at ${current.authorizationExpiresAt.toISOString()}; it can no longer be captured.`,
    });
  const amountCaptured =
    input.amount === undefined
      ? current.amount
      : parseAmount(input.amount, current.currency as CurrencyCode, { max: current.amount });
  return { ...current, state, amountCaptured, updatedAt: ctx.clock.now() };
}

/** A capture as one change: the compare-and-set of the payment, its event, and the pending credit. */
function captureChange(ctx: ServiceContext, read: CardPaymentRow, captured: CardPaymentRow): Change {
  return creditPending(
    change()
      .update({
        table: cardPayments,
        id: read.id,
        expect: { state: read.state },
        set: {
          state: captured.state,
          amountCaptured: captured.amountCaptured,
          updatedAt: captured.updatedAt,
        },
      })
      .event(cardPaymentEvent(captured, ctx.publicUrl))
      .job(...magicDisputeJobs(captured, captured.updatedAt)),
    captureCredit(captured, captured.updatedAt),
  );
}

/** Cancels an authorization: nothing was on the balance, so nothing is posted. */
export async function voidCardPayment(ctx: ServiceContext, id: string): Promise<CardPaymentDetail> {
  const payment = await inContextTx(ctx, async (tx) =>
    stepCardPayment(tx, ctx, await loadPayment(tx, ctx, id), 'void'),
  );
  return withRefunds(dbOf(ctx), payment);
}

/** The scheduled expiry of an authorization nobody captured or voided. */
export async function expireAuthorizationJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const payment = await loadPayment(ctx.tx, ctx, job.objectId);
  if (payment.state !== 'authorized') return; // captured or voided in time
  await stepCardPayment(ctx.tx, ctx, payment, 'expire');
}
