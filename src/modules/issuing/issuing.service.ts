import { randomInt } from 'node:crypto';
import { and, desc, eq, gte, inArray, lt } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { transitionRow } from '../../db/compare-and-set.ts';
import { inTransaction } from '../../db/tx.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { formatDecimal, parseAmount } from '../../kernel/money.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { secretsEqual } from '../../kernel/secrets.ts';
import { transition } from '../../kernel/state-machine.ts';
import { parseInput } from '../../kernel/validation.ts';
import { luhnCheckDigit, TEST_CARDS } from '../cards/network.ts';
import { clockInTransaction } from '../clock/clock.service.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/events.service.ts';
import { lockLedgers, placeHold, post, postHold, voidHold } from '../ledger/ledger.service.ts';
import { merchants } from '../merchants/merchants.table.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import {
  DECLINES,
  decideIssuing,
  type IssuingDecision,
  type LimitInterval,
  type PriorSpend,
  type SpendingControls,
  validateMcc,
  windowStart,
} from './issuing.controls.ts';
import { issuingAuthorizationMachine, virtualCardMachine } from './issuing.machine.ts';
import {
  type IssuingAuthorizationRow,
  issuingAuthorizationResource,
  type VirtualCardRow,
  virtualCardResource,
} from './issuing.resource.ts';
import {
  authorizationAmountSchema,
  authorizationFieldCodes,
  createVirtualCardSchema,
  simulateAuthorizationSchema,
  spendingControlsSchema,
  updateVirtualCardSchema,
  virtualCardFieldCodes,
} from './issuing.schema.ts';
import { issuingAuthorizations, type StoredControls, virtualCards } from './issuing.table.ts';

/** An approved authorization not captured within this many days of clock time expires. */
export const AUTHORIZATION_TTL_DAYS = 7;
export const EXPIRE_ISSUING_AUTHORIZATION_JOB = 'issuing.expire_authorization';
/** The most one authorization may be for (USD cents): 999,999.99, as for card payments. */
const AUTHORIZATION_MAX_MINOR = 99_999_999n;

/**
 * The BINs this sandbox issues from (16-digit numbers). None of the magic test cards starts with
 * them, so an issued card is never one of those; the closed loop recognises its cards by them.
 */
export const ISSUING_BINS = { visa: '485932', mastercard: '532610' } as const;

type Ctx = ServiceContext & { tx: Tx };

// ---------------------------------------------------------------------------------------------
// Cards

function newCardNumber(brand: keyof typeof ISSUING_BINS): string {
  let body = ISSUING_BINS[brand];
  while (body.length < 15) body += String(randomInt(10));
  return body + luhnCheckDigit(body);
}

/** Parses and validates spending controls: amounts in USD, MCCs of ISO 18245, stored as strings. */
function parseControls(input: unknown, param = 'spending_controls'): StoredControls {
  const parsed = parseInput(spendingControlsSchema, input ?? {});
  const limits = (parsed.limits ?? []).map((limit, i) => {
    const amount = parseAmount(limit.amount, 'USD', { max: AUTHORIZATION_MAX_MINOR * 1000n });
    if (amount <= 0n) throw new SandbankError('amount_invalid', { param: `${param}.limits.${i}.amount` });
    return { amount: amount.toString(), interval: limit.interval };
  });
  const mccs = (list: string[] | undefined, name: string) =>
    list?.map((mcc, i) => validateMcc(mcc, `${param}.${name}.${i}`));
  return {
    limits,
    allowed_mccs: mccs(parsed.allowed_mccs, 'allowed_mccs') ?? null,
    blocked_mccs: mccs(parsed.blocked_mccs, 'blocked_mccs') ?? [],
  };
}

function controlsOf(stored: StoredControls): SpendingControls {
  return {
    limits: stored.limits.map((limit) => ({
      amount: BigInt(limit.amount),
      interval: limit.interval as LimitInterval,
    })),
    allowedMccs: stored.allowed_mccs,
    blockedMccs: stored.blocked_mccs,
  };
}

function emitCard(exec: Executor, row: VirtualCardRow, type: string): Promise<string> {
  return recordEvent(exec, {
    merchantId: row.merchantId,
    type: `virtual_card.${type}`,
    objectId: row.id,
    data: { object: virtualCardResource(row) },
    at: row.updatedAt,
  });
}

