import { and, asc, desc, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import { type Db, type Executor, queryRows, type Tx } from '../../db/client.ts';
import { transitionRow } from '../../db/compare-and-set.ts';
import { inTransaction } from '../../db/tx.ts';
import { addSeconds } from '../../kernel/clock.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix, newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { linkSecretMatches, newLinkSecret } from '../../kernel/secrets.ts';
import { transition } from '../../kernel/state-machine.ts';
import { parseInput } from '../../kernel/validation.ts';
import {
  decideAfterChallenge,
  decideAuthorization,
  type FinalDecision,
  type NetworkDecision,
  refundBehavior,
  type ValidCard,
  validateCard,
} from '../cards/network.ts';
import { perMerchant } from '../clock/clock.sql.ts';
import { completeChallengeSchema } from '../collections/collections.schema.ts';
import type { ServiceContext } from '../context.ts';
import { type EventInput, recordEvent, recordEvents } from '../events/events.service.ts';
import {
  authorizeFromAcquirer,
  followAcquirer,
  type IssuerAnswer,
  isIssuedNumber,
} from '../issuing/issuing.closed-loop.ts';
import { creditPendingFunds, fundsAvailableAt } from '../ledger/ledger.funds.ts';
import { post } from '../ledger/ledger.service.ts';
import { merchants } from '../merchants/merchants.table.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import { type CardPaymentEvent, cardPaymentMachine, refundMachine } from './card-payments.machine.ts';
import {
  type CardPaymentRow,
  cardPaymentResource,
  type RefundRow,
  refundResource,
  type TokenRow,
} from './card-payments.resource.ts';
import {
  amountFieldCodes,
  captureSchema,
  createCardPaymentFieldCodes,
  createCardPaymentSchema,
  createTokenSchema,
  refundSchema,
} from './card-payments.schema.ts';
import { cardPayments, cardRefunds, cardTokens } from './card-payments.table.ts';
import { writeCapturedPayment } from './card-payments.writer.ts';

/** 0.01 to 999,999.99 USD, as collections. */
export const CARD_PAYMENT_MAX_MINOR = 99_999_999n;
/** An uncaptured authorization expires 7 days (clock time) after it was made. */
export const AUTHORIZATION_TTL_SECONDS = 7 * 86_400;
/** A token is usable once within 15 minutes of clock time. */
export const TOKEN_TTL_SECONDS = 15 * 60;
export const EXPIRE_AUTHORIZATION_JOB = 'card_payment.expire_authorization';
export const SETTLE_REFUND_JOB = 'refund.settle';

export interface CardPaymentDetail extends CardPaymentRow {
  refunds: RefundRow[];
}

// ---------------------------------------------------------------------------------------------
// Tokens

/** A token's expiry: an unused token's number and CVC are blanked when its 15 minutes are over. */
export const TOKEN_EXPIRY_JOB = 'token.expire';

export async function createToken(ctx: ServiceContext, raw: unknown): Promise<TokenRow> {
  const input = parseInput(createTokenSchema, raw, { card: 'parameter_invalid' });
  const card = validateCard(input.card);
  const now = ctx.clock.now();
  const expiresAt = addSeconds(now, TOKEN_TTL_SECONDS);
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    const [row] = await tx
      .insert(cardTokens)
      .values({
        id: newId('token'),
        merchantId: ctx.merchant.id,
        number: card.number,
        expMonth: card.expMonth,
        expYear: card.expYear,
        cvc: card.cvc,
        name: card.name,
        brand: card.brand,
        last4: card.last4,
        expiresAt,
        createdAt: now,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    await scheduleJob(tx, {
      merchantId: ctx.merchant.id,
      kind: TOKEN_EXPIRY_JOB,
      objectId: row.id,
      dueAt: expiresAt,
      createdAt: now,
    });
    return row;
  });
}

/** What a token keeps of its card once spent or expired: neither the number nor the CVC. */
const blankSecrets = { number: '', cvc: '' } as const;

/** The scheduled expiry of a token: its card number and CVC are not kept past its 15 minutes. */
export async function expireTokenJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  await ctx.tx
    .update(cardTokens)
    .set(blankSecrets)
    .where(and(eq(cardTokens.id, job.objectId), eq(cardTokens.merchantId, ctx.merchant.id)));
}

