import type { Tx } from '../../db/client.ts';
import { type Change, change, commit } from '../../db/commit.ts';
import { addSeconds } from '../../kernel/clock.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import { newLinkSecret } from '../../kernel/secrets.ts';
import { transition } from '../../kernel/state-machine.ts';
import { type ValidCard, validateCard } from '../cards/card-validation.ts';
import { disputeBehavior, refundBehavior } from '../cards/magic-cards.ts';
import { decideAfterChallenge, decideAuthorization } from '../cards/network.ts';
import type { FinalDecision, NetworkDecision } from '../cards/network-responses.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import { authorizeFromAcquirer, type IssuerAnswer, isIssuedNumber } from '../issuing/issuing.closed-loop.ts';
import { jobValues, scheduleJob } from '../scheduler/scheduler.service.ts';
import { capture, EXPIRE_AUTHORIZATION_JOB, withCapture } from './card-payments.capture.ts';
import { cardPaymentMachine } from './card-payments.machine.ts';
import type { CardPaymentRow } from './card-payments.resource.ts';
import {
  type CardPaymentDetail,
  capturedAtOnceEvents,
  cardPaymentEvent,
  throwIfDeclined,
} from './card-payments.rows.ts';
import type { CreateCardPaymentInput } from './card-payments.schema.ts';
import { cardPayments } from './card-payments.table.ts';
import { spendToken } from './card-payments.tokens.ts';

/** 0.01 to 999,999.99 USD, as collections. */
export const CARD_PAYMENT_MAX_MINOR = 99_999_999n;
/** An uncaptured authorization expires 7 days (clock time) after it was made. */
export const AUTHORIZATION_TTL_SECONDS = 7 * 86_400;

/** What a new card payment is made of, however it arrives (the API, or a collection's checkout). */
export interface AuthorizationInput {
  amount: bigint;
  currency: CurrencyCode;
  card: ValidCard;
  capture: boolean;
  collectionId?: string | null;
  reference?: string | null;
  description?: string | null;
  metadata?: Record<string, string>;
}

/** The job that expires an authorization nobody captures or voids. */
function expiryJob(ctx: ServiceContext, payment: CardPaymentRow) {
  return jobValues(expiryJobInput(ctx, payment));
}

function expiryJobInput(ctx: ServiceContext, payment: CardPaymentRow) {
  return {
    merchantId: payment.merchantId,
    kind: EXPIRE_AUTHORIZATION_JOB,
    objectId: payment.id,
    dueAt: payment.authorizationExpiresAt ?? addSeconds(ctx.clock.now(), AUTHORIZATION_TTL_SECONDS),
    payload: {},
    createdAt: ctx.clock.now(),
  };
}

/** What follows an approval: capture at once (`capture: true`), or the authorization's expiry job. */
export async function afterAuthorization(tx: Tx, ctx: ServiceContext, payment: CardPaymentRow) {
  if (payment.captureOnAuthorize) return capture(tx, ctx, payment, payment.amount);
  await scheduleJob(tx, expiryJobInput(ctx, payment));
  return payment;
}

export function decisionColumns(decision: FinalDecision, now: Date): Partial<CardPaymentRow> {
  return decision.outcome === 'approved'
    ? {
        networkResponseCode: decision.networkResponseCode,
        authorizedAt: now,
        authorizationExpiresAt: addSeconds(now, AUTHORIZATION_TTL_SECONDS),
      }
    : {
        networkResponseCode: decision.networkResponseCode,
        declineCode: decision.declineCode,
        failureMessage: decision.message,
      };
}

/**
 * The row a new payment starts as: the network's answer decides its first state — or, in the
 * closed loop, the answer of this sandbox's issuer (`issuer`), for a card it issued.
 */
function newPaymentValues(
  ctx: ServiceContext,
  input: AuthorizationInput,
  issuer?: { id: string; answer: IssuerAnswer },
): CardPaymentRow {
  const { card, amount } = input;
  const now = ctx.clock.now();
  const decision: NetworkDecision = issuer ? issuer.answer.decision : decideAuthorization(card, now);
  const base = {
    id: issuer?.id ?? newId('cardPayment'),
    merchantId: ctx.merchant.id,
    collectionId: input.collectionId ?? null,
    amount,
    amountCaptured: 0n,
    amountRefunded: 0n,
    currency: input.currency,
    captureOnAuthorize: input.capture,
    brand: card.brand,
    last4: card.last4,
    expMonth: card.expMonth,
    expYear: card.expYear,
    refundBehavior: refundBehavior(card),
    disputeBehavior: disputeBehavior(card),
    disputeId: null,
    amountDisputed: 0n,
    earlyFraudWarningAt: null,
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    // Every column is set (as stored), so the group commit can answer with this row.
    networkResponseCode: null,
    declineCode: null,
    failureMessage: null,
    threeDSecure: null,
    challengeResult: null,
    authorizedAt: null,
    capturedAt: null,
    authorizationExpiresAt: null,
    issuingAuthorizationId: issuer?.answer.authorizationId ?? null,
    challengeSecret: newLinkSecret(),
    createdAt: now,
    updatedAt: now,
  };
  if (decision.outcome === 'challenge') {
    const passed = decideAfterChallenge(card, 'succeed', now);
    return {
      ...base,
      state: 'requires_action',
      threeDSecure: 'required',
      challengeResult:
        passed.outcome === 'declined'
          ? {
              declineCode: passed.declineCode,
              networkResponseCode: passed.networkResponseCode,
              message: passed.message,
            }
          : null,
    };
  }
  const values: CardPaymentRow = {
    ...base,
    state: decision.outcome === 'approved' ? 'authorized' : 'declined',
    ...decisionColumns(decision, now),
  };
  // capture: true passes through authorized to captured: one row written, both events.
  return values.state === 'authorized' && input.capture
    ? {
        ...values,
        state: transition(cardPaymentMachine, 'authorized', 'capture'),
        amountCaptured: amount,
        capturedAt: now,
      }
    : values;
}