/** POST /v1/virtual_cards: a unique, Luhn-valid number of the brand, a CVC, three years of validity. */
export async function createVirtualCard(ctx: ServiceContext, raw: unknown): Promise<VirtualCardRow> {
  const input = parseInput(createVirtualCardSchema, raw, virtualCardFieldCodes);
  const controls = parseControls(input.spending_controls);
  const now = ctx.clock.now();
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const number = newCardNumber(input.brand);
      if (TEST_CARDS.some((card) => card.number === number)) continue;
      const [row] = await tx
        .insert(virtualCards)
        .values({
          id: newId('virtualCard'),
          merchantId: ctx.merchant.id,
          brand: input.brand,
          number,
          cvc: String(randomInt(1000)).padStart(3, '0'),
          last4: number.slice(-4),
          expMonth: now.getUTCMonth() + 1,
          expYear: now.getUTCFullYear() + 3,
          cardholderName: input.cardholder_name,
          state: virtualCardMachine.initial,
          spendingControls: controls,
          metadata: input.metadata ?? {},
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing({ target: virtualCards.number })
        .returning();
      if (!row) continue; // that number is taken: draw another
      await emitCard(tx, row, 'created');
      return row;
    }
    throw new Error('could not draw an unused card number');
  });
}

async function loadCard(
  exec: Executor,
  merchantId: string,
  id: string,
  lock = false,
): Promise<VirtualCardRow> {
  const query = exec
    .select()
    .from(virtualCards)
    .where(and(eq(virtualCards.id, id), eq(virtualCards.merchantId, merchantId)));
  const [row] = id.includes('\u0000') ? [] : lock ? await query.for('update') : await query;
  if (!row) throw new SandbankError('resource_not_found', { message: `No virtual card ${id.slice(0, 60)}.` });
  return row;
}

export function getVirtualCard(ctx: ServiceContext, id: string): Promise<VirtualCardRow> {
  return loadCard(ctx.tx ?? ctx.db, ctx.merchant.id, id);
}

/**
 * What a stored (idempotent) create response leaves out and a replay reads back from the card:
 * the number and CVC, kept only on the card itself.
 */
export const virtualCardSecrets = {
  fields: ['number', 'cvc'],
  async load(tx: Tx, merchantId: string, id: string) {
    const [row] = await tx
      .select({ number: virtualCards.number, cvc: virtualCards.cvc })
      .from(virtualCards)
      .where(and(eq(virtualCards.id, id), eq(virtualCards.merchantId, merchantId)));
    return row ?? null;
  },
} as const;

export async function listVirtualCards(
  ctx: ServiceContext,
  query: ListQuery & { state?: string | undefined },
): Promise<Page<VirtualCardRow>> {
  const conditions = [eq(virtualCards.merchantId, ctx.merchant.id)];
  if (query.starting_after) conditions.push(lt(virtualCards.id, query.starting_after));
  if (query.state) conditions.push(eq(virtualCards.state, query.state));
  const rows = await (ctx.tx ?? ctx.db)
    .select()
    .from(virtualCards)
    .where(and(...conditions))
    .orderBy(desc(virtualCards.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit);
}

const STATE_EVENTS = { active: 'unfreeze', frozen: 'freeze', canceled: 'cancel' } as const;

/**
 * POST /v1/virtual_cards/{id}: a new state (active ⇄ frozen → canceled; 409 invalid_state
 * otherwise), new spending controls (replacing the old ones), new metadata. One event per call:
 * `virtual_card.<state>` when the state changed, else `virtual_card.updated`.
 */
export async function updateVirtualCard(
  ctx: ServiceContext,
  id: string,
  raw: unknown,
): Promise<VirtualCardRow> {
  const input = parseInput(updateVirtualCardSchema, raw);
  const controls = input.spending_controls === undefined ? undefined : parseControls(input.spending_controls);
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    const card = await loadCard(tx, ctx.merchant.id, id, true);
    const now = ctx.clock.now();
    const changesState = input.state !== undefined && input.state !== card.state;
    const values = {
      ...(controls ? { spendingControls: controls } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
      // Unfreezing forgives the wrong security codes that froze it.
      ...(changesState && input.state === 'active' ? { cvcFailures: 0 } : {}),
      updatedAt: now,
    };
    if (!changesState && card.state === 'canceled') {
      throw new SandbankError('invalid_state', {
        message: 'This virtual card is canceled; it cannot change.',
      });
    }
    const [row] = changesState
      ? [await transitionRow(tx, virtualCardMachine, virtualCards, card, STATE_EVENTS[input.state!], values)]
      : await tx.update(virtualCards).set(values).where(eq(virtualCards.id, card.id)).returning();
    if (!row) throw new Error('virtual card update returned no row');
    await emitCard(tx, row, changesState ? row.state : 'updated');
    return row;
  });
}