/**
 * The retention sweep behind the expiry jobs (tokens older than those jobs have none): blanks the
 * secrets of up to `limit` unused tokens expired by their merchant's clock. Returns how many.
 */
export async function blankExpiredTokens(db: Db, realNow: Date, limit: number): Promise<number> {
  const doomed = perMerchant(
    realNow,
    (now) => sql`SELECT t.id FROM card_tokens t
      WHERE t.merchant_id = m.id AND t.number <> '' AND t.expires_at <= ${now}`,
    limit,
  );
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE card_tokens d SET number = '', cvc = '' FROM (${doomed}) x WHERE d.id = x.id RETURNING d.id`,
  );
  return rows.length;
}

/** Spends a token (once, before it expires) and gives back its card. */
async function spendToken(tx: Tx, ctx: ServiceContext, tokenId: string): Promise<ValidCard> {
  const now = ctx.clock.now();
  if (tokenId.includes('\u0000')) throw new SandbankError('resource_not_found', { param: 'token' });
  const [token] = await tx
    .select()
    .from(cardTokens)
    .where(and(eq(cardTokens.id, tokenId), eq(cardTokens.merchantId, ctx.merchant.id)));
  if (!token)
    throw new SandbankError('resource_not_found', {
      param: 'token',
      message: `No token ${tokenId.slice(0, 64)}.`,
    });
  if (token.usedAt) throw new SandbankError('token_already_used', { param: 'token' });
  if (token.expiresAt <= now) throw new SandbankError('token_expired', { param: 'token' });
  // Spent: the number and CVC are not kept a moment longer than the payment needs them.
  const spent = await tx
    .update(cardTokens)
    .set({ usedAt: now, ...blankSecrets })
    .where(and(eq(cardTokens.id, token.id), isNull(cardTokens.usedAt)))
    .returning({ id: cardTokens.id });
  if (spent.length === 0) throw new SandbankError('token_already_used', { param: 'token' });
  return {
    number: token.number,
    brand: token.brand as ValidCard['brand'],
    last4: token.last4,
    expMonth: token.expMonth,
    expYear: token.expYear,
    cvc: token.cvc,
    name: token.name,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading

/** The refunds of card payments, oldest first, by payment id (every id present, maybe empty). */
export async function refundsOf(exec: Executor, paymentIds: string[]): Promise<Map<string, RefundRow[]>> {
  const byPayment = new Map<string, RefundRow[]>(paymentIds.map((id) => [id, []]));
  if (paymentIds.length === 0) return byPayment;
  const rows = await exec
    .select()
    .from(cardRefunds)
    .where(inArray(cardRefunds.cardPaymentId, paymentIds))
    .orderBy(asc(cardRefunds.id));
  for (const row of rows) byPayment.get(row.cardPaymentId)?.push(row);
  return byPayment;
}

async function withRefunds(exec: Executor, row: CardPaymentRow): Promise<CardPaymentDetail> {
  return { ...row, refunds: (await refundsOf(exec, [row.id])).get(row.id) ?? [] };
}

export async function loadPayment(exec: Executor, ctx: ServiceContext, id: string): Promise<CardPaymentRow> {
  // Postgres text cannot hold U+0000: such an id names no payment (a 404, not a 500).
  if (id.includes('\u0000'))
    throw new SandbankError('resource_not_found', { message: 'No such card payment.' });
  const [row] = await exec
    .select()
    .from(cardPayments)
    .where(and(eq(cardPayments.id, id), eq(cardPayments.merchantId, ctx.merchant.id)));
  if (!row) throw new SandbankError('resource_not_found', { message: `No card payment ${id.slice(0, 60)}.` });
  return row;
}

/** The merchant of a card payment, for its 3-D Secure page (which has no API key: the link is the capability). */
export async function findChallengeMerchant(
  exec: Executor,
  paymentId: string,
  secret: string | undefined,
): Promise<{ id: string; name: string } | null> {
  if (!hasPrefix(paymentId, 'cardPayment') || paymentId.length > 64 || paymentId.includes('\u0000'))
    return null;
  const [row] = await exec
    .select({ id: merchants.id, name: merchants.name, secret: cardPayments.challengeSecret })
    .from(cardPayments)
    .innerJoin(merchants, eq(merchants.id, cardPayments.merchantId))
    .where(eq(cardPayments.id, paymentId))
    .limit(1);
  // Compared even when no row matched, so an id that exists takes no longer to refuse than one that does not.
  const matches = linkSecretMatches(secret, row?.secret ?? '');
  return row && matches ? { id: row.id, name: row.name } : null;
}

export async function getCardPayment(ctx: ServiceContext, id: string): Promise<CardPaymentDetail> {
  const exec = ctx.tx ?? ctx.db;
  return withRefunds(exec, await loadPayment(exec, ctx, id));
}

/**
 * A collection left `pending` (paid, expired, canceled): its card payments still waiting on a 3-D
 * Secure answer can no longer pay it, so they are declined (`checkout_closed`) instead of waiting
 * forever.
 */
export async function declineOpenChallenges(
  exec: Executor,
  ctx: ServiceContext,
  collectionId: string,
): Promise<void> {
  const open = await exec
    .select()
    .from(cardPayments)
    .where(and(eq(cardPayments.collectionId, collectionId), eq(cardPayments.state, 'requires_action')));
  for (const payment of open) {
    const declined = await transitionRow(exec, cardPaymentMachine, cardPayments, payment, 'fail_3ds', {
      declineCode: 'checkout_closed',
      failureMessage: 'The checkout closed before 3-D Secure was completed.',
      updatedAt: ctx.clock.now(),
    });
    await recordEvent(exec, paymentEvent(ctx, declined, []));
  }
}

/** A refund and its payment as they are now (an idempotent replay of a refund). */
export async function getRefund(
  ctx: ServiceContext,
  id: string,
): Promise<{ refund: RefundRow; payment: CardPaymentDetail }> {
  const exec = ctx.tx ?? ctx.db;
  const [refund] = id.includes('\u0000')
    ? []
    : await exec
        .select()
        .from(cardRefunds)
        .where(and(eq(cardRefunds.id, id), eq(cardRefunds.merchantId, ctx.merchant.id)));
  if (!refund) throw new SandbankError('resource_not_found', { message: 'No such refund.' });
  return { refund, payment: await withRefunds(exec, await loadPayment(exec, ctx, refund.cardPaymentId)) };
}

/** A collection's card payments (its checkout's card attempts), newest first, with their refunds. */
export async function cardPaymentsOfCollection(
  exec: Executor,
  merchantId: string,
  collectionId: string,
): Promise<CardPaymentDetail[]> {
  const rows = await exec
    .select()
    .from(cardPayments)
    .where(and(eq(cardPayments.collectionId, collectionId), eq(cardPayments.merchantId, merchantId)))
    .orderBy(desc(cardPayments.id));
  const refunds = await refundsOf(
    exec,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({ ...row, refunds: refunds.get(row.id) ?? [] }));
}

export async function listCardPayments(
  ctx: ServiceContext,
  query: ListQuery & { collection?: string | undefined },
): Promise<Page<CardPaymentDetail>> {
  const exec = ctx.tx ?? ctx.db;
  const conditions = [eq(cardPayments.merchantId, ctx.merchant.id)];
  if (query.starting_after) conditions.push(lt(cardPayments.id, query.starting_after));
  if (query.collection) conditions.push(eq(cardPayments.collectionId, query.collection));
  const rows = await exec
    .select()
    .from(cardPayments)
    .where(and(...conditions))
    .orderBy(desc(cardPayments.id))
    .limit(query.limit + 1);
  const page = toPage(rows, query.limit);
  const refunds = await refundsOf(
    exec,
    page.data.map((row) => row.id),
  );
  return { ...page, data: page.data.map((row) => ({ ...row, refunds: refunds.get(row.id) ?? [] })) };
}

// ---------------------------------------------------------------------------------------------
// Events and transitions

function paymentEvent(ctx: ServiceContext, row: CardPaymentRow, refunds: RefundRow[]): EventInput {
  return {
    merchantId: row.merchantId,
    type: `card_payment.${row.state}`,
    objectId: row.id,
    data: { object: cardPaymentResource(row, refunds, ctx.publicUrl) },
    at: row.updatedAt,
  };
}

/**
 * The payment's event with the object after the change. Only refunds change a payment that has
 * refunds, so every other transition renders an empty refund list without reading it.
 */
async function emitPaymentEvent(
  tx: Tx,
  ctx: ServiceContext,
  row: CardPaymentRow,
  refunds: RefundRow[] = [],
): Promise<void> {
  await recordEvent(tx, paymentEvent(ctx, row, refunds));
}

function emitRefundEvent(tx: Tx, row: RefundRow): Promise<string> {
  return recordEvent(tx, {
    merchantId: row.merchantId,
    type: `refund.${row.state}`,
    objectId: row.id,
    data: { object: refundResource(row) },
    at: row.updatedAt,
  });
}

/**
 * One step of the payment's state machine, as a compare-and-set on its state (of two racing
 * requests exactly one moves it; the other gets invalid_state naming the state it found), with
 * the event in the same transaction.
 */
async function move(
  tx: Tx,
  ctx: ServiceContext,
  payment: CardPaymentRow,
  event: CardPaymentEvent,
  values: Partial<CardPaymentRow> = {},
): Promise<CardPaymentRow> {
  const moved = await transitionRow(tx, cardPaymentMachine, cardPayments, payment, event, {
    ...values,
    updatedAt: ctx.clock.now(),
  });
  await emitPaymentEvent(tx, ctx, moved);
  if (moved.issuingAuthorizationId && (event === 'void' || event === 'expire' || event === 'fail_3ds'))
    await followAcquirer(tx, ctx, moved.issuingAuthorizationId, { kind: 'reverse' });
  return moved;
}

/** Captured funds land in `pending` and become available two banking days later. */
function creditCapture(tx: Tx, ctx: ServiceContext, captured: CardPaymentRow): Promise<void> {
  return creditPendingFunds(tx, ctx, {
    amount: captured.amountCaptured,
    currency: captured.currency as CurrencyCode,
    source: { type: 'card_payment', id: captured.id },
    type: 'card_payment',
    from: 'card_network',
  });
}

export type CaptureHook = (tx: Tx, ctx: ServiceContext, captured: CardPaymentRow) => Promise<void>;
const captureHooks: CaptureHook[] = [];

/**
 * Work another module does when a payment made through a collection's checkout is captured (the
 * collection succeeds), in the capture's transaction; registered once at start-up (modules/jobs.ts).
 * Payments that belong to no collection run no hook, which lets the API's captured-at-once payments
 * take the group commit (card-payments.writer.ts).
 */
export function onCardPaymentCaptured(hook: CaptureHook): void {
  if (!captureHooks.includes(hook)) captureHooks.push(hook);
}

async function afterCapture(tx: Tx, ctx: ServiceContext, captured: CardPaymentRow): Promise<void> {
  // The issuer first: it locks both merchants' ledgers in one order before either is touched.
  if (captured.issuingAuthorizationId)
    await followAcquirer(tx, ctx, captured.issuingAuthorizationId, {
      kind: 'capture',
      amount: captured.amountCaptured,
    });
  await creditCapture(tx, ctx, captured);
  if (captured.collectionId === null) return;
  for (const hook of captureHooks) await hook(tx, ctx, captured);
}

async function capture(tx: Tx, ctx: ServiceContext, payment: CardPaymentRow, amount: bigint) {
  const captured = await move(tx, ctx, payment, 'capture', { amountCaptured: amount });
  await afterCapture(tx, ctx, captured);
  return captured;
}

/** What follows an approval: capture at once (`capture: true`), or the authorization's expiry job. */
async function afterAuthorization(tx: Tx, ctx: ServiceContext, payment: CardPaymentRow) {
  if (payment.captureOnAuthorize) return capture(tx, ctx, payment, payment.amount);
  await scheduleJob(tx, {
    merchantId: payment.merchantId,
    kind: EXPIRE_AUTHORIZATION_JOB,
    objectId: payment.id,
    dueAt: payment.authorizationExpiresAt ?? addSeconds(ctx.clock.now(), AUTHORIZATION_TTL_SECONDS),
    payload: {},
    createdAt: ctx.clock.now(),
  });
  return payment;
}

function decisionColumns(decision: FinalDecision, now: Date): Partial<CardPaymentRow> {
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

/** A declined payment exists (committed, with its event); the request still ends in 402. */
export function throwIfDeclined(payment: CardPaymentRow): void {
  if (payment.state !== 'declined') return;
  throw new SandbankError('card_declined', {
    message: payment.failureMessage ?? 'The card was declined.',
    declineCode: payment.declineCode ?? 'generic_decline',
    objectId: payment.id,
    commitWrites: true,
  });
}

// ---------------------------------------------------------------------------------------------
// Operations

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
  const values = {
    ...base,
    state: decision.outcome === 'approved' ? 'authorized' : 'declined',
    ...decisionColumns(decision, now),
  };
  // capture: true passes through authorized to captured: one row written, both events.
  return values.state === 'authorized' && input.capture
    ? { ...values, state: transition(cardPaymentMachine, 'authorized', 'capture'), amountCaptured: amount }
    : values;
}

/** The two events of a payment made captured at once: authorized, then captured. */
export function capturedAtOnceEvents(ctx: ServiceContext, row: CardPaymentRow): EventInput[] {
  return [
    paymentEvent(ctx, { ...row, state: 'authorized', amountCaptured: 0n }, []),
    paymentEvent(ctx, row, []),
  ];
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

/** Writes a new payment in the state the network's answer gave it, with its events and what follows. */
async function insertNewPayment(
  tx: Tx,
  ctx: ServiceContext,
  values: typeof cardPayments.$inferInsert,
): Promise<CardPaymentRow> {
  const [row] = await tx.insert(cardPayments).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  if (row.state === 'captured') {
    await recordEvents(tx, capturedAtOnceEvents(ctx, row));
    await afterCapture(tx, ctx, row);
    return row;
  }
  await emitPaymentEvent(tx, ctx, row);
  return row.state === 'authorized' ? afterAuthorization(tx, ctx, row) : row;
}

/**
 * POST /v1/card_payments: validates the card (400s before any network decision), asks the network,
 * and records the payment — a decline is committed, then answered with 402 and the payment's id.
 */
export async function createCardPayment(ctx: ServiceContext, raw: unknown): Promise<CardPaymentDetail> {
  const input = parseInput(createCardPaymentSchema, raw, {
    ...createCardPaymentFieldCodes,
    card: 'parameter_invalid',
  });
  const amount = parseAmount(input.amount, input.currency, { max: CARD_PAYMENT_MAX_MINOR });
  if ((input.card === undefined) === (input.token === undefined)) {
    throw new SandbankError(input.card ? 'parameter_invalid' : 'parameter_missing', {
      param: 'card',
      message: 'Send exactly one of card and token.',
    });
  }
  const of = (card: ValidCard): AuthorizationInput => ({
    amount,
    currency: input.currency,
    card,
    capture: input.capture ?? true,
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
  });
  // A raw card is decided once, here; a token's card is known only once it is spent, in the
  // transaction, and so is a card this sandbox issued (its issuer decides, in the transaction).
  const card = input.card ? validateCard(input.card) : null;
  const decided = card && !isIssuedNumber(card.number) ? newPaymentValues(ctx, of(card)) : null;
  if (decided?.state === 'captured' && !ctx.tx) {
    // The common case — captured at once, no idempotency key — goes through the group-commit
    // writer: many concurrent payments, one statement.
    const row = await writeCapturedPayment(ctx, decided);
    return { ...row, refunds: [] };
  }
  const payment = await inTransaction(ctx.db, ctx.tx, async (tx) =>
    decided
      ? insertNewPayment(tx, ctx, decided)
      : authorizeCard(tx, ctx, of(card ?? (await spendToken(tx, ctx, input.token ?? '')))),
  );
  throwIfDeclined(payment);
  return { ...payment, refunds: [] }; // a new payment has no refunds
}

/** Answers a payment's 3-D Secure challenge in the caller's transaction. */
export async function answerChallenge(
  tx: Tx,
  ctx: ServiceContext,
  current: CardPaymentRow,
  outcome: 'succeed' | 'fail',
): Promise<CardPaymentRow> {
  const now = ctx.clock.now();
  const decision: FinalDecision =
    outcome === 'fail'
      ? {
          outcome: 'declined',
          declineCode: 'authentication_failed',
          networkResponseCode: null,
          message: '3-D Secure authentication failed.',
        }
      : current.challengeResult
        ? { outcome: 'declined', ...current.challengeResult }
        : { outcome: 'approved', networkResponseCode: '00' };
  const threeDSecure = outcome === 'succeed' ? 'succeeded' : 'failed';
  if (decision.outcome === 'declined')
    return move(tx, ctx, current, 'fail_3ds', { threeDSecure, ...decisionColumns(decision, now) });
  const authorized = await move(tx, ctx, current, 'complete_3ds', {
    threeDSecure,
    ...decisionColumns(decision, now),
  });
  return afterAuthorization(tx, ctx, authorized);
}

/** Ends a 3-D Secure challenge: authorized (and captured when asked) or declined (402). */
export async function completeCardPayment3ds(
  ctx: ServiceContext,
  id: string,
  raw: unknown,
): Promise<CardPaymentDetail> {
  const { outcome } = parseInput(completeChallengeSchema, raw);
  const payment = await inTransaction(ctx.db, ctx.tx, async (tx) =>
    answerChallenge(tx, ctx, await loadPayment(tx, ctx, id), outcome),
  );
  throwIfDeclined(payment);
  return withRefunds(ctx.tx ?? ctx.db, payment);
}

/** Captures an authorization, in full or in part (the rest of the authorization is released). */
export async function captureCardPayment(
  ctx: ServiceContext,
  id: string,
  raw: unknown,
): Promise<CardPaymentDetail> {
  const input = parseInput(captureSchema, raw ?? {}, amountFieldCodes);
  const payment = await inTransaction(ctx.db, ctx.tx, async (tx) => {
    const current = await loadPayment(tx, ctx, id);
    transition(cardPaymentMachine, current.state as never, 'capture');
    // Past its expiry an authorization cannot be captured, even before the expiry job has run.
    if (current.authorizationExpiresAt && current.authorizationExpiresAt <= ctx.clock.now())
      throw new SandbankError('invalid_state', {
        message: `This authorization expired at ${current.authorizationExpiresAt.toISOString()}; it can no longer be captured.`,
      });
    const amount =
      input.amount === undefined
        ? current.amount
        : parseAmount(input.amount, current.currency as CurrencyCode, { max: current.amount });
    return capture(tx, ctx, current, amount);
  });
  return withRefunds(ctx.tx ?? ctx.db, payment);
}

/** Cancels an authorization: nothing was on the balance, so nothing is posted. */
export async function voidCardPayment(ctx: ServiceContext, id: string): Promise<CardPaymentDetail> {
  const payment = await inTransaction(ctx.db, ctx.tx, async (tx) =>
    move(tx, ctx, await loadPayment(tx, ctx, id), 'void'),
  );
  return withRefunds(ctx.tx ?? ctx.db, payment);
}

/** The scheduled expiry of an authorization nobody captured or voided. */
export async function expireAuthorizationJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const payment = await loadPayment(ctx.tx, ctx, job.objectId);
  if (payment.state !== 'authorized') return; // captured or voided in time
  await move(ctx.tx, ctx, payment, 'expire');
}

/**
 * Refunds a captured payment, in full or in part, several times up to what was captured. The
 * refund's money leaves the merchant's available balance when the refund is made — which may take
 * it below zero while the payment's own funds are still pending, as a real acquirer's balance
 * does; later debits that need available funds (payouts, transfers) are refused until it recovers.
 * Refund magic cards: …7726 stays pending a banking day, …5126 fails (nothing moves).
 */
export async function refundCardPayment(
  ctx: ServiceContext,
  id: string,
  raw: unknown,
): Promise<{ payment: CardPaymentDetail; refund: RefundRow }> {
  const input = parseInput(refundSchema, raw ?? {}, amountFieldCodes);
  const result = await inTransaction(ctx.db, ctx.tx, async (tx) => {
    const current = await loadPayment(tx, ctx, id);
    transition(cardPaymentMachine, current.state as never, 'refund');
    const currency = current.currency as CurrencyCode;
    const remaining = current.amountCaptured - current.amountRefunded;
    const amount =
      input.amount === undefined ? remaining : parseAmount(input.amount, currency, { max: remaining });
    const now = ctx.clock.now();
    const [pending] = await tx
      .insert(cardRefunds)
      .values({
        id: newId('refund'),
        merchantId: ctx.merchant.id,
        cardPaymentId: current.id,
        state: refundMachine.initial,
        amount,
        currency,
        reason: input.reason ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!pending) throw new Error('insert returned no row');
    await emitRefundEvent(tx, pending);
    if (current.refundBehavior === 'fails') {
      const failed = await moveRefund(tx, ctx, pending, 'fail', {
        failureReason: 'The card issuer declined the refund.',
      });
      return { payment: current, refund: failed };
    }
    const payment = await takeRefund(tx, ctx, current, amount);
    if (current.issuingAuthorizationId)
      await followAcquirer(tx, ctx, current.issuingAuthorizationId, { kind: 'refund', amount });
    await post(tx, {
      merchantId: ctx.merchant.id,
      currency,
      type: 'refund',
      source: { type: 'refund', id: pending.id },
      relatedId: current.id,
      at: now,
      entries: [
        { account: 'available', amount: -amount },
        { account: 'card_network', amount },
      ],
      allowNegative: ['available'],
    });
    if (current.refundBehavior === 'pending_then_succeeds') {
      await scheduleJob(tx, {
        merchantId: ctx.merchant.id,
        kind: SETTLE_REFUND_JOB,
        objectId: pending.id,
        dueAt: fundsAvailableAt(now, 1),
        payload: {},
        createdAt: now,
      });
      return { payment, refund: pending };
    }
    return { payment, refund: await moveRefund(tx, ctx, pending, 'succeed') };
  });
  return { payment: await withRefunds(ctx.tx ?? ctx.db, result.payment), refund: result.refund };
}

/**
 * Adds a refund to the payment's refunded amount with one guarded UPDATE, so concurrent refunds can
 * never together exceed the captured amount; the state follows (partially_refunded or refunded).
 */
async function takeRefund(
  tx: Tx,
  ctx: ServiceContext,
  payment: CardPaymentRow,
  amount: bigint,
): Promise<CardPaymentRow> {
  const total = sql`${cardPayments.amountRefunded} + ${amount.toString()}::bigint`;
  const [updated] = await tx
    .update(cardPayments)
    .set({
      amountRefunded: total,
      state: sql`CASE WHEN ${total} = ${cardPayments.amountCaptured} THEN 'refunded' ELSE 'partially_refunded' END`,
      updatedAt: ctx.clock.now(),
    })
    .where(
      and(
        eq(cardPayments.id, payment.id),
        inArray(cardPayments.state, ['captured', 'partially_refunded']),
        sql`${total} <= ${cardPayments.amountCaptured}`,
      ),
    )
    .returning();
  if (!updated) {
    const current = await loadPayment(tx, ctx, payment.id);
    transition(cardPaymentMachine, current.state as never, 'refund');
    throw new SandbankError('amount_invalid', {
      param: 'amount',
      message: 'The refunds would exceed the captured amount.',
    });
  }
  if (updated.state !== payment.state)
    await emitPaymentEvent(tx, ctx, updated, (await refundsOf(tx, [updated.id])).get(updated.id) ?? []);
  return updated;
}

async function moveRefund(
  tx: Tx,
  ctx: ServiceContext,
  refund: RefundRow,
  event: 'succeed' | 'fail',
  values: Partial<RefundRow> = {},
): Promise<RefundRow> {
  const moved = await transitionRow(tx, refundMachine, cardRefunds, refund, event, {
    ...values,
    updatedAt: ctx.clock.now(),
  });
  await emitRefundEvent(tx, moved);
  return moved;
}

/** The scheduled half of a pending refund (magic card …7726): it succeeds a banking day later. */
export async function settleRefundJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [refund] = await ctx.tx.select().from(cardRefunds).where(eq(cardRefunds.id, job.objectId));
  if (refund?.state !== 'pending') return;
  await moveRefund(ctx.tx, ctx, refund, 'succeed');
}
