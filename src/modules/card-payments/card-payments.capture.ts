import type { Tx } from '../../db/client.ts';
import { type Change, change, commit, readAndCommit } from '../../db/commit.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { parseAmount } from '../../kernel/money.ts';
import { transition } from '../../kernel/state-machine.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { followAcquirer } from '../issuing/issuing.closed-loop.ts';
import { creditPending, type PendingCredit } from '../ledger/ledger.funds.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
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

/** What another module does on a capture, added to the capture's change (modules/reactions.ts). */
export type CaptureReaction = (work: Change, ctx: ServiceContext, captured: CardPaymentRow) => void;
const captureReactions: CaptureReaction[] = [];

/**
 * Work another module does when a payment made through a collection's checkout is captured (the
 * collection succeeds): it adds its part to the capture's change, so it is written with it, in one
 * transaction; registered once at start-up (modules/reactions.ts). Payments that belong to no
 * collection run none, which lets the API's captures take the group commit.
 */
export function onCardPaymentCaptured(reaction: CaptureReaction): void {
  if (!captureReactions.includes(reaction)) captureReactions.push(reaction);
}

/**
 * Adds to a change what follows a payment's capture, however it was captured (on request, at once,
 * after 3-D Secure): the issuer's side of the closed loop first (it locks both merchants' ledgers
 * in one order before either is touched), the credit into pending, the magic cards' dispute jobs,
 * and the reactions of other modules.
 */
export function withCapture(work: Change, ctx: ServiceContext, captured: CardPaymentRow): Change {
  const at = captured.updatedAt;
  const authorizationId = captured.issuingAuthorizationId;
  if (authorizationId)
    work.within((tx) =>
      followAcquirer(tx, ctx, authorizationId, { kind: 'capture', amount: captured.amountCaptured }),
    );
  creditPending(work, captureCredit(captured, at)).job(...magicDisputeJobs(captured, at));
  if (captured.collectionId !== null) for (const reaction of captureReactions) reaction(work, ctx, captured);
  return work;
}

/** Captures an authorized payment read in the caller's transaction (after its 3-D Secure challenge). */
export async function capture(
  tx: Tx,
  ctx: ServiceContext,
  payment: CardPaymentRow,
  amount: bigint,
): Promise<CardPaymentRow> {
  const state = transition(cardPaymentMachine, payment.state, 'capture');
  const now = ctx.clock.now();
  const captured = { ...payment, state, amountCaptured: amount, capturedAt: now, updatedAt: now };
  await commit({ db: ctx.db, tx }, captureChange(ctx, payment, captured));
  return captured;
}

/**
 * Captures an authorization, in full or in part (the rest of the authorization is released): one
 * change, written by the group commit when nothing else reacts to it, only if the payment is still
 * as read; else read again under lock and written in a transaction (readAndCommit).
 */
export async function captureCardPayment(
  ctx: ServiceContext,
  id: string,
  input: CaptureInput,
): Promise<CardPaymentDetail> {
  const captured = await readAndCommit(ctx, {
    read: (exec, lock) => loadPayment(exec, ctx, id, lock),
    write: async (read, target) => {
      const captured = capturedRow(ctx, read, input);
      await commit(target, captureChange(ctx, read, captured));
      return captured;
    },
  });
  return { ...captured, refunds: [] }; // an authorization has no refunds
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
  const now = ctx.clock.now();
  return { ...current, state, amountCaptured, capturedAt: now, updatedAt: now };
}

/** A capture as one change: the compare-and-set of the payment, its event, and what follows (withCapture). */
function captureChange(ctx: ServiceContext, read: CardPaymentRow, captured: CardPaymentRow): Change {
  const work = change()
    .update({
      table: cardPayments,
      id: read.id,
      expect: { state: read.state },
      set: {
        state: captured.state,
        amountCaptured: captured.amountCaptured,
        capturedAt: captured.capturedAt,
        updatedAt: captured.updatedAt,
      },
    })
    .event(cardPaymentEvent(captured, ctx.publicUrl));
  return withCapture(work, ctx, captured);
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