// ---------------------------------------------------------------------------------------------
// Authorizations

function emitAuthorization(exec: Executor, row: IssuingAuthorizationRow, type: string): Promise<string> {
  return recordEvent(exec, {
    merchantId: row.merchantId,
    type: `issuing_authorization.${type}`,
    objectId: row.id,
    data: { object: issuingAuthorizationResource(row) },
    at: row.updatedAt,
  });
}

/** The card's earlier authorizations that may count against a limit now (those in the widest window). */
async function priorSpend(tx: Tx, card: VirtualCardRow, now: Date): Promise<PriorSpend[]> {
  // The earliest start of any of the card's windows (a week can begin before its month or year).
  const starts = card.spendingControls.limits
    .map((limit) => windowStart(limit.interval as LimitInterval, now))
    .filter((start): start is Date => start !== null);
  if (starts.length === 0) return [];
  const start = new Date(Math.min(...starts.map((at) => at.getTime())));
  return tx
    .select({
      createdAt: issuingAuthorizations.createdAt,
      state: issuingAuthorizations.state,
      amount: issuingAuthorizations.amount,
      amountReversed: issuingAuthorizations.amountReversed,
      amountCaptured: issuingAuthorizations.amountCaptured,
    })
    .from(issuingAuthorizations)
    .where(
      and(
        eq(issuingAuthorizations.cardId, card.id),
        gte(issuingAuthorizations.createdAt, start),
        inArray(issuingAuthorizations.state, ['approved', 'captured']),
      ),
    );
}

export interface AuthorizationRequest {
  amount: bigint;
  merchant: { name: string; mcc: string; country: string };
  reference?: string | null;
  cardPaymentId?: string | null;
}

/**
 * Decides an authorization on a card locked by the caller, in the card merchant's transaction and
 * on its clock: the controls in the precedence of issuing.controls.ts, then the funds — an approval
 * holds the amount on the merchant's available USD (a hold that does not fit is declined
 * insufficient_funds, inside a savepoint so nothing of it stays). Writes the authorization, its
 * event and its expiry.
 */