/**
 * Asks the network about a validated card and records the payment in the state the answer leads
 * to — authorized (then captured when `capture`), requires_action (3-D Secure) or declined — with
 * its events, in the caller's transaction.
 */
export async function authorizeCard(
  tx: Tx,
  ctx: ServiceContext,
  input: AuthorizationInput,
): Promise<CardPaymentRow> {
  if (!isIssuedNumber(input.card.number)) return insertNewPayment(tx, ctx, newPaymentValues(ctx, input));
  const id = newId('cardPayment');
  const answer = await authorizeFromAcquirer(tx, ctx, {
    number: input.card.number,
    cvc: input.card.cvc,
    expMonth: input.card.expMonth,
    expYear: input.card.expYear,
    amount: input.amount,
    cardPaymentId: id,
  });
  return insertNewPayment(tx, ctx, newPaymentValues(ctx, input, { id, answer }));
}

/**
 * A new payment as one change: its row (every column set: the row as stored) and its events, with
 * what follows its state — captured at once, what follows a capture (withCapture: the credit into
 * pending and the job that makes it available, the closed loop's issuer, a collection's reaction);
 * authorized, the job that expires it; declined or awaiting 3-D Secure, nothing more. (An approval
 * asked to capture is captured at once: newPaymentValues never leaves it authorized.)
 */
export function newPaymentChange(ctx: ServiceContext, row: CardPaymentRow): Change {
  if (row.state === 'captured')
    return withCapture(
      change()
        .insert(cardPayments, row)
        .event(...capturedAtOnceEvents(ctx, row)),
      ctx,
      row,
    );
  const written = change().insert(cardPayments, row).event(cardPaymentEvent(row, ctx.publicUrl));
  return row.state === 'authorized' ? written.job(expiryJob(ctx, row)) : written;
}

/** Writes a new payment in the caller's transaction, in the state the network's answer gave it. */
async function insertNewPayment(tx: Tx, ctx: ServiceContext, row: CardPaymentRow): Promise<CardPaymentRow> {
  await commit({ db: ctx.db, tx }, newPaymentChange(ctx, row));
  return row;
}

/**
 * POST /v1/card_payments: validates the card (400s before any network decision), asks the network,
 * and records the payment — a decline is committed, then answered with 402 and the payment's id.
 */
function authorizationOf(input: CreateCardPaymentInput) {
  const amount = parseAmount(input.amount, input.currency, { max: CARD_PAYMENT_MAX_MINOR });
  return (card: ValidCard): AuthorizationInput => ({
    amount,
    currency: input.currency,
    card,
    capture: input.capture ?? true,
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
  });
}

/**
 * A raw card's new payment, decided now (validated first: 400s before any decision), as the row and
 * the change that writes it — for a caller that adds rows of its own to the same commit (the Stripe
 * dialect's PaymentIntent). Null for a card this sandbox issued: its issuer decides in a
 * transaction (createCardPayment).
 */
export function decidedCardPayment(
  ctx: ServiceContext,
  input: CreateCardPaymentInput & { card: NonNullable<CreateCardPaymentInput['card']> },
): { row: CardPaymentRow; change: Change } | null {
  const of = authorizationOf(input);
  const card = validateCard(input.card);
  if (isIssuedNumber(card.number)) return null;
  const row = newPaymentValues(ctx, of(card));
  return { row, change: newPaymentChange(ctx, row) };
}

export async function createCardPayment(
  ctx: ServiceContext,
  input: CreateCardPaymentInput,
): Promise<CardPaymentDetail> {
  const of = authorizationOf(input);
  if ((input.card === undefined) === (input.token === undefined)) {
    throw new SandbankError(input.card ? 'parameter_invalid' : 'parameter_missing', {
      param: 'card',
      message: 'Send exactly one of card and token.',
    });
  }
  // A raw card is decided once, here; a token's card is known only once it is spent, in the
  // transaction, and so is a card this sandbox issued (its issuer decides, in the transaction).
  const card = input.card ? validateCard(input.card) : null;
  const decided = card && !isIssuedNumber(card.number) ? newPaymentValues(ctx, of(card)) : null;
  if (decided) {
    // A raw card's payment is one change, so that without an idempotency key it takes the group
    // commit (many concurrent payments, one statement).
    await commit(ctx, newPaymentChange(ctx, decided));
    throwIfDeclined(decided);
    return { ...decided, refunds: [] };
  }
  const payment = await inContextTx(ctx, async (tx) =>
    authorizeCard(tx, ctx, of(card ?? (await spendToken(tx, ctx, input.token ?? '')))),
  );
  throwIfDeclined(payment);
  return { ...payment, refunds: [] }; // a new payment has no refunds
}