export async function authorizeOnCard(
  tx: Tx,
  ctx: ServiceContext,
  card: VirtualCardRow,
  request: AuthorizationRequest,
): Promise<IssuingAuthorizationRow> {
  const now = ctx.clock.now();
  const id = newId('issuingAuthorization');
  let decision: IssuingDecision = decideIssuing({
    card: { ...card, controls: controlsOf(card.spendingControls) },
    amount: request.amount,
    mcc: request.merchant.mcc,
    now,
    prior: await priorSpend(tx, card, now),
  });
  let holdId: string | null = null;
  if (decision.outcome === 'approved') {
    try {
      holdId = await tx.transaction(async (savepoint) => {
        const hold = await placeHold(savepoint, {
          merchantId: card.merchantId,
          currency: 'USD',
          amount: request.amount,
          type: 'issuing_authorization',
          source: { type: 'issuing_authorization', id },
          at: now,
        });
        return hold.id;
      });
    } catch (error) {
      if (!(error instanceof SandbankError && error.code === 'insufficient_balance')) throw error;
      decision = { outcome: 'declined', reason: 'insufficient_funds', interval: null };
    }
  }
  const approved = decision.outcome === 'approved';
  const [row] = await tx
    .insert(issuingAuthorizations)
    .values({
      id,
      merchantId: card.merchantId,
      cardId: card.id,
      state: approved ? 'approved' : 'declined',
      amount: request.amount,
      amountReversed: 0n,
      amountCaptured: 0n,
      amountRefunded: 0n,
      currency: 'USD',
      merchantName: request.merchant.name,
      merchantMcc: request.merchant.mcc,
      merchantCountry: request.merchant.country,
      declineReason: decision.outcome === 'declined' ? decision.reason : null,
      declineInterval: decision.outcome === 'declined' ? decision.interval : null,
      networkResponseCode: decision.outcome === 'declined' ? DECLINES[decision.reason].iso : '00',
      holdId,
      cardPaymentId: request.cardPaymentId ?? null,
      reference: request.reference ?? null,
      // A closed-loop authorization lives as long as its card payment: the acquirer's void or
      // expiry reverses it, so it has no expiry of its own on the issuer's clock.
      expiresAt:
        approved && !request.cardPaymentId
          ? new Date(now.getTime() + AUTHORIZATION_TTL_DAYS * 86_400_000)
          : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error('authorization insert returned no row');
  await emitAuthorization(tx, row, row.state);
  if (approved && row.expiresAt) {
    await scheduleJob(tx, {
      merchantId: row.merchantId,
      kind: EXPIRE_ISSUING_AUTHORIZATION_JOB,
      objectId: row.id,
      dueAt: row.expiresAt,
      createdAt: now,
    });
  }
  return row;
}

/**
 * POST /v1/simulate/virtual_cards/{id}/authorizations: a merchant somewhere asks to charge the
 * card. Approved or declined, the answer is 200 with the authorization (a decline is the card
 * issuer's answer, not an API error). The card row is locked: authorizations of one card are
 * decided one at a time, so concurrent ones never overshoot a limit or the balance.
 */
export async function simulateAuthorization(
  ctx: ServiceContext,
  cardId: string,
  raw: unknown,
): Promise<IssuingAuthorizationRow> {
  const input = parseInput(simulateAuthorizationSchema, raw, authorizationFieldCodes);
  const amount = parseAmount(input.amount, 'USD', { max: AUTHORIZATION_MAX_MINOR });
  const mcc = validateMcc(input.merchant.mcc, 'merchant.mcc');
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    const card = await loadCard(tx, ctx.merchant.id, cardId, true);
    return authorizeOnCard(tx, ctx, card, {
      amount,
      merchant: { name: input.merchant.name, mcc, country: input.merchant.country ?? 'US' },
      reference: input.reference ?? null,
    });
  });
}

async function loadAuthorization(exec: Executor, merchantId: string, id: string, lock = false) {
  const query = exec
    .select()
    .from(issuingAuthorizations)
    .where(and(eq(issuingAuthorizations.id, id), eq(issuingAuthorizations.merchantId, merchantId)));
  const [row] = id.includes('\u0000') ? [] : lock ? await query.for('update') : await query;
  if (!row)
    throw new SandbankError('resource_not_found', {
      message: `No issuing authorization ${id.slice(0, 60)}.`,
    });
  return row;
}

export function getAuthorization(ctx: ServiceContext, id: string): Promise<IssuingAuthorizationRow> {
  return loadAuthorization(ctx.tx ?? ctx.db, ctx.merchant.id, id);
}

export async function listAuthorizations(
  ctx: ServiceContext,
  cardId: string,
  query: ListQuery,
): Promise<Page<IssuingAuthorizationRow>> {
  const card = await getVirtualCard(ctx, cardId);
  const conditions = [eq(issuingAuthorizations.cardId, card.id)];
  if (query.starting_after) conditions.push(lt(issuingAuthorizations.id, query.starting_after));
  const rows = await (ctx.tx ?? ctx.db)
    .select()
    .from(issuingAuthorizations)
    .where(and(...conditions))
    .orderBy(desc(issuingAuthorizations.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit);
}

function optionalAmount(raw: unknown, fallback: bigint, max: bigint, what: string): bigint {
  const input = parseInput(authorizationAmountSchema, raw ?? {}, { amount: 'amount_invalid' });
  if (input.amount === undefined) return fallback;
  const amount = parseAmount(input.amount, 'USD');
  if (amount > max) {
    throw new SandbankError('amount_invalid', {
      param: 'amount',
      message: `At most ${formatDecimal(max, 'USD')} USD can be ${what}.`,
    });
  }
  return amount;
}

/**
 * A simulated step on one authorization, in a transaction of its own, with the row locked. An
 * authorization of a card payment made on this sandbox (the closed loop) is driven by that
 * payment only: clearing it here would debit the issuer without crediting the acquirer, or credit
 * the acquirer for money the issuer never paid.
 */
function step(
  ctx: ServiceContext,
  id: string,
  work: (tx: Tx, row: IssuingAuthorizationRow) => Promise<IssuingAuthorizationRow>,
): Promise<IssuingAuthorizationRow> {
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    const row = await loadAuthorization(tx, ctx.merchant.id, id, true);
    if (row.cardPaymentId) {
      throw new SandbankError('invalid_state', {
        message:
          'This authorization belongs to a card payment made on this sandbox; it follows that payment (capture, void or refund the card payment instead).',
      });
    }
    return work(tx, row);
  });
}

const outstanding = (row: IssuingAuthorizationRow) => row.amount - row.amountReversed;
const byAmount = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Clearing (`capture {amount?}`, default what is still authorized). The amount may differ from
 * the authorization, as clearing does (a tip, a fuel pump): the hold is released and the captured
 * amount leaves available — above the hold even if that takes available below zero, as an issuer
 * must pay a clearing it approved.
 */
export function captureAuthorization(ctx: ServiceContext, id: string, raw: unknown) {
  return step(ctx, id, (tx, row) => {
    transition(issuingAuthorizationMachine, row.state as never, 'capture');
    const amount = optionalAmount(raw, outstanding(row), AUTHORIZATION_MAX_MINOR, 'captured');
    return captureOn(tx, ctx, row, amount);
  });
}

async function captureOn(tx: Tx, ctx: ServiceContext, row: IssuingAuthorizationRow, amount: bigint) {
  const now = ctx.clock.now();
  const moved = await transitionRow(tx, issuingAuthorizationMachine, issuingAuthorizations, row, 'capture', {
    amountCaptured: amount,
    updatedAt: now,
  });
  if (amount === outstanding(row)) {
    await postHold(tx, row.merchantId, row.holdId as string, now, 'card_network');
  } else {
    await voidHold(tx, row.merchantId, row.holdId as string, now);
    await post(tx, {
      merchantId: row.merchantId,
      currency: 'USD',
      type: 'issuing_capture',
      source: { type: 'issuing_authorization', id: row.id },
      at: now,
      entries: [
        { account: 'available', amount: -amount },
        { account: 'card_network', amount },
      ],
      allowNegative: ['available'],
    });
  }
  await emitAuthorization(tx, moved, 'captured');
  return moved;
}

/**
 * `reverse {amount?}`: the merchant gives back all (default) or part of what is still authorized;
 * the hold shrinks by it, and what was reversed no longer counts against a limit.
 */
export function reverseAuthorization(ctx: ServiceContext, id: string, raw: unknown) {
  return step(ctx, id, (tx, row) => {
    transition(issuingAuthorizationMachine, row.state as never, 'reverse');
    const amount = optionalAmount(raw, outstanding(row), outstanding(row), 'reversed');
    return reverseOn(tx, ctx, row, amount);
  });
}

async function reverseOn(tx: Tx, ctx: ServiceContext, row: IssuingAuthorizationRow, amount: bigint) {
  const now = ctx.clock.now();
  const left = outstanding(row) - amount;
  const moved = await transitionRow(
    tx,
    issuingAuthorizationMachine,
    issuingAuthorizations,
    row,
    left === 0n ? 'reverse' : 'reverse_part',
    { amountReversed: row.amountReversed + amount, updatedAt: now },
  );
  await voidHold(tx, row.merchantId, row.holdId as string, now);
  if (left > 0n) {
    // What stays authorized was held a moment ago; re-holding it must not fail because available
    // went below zero since (an over-capture elsewhere): it never goes lower than before the reverse.
    const hold = await placeHold(tx, {
      merchantId: row.merchantId,
      currency: 'USD',
      amount: left,
      type: 'issuing_authorization',
      source: { type: 'issuing_authorization', id: row.id },
      at: now,
      allowNegative: ['available'],
    });
    await tx
      .update(issuingAuthorizations)
      .set({ holdId: hold.id })
      .where(eq(issuingAuthorizations.id, row.id));
    moved.holdId = hold.id;
  }
  await emitAuthorization(tx, moved, 'reversed');
  return moved;
}

/** `refund {amount?}`: money back from the merchant on a capture, up to what was captured. */
export function refundAuthorization(ctx: ServiceContext, id: string, raw: unknown) {
  return step(ctx, id, (tx, row) => {
    transition(issuingAuthorizationMachine, row.state as never, 'refund'); // 409 before a 400 on the amount
    const left = row.amountCaptured - row.amountRefunded;
    if (left === 0n) {
      throw new SandbankError('invalid_state', { message: 'This authorization is refunded in full.' });
    }
    return refundOn(tx, ctx, row, optionalAmount(raw, left, left, 'refunded'));
  });
}

async function refundOn(tx: Tx, ctx: ServiceContext, row: IssuingAuthorizationRow, amount: bigint) {
  const now = ctx.clock.now();
  const moved = await transitionRow(tx, issuingAuthorizationMachine, issuingAuthorizations, row, 'refund', {
    amountRefunded: row.amountRefunded + amount,
    updatedAt: now,
  });
  await post(tx, {
    merchantId: row.merchantId,
    currency: 'USD',
    type: 'issuing_refund',
    source: { type: 'issuing_authorization', id: row.id },
    at: now,
    entries: [
      { account: 'card_network', amount: -amount },
      { account: 'available', amount },
    ],
  });
  await emitAuthorization(tx, moved, 'refunded');
  return moved;
}

/** Due work: an approved authorization still not captured at its expiry releases its hold. */
export async function expireIssuingAuthorizationJob(ctx: Ctx, job: JobRow): Promise<void> {
  const [row] = await ctx.tx
    .select()
    .from(issuingAuthorizations)
    .where(
      and(eq(issuingAuthorizations.id, job.objectId), eq(issuingAuthorizations.merchantId, ctx.merchant.id)),
    )
    .for('update');
  if (row?.state !== 'approved' || row.cardPaymentId) return;
  const now = ctx.clock.now();
  const moved = await transitionRow(
    ctx.tx,
    issuingAuthorizationMachine,
    issuingAuthorizations,
    row,
    'expire',
    {
      updatedAt: now,
    },
  );
  await voidHold(ctx.tx, row.merchantId, row.holdId as string, now);
  await emitAuthorization(ctx.tx, moved, 'expired');
}

// ---------------------------------------------------------------------------------------------
// The closed loop: a card payment of this sandbox made with a card this sandbox issued. The
// acquiring side (card-payments) asks here instead of the magic-number network; the issuing
// merchant's controls, balance and clock decide, and the answer becomes the card payment's.

/** The merchant category code acquiring merchants of this sandbox present to the issuer. */
let sandboxMerchantMcc = '5999';

/** Sets it (SANDBANK_MERCHANT_MCC, at start-up). */
export function setSandboxMerchantMcc(mcc: string): void {
  sandboxMerchantMcc = validateMcc(mcc, 'SANDBANK_MERCHANT_MCC');
}

/** Whether a card number comes from this sandbox's issuing BINs. */
export function isIssuedNumber(number: string): boolean {
  return number.length === 16 && Object.values(ISSUING_BINS).some((bin) => number.startsWith(bin));
}

/** The issuing merchant's context inside the acquirer's transaction: its own clock and name. */
async function issuerContext(tx: Tx, acquirer: ServiceContext, merchantId: string): Promise<ServiceContext> {
  const [merchant] = await tx
    .select({ id: merchants.id, name: merchants.name })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  if (!merchant) throw new Error(`card issuer ${merchantId} not found`);
  return { ...acquirer, tx, clock: await clockInTransaction(tx, merchantId), merchant };
}

export interface AcquirerRequest {
  number: string;
  cvc: string;
  expMonth: number;
  expYear: number;
  amount: bigint;
  cardPaymentId: string;
}

export interface IssuerAnswer {
  decision:
    | { outcome: 'approved'; networkResponseCode: '00' }
    | { outcome: 'declined'; declineCode: string; networkResponseCode: string; message: string };
  authorizationId: string | null;
}

const declined = (declineCode: string, iso: string, message: string): IssuerAnswer => ({
  decision: { outcome: 'declined', declineCode, networkResponseCode: iso, message },
  authorizationId: null,
});

/** Wrong security codes in a row after which the issuer freezes the card, as issuers lock cards. */
export const MAX_CVC_FAILURES = 3;

/**
 * Counts a wrong security code against the card; the one that reaches MAX_CVC_FAILURES freezes an
 * active card (`virtual_card.frozen`, on the issuer's clock) until its merchant unfreezes it, so the
 * codes cannot be guessed one payment after another.
 */
async function countCvcFailure(tx: Tx, acquirer: ServiceContext, card: VirtualCardRow): Promise<void> {
  const failures = card.cvcFailures + 1;
  if (failures < MAX_CVC_FAILURES || card.state !== 'active') {
    await tx.update(virtualCards).set({ cvcFailures: failures }).where(eq(virtualCards.id, card.id));
    return;
  }
  const issuer = await issuerContext(tx, acquirer, card.merchantId);
  const values = { cvcFailures: failures, updatedAt: issuer.clock.now() };
  const row = await transitionRow(tx, virtualCardMachine, virtualCards, card, 'freeze', values);
  await emitCard(tx, row, row.state);
}

/**
 * Authorizes a card payment of `acquirer` on the virtual card with this number, whoever issued it.
 * A number no card has is declined `invalid_account` (14); a wrong CVC `incorrect_cvc` (N7) and a
 * wrong expiry `expired_card` (54), before the issuer's controls are asked. Wrong CVCs in a row
 * freeze the card (countCvcFailure); a right one starts the count again.
 */
export async function authorizeFromAcquirer(
  tx: Tx,
  acquirer: ServiceContext,
  request: AcquirerRequest,
): Promise<IssuerAnswer> {
  const [card] = await tx
    .select()
    .from(virtualCards)
    .where(eq(virtualCards.number, request.number))
    .for('update');
  if (!card) return declined('invalid_account', '14', 'No card with this number was issued.');
  if (!secretsEqual(card.cvc, request.cvc)) {
    await countCvcFailure(tx, acquirer, card);
    return declined('incorrect_cvc', 'N7', "The card's security code is incorrect.");
  }
  if (card.cvcFailures > 0)
    await tx.update(virtualCards).set({ cvcFailures: 0 }).where(eq(virtualCards.id, card.id));
  if (card.expMonth !== request.expMonth || card.expYear !== request.expYear)
    return declined('expired_card', '54', "The card's expiry date is incorrect.");
  await lockLedgers(tx, [acquirer.merchant.id, card.merchantId]);
  const issuer = await issuerContext(tx, acquirer, card.merchantId);
  const auth = await authorizeOnCard(tx, issuer, card, {
    amount: request.amount,
    merchant: { name: acquirer.merchant.name, mcc: sandboxMerchantMcc, country: 'US' },
    cardPaymentId: request.cardPaymentId,
  });
  if (auth.state === 'approved')
    return { decision: { outcome: 'approved', networkResponseCode: '00' }, authorizationId: auth.id };
  // The acquirer learns the reason's code, as over a card network, not the issuer's controls (the
  // interval that tripped stays on the issuer's authorization).
  const reason = auth.declineReason as keyof typeof DECLINES;
  return {
    decision: {
      outcome: 'declined',
      declineCode: DECLINES[reason].acquirerCode,
      networkResponseCode: DECLINES[reason].iso,
      message: `The card issuer declined the payment: ${reason.replaceAll('_', ' ')}.`,
    },
    authorizationId: auth.id,
  };
}

/**
 * What the acquiring side did next, mirrored on the issuing side: a capture clears the
 * authorization for the captured amount; a void or an expiry reverses it; a refund refunds it.
 */
export async function followAcquirer(
  tx: Tx,
  acquirer: ServiceContext,
  authorizationId: string,
  step: { kind: 'capture'; amount: bigint } | { kind: 'reverse' } | { kind: 'refund'; amount: bigint },
): Promise<void> {
  const [row] = await tx
    .select()
    .from(issuingAuthorizations)
    .where(eq(issuingAuthorizations.id, authorizationId))
    .for('update');
  if (!row) return;
  await lockLedgers(tx, [acquirer.merchant.id, row.merchantId]);
  const issuer = await issuerContext(tx, acquirer, row.merchantId);
  if (step.kind === 'capture' && row.state === 'approved') await captureOn(tx, issuer, row, step.amount);
  else if (step.kind === 'reverse' && row.state === 'approved')
    await reverseOn(tx, issuer, row, outstanding(row));
  else if (step.kind === 'refund' && row.state === 'captured') {
    // The acquirer caps its refunds at what it captured, which is what the issuer cleared; the cap
    // here keeps the issuer from ever crediting back more than it paid.
    const left = row.amountCaptured - row.amountRefunded;
    if (left > 0n) await refundOn(tx, issuer, row, [step.amount, left].sort(byAmount)[0] as bigint);
  }
}
