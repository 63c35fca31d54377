import { and, eq, gte, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { type Change, type CommitTarget, change, commit, readAndCommit } from '../../db/commit.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { holdPosting } from '../ledger/ledger.holds.ts';
import { ledgerPostingsEffect } from '../ledger/ledger.post.ts';
import { preparePosting } from '../ledger/ledger.statement.ts';
import { jobValues } from '../scheduler/scheduler.service.ts';
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
import type { IssuingAuthorizationRow, VirtualCardRow } from './issuing.resource.ts';
import { AUTHORIZATION_MAX_MINOR, issuingAuthorizationEvent, loadCard } from './issuing.rows.ts';
import type { SimulateAuthorizationInput } from './issuing.schema.ts';
import { issuingAuthorizations, type StoredControls, virtualCards } from './issuing.table.ts';

/** An approved authorization not captured within this many days of clock time expires. */
export const AUTHORIZATION_TTL_DAYS = 7;
export const EXPIRE_ISSUING_AUTHORIZATION_JOB = 'issuing.expire_authorization';

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

/** The card's earlier authorizations that may count against a limit now (those in the widest window). */
async function priorSpend(tx: Executor, card: VirtualCardRow, now: Date): Promise<PriorSpend[]> {
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

/** The hold an approval places on the card merchant's available USD. */
function authorizationHold(card: VirtualCardRow, request: AuthorizationRequest, id: string, at: Date) {
  return {
    merchantId: card.merchantId,
    currency: 'USD' as const,
    amount: request.amount,
    type: 'issuing_authorization',
    source: { type: 'issuing_authorization', id },
    at,
  };
}

/** The authorization a decision makes (its hold placed already when approved). */
function authorizationRow(
  card: VirtualCardRow,
  request: AuthorizationRequest,
  decision: IssuingDecision,
  made: { id: string; holdId: string | null; now: Date },
): IssuingAuthorizationRow {
  const approved = decision.outcome === 'approved';
  return {
    id: made.id,
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
    holdId: made.holdId,
    cardPaymentId: request.cardPaymentId ?? null,
    reference: request.reference ?? null,
    // A closed-loop authorization lives as long as its card payment: the acquirer's void or
    // expiry reverses it, so it has no expiry of its own on the issuer's clock.
    expiresAt:
      approved && !request.cardPaymentId
        ? new Date(made.now.getTime() + AUTHORIZATION_TTL_DAYS * 86_400_000)
        : null,
    createdAt: made.now,
    updatedAt: made.now,
  };
}

/** The job that expires an approval nobody captures (none for a decline or the closed loop). */
function expiryJob(row: IssuingAuthorizationRow) {
  if (row.state !== 'approved' || !row.expiresAt) return null;
  return jobValues({
    merchantId: row.merchantId,
    kind: EXPIRE_ISSUING_AUTHORIZATION_JOB,
    objectId: row.id,
    dueAt: row.expiresAt,
    createdAt: row.createdAt,
  });
}

/**
 * An authorization as one change: the card held as read (its state and controls decided it: the
 * change is written only while they are as read), an approval's hold (a guarded posting: a balance
 * too low refuses the change with insufficient_balance, nothing written), the authorization, its
 * event and its expiry.
 */
function authorizationChange(
  ctx: ServiceContext,
  card: VirtualCardRow,
  request: AuthorizationRequest,
  decision: IssuingDecision,
) {
  const now = ctx.clock.now();
  const id = newId('issuingAuthorization');
  const hold =
    decision.outcome === 'approved'
      ? preparePosting(holdPosting(authorizationHold(card, request, id, now)))
      : null;
  const row = authorizationRow(card, request, decision, { id, holdId: hold?.row.id ?? null, now });
  const work = change().update({
    table: virtualCards,
    id: card.id,
    expect: { state: card.state, spendingControls: card.spendingControls },
    set: {},
  });
  if (hold) work.effect(ledgerPostingsEffect, hold);
  work.insert(issuingAuthorizations, row).event(issuingAuthorizationEvent(row));
  const job = expiryJob(row);
  if (job) work.job(job);
  return { row, work };
}

export interface AuthorizationRequest {
  amount: bigint;
  merchant: { name: string; mcc: string; country: string };
  reference?: string | null;
  cardPaymentId?: string | null;
}

/**
 * Decides an authorization on a card and writes it to `target`, on the card merchant's clock: the
 * controls in the precedence of issuing.controls.ts (a card with limits counts its earlier
 * authorizations: the caller has locked the card), then the funds — an approval holds the amount
 * on the merchant's available USD; when the hold does not fit, the approval is not written (in a
 * caller's transaction it was tried in a savepoint) and the authorization is declined
 * insufficient_funds instead. Writes the authorization, its event and its expiry.
 */
export async function authorizeOnCard(
  target: CommitTarget,
  ctx: ServiceContext,
  card: VirtualCardRow,
  request: AuthorizationRequest,
): Promise<IssuingAuthorizationRow> {
  const now = ctx.clock.now();
  const decision = decideIssuing({
    card: { ...card, controls: controlsOf(card.spendingControls) },
    amount: request.amount,
    mcc: request.merchant.mcc,
    now,
    prior: await priorSpend(dbOf(target), card, now),
  });
  if (decision.outcome === 'approved') {
    const approved = authorizationChange(ctx, card, request, decision);
    try {
      await commitRefusable(target, approved.work);
      return approved.row;
    } catch (error) {
      if (!(error instanceof SandbankError && error.code === 'insufficient_balance')) throw error;
    }
  }
  const declined = authorizationChange(
    ctx,
    card,
    request,
    decision.outcome === 'declined'
      ? decision
      : { outcome: 'declined', reason: 'insufficient_funds', interval: null },
  );
  await commit(target, declined.work);
  return declined.row;
}

/** commit(), in a savepoint of the caller's transaction when there is one, so that a refusal leaves it usable. */
function commitRefusable(target: CommitTarget, work: Change): Promise<void> {
  const { db, tx } = target;
  return tx ? tx.transaction((savepoint) => commit({ db, tx: savepoint }, work)) : commit(target, work);
}

/**
 * POST /v1/simulate/virtual_cards/{id}/authorizations: a merchant somewhere asks to charge the
 * card. Approved or declined, the answer is 200 with the authorization (a decline is the card
 * issuer's answer, not an API error). A card without limits is decided from the card as read
 * (one change, the group commit, written only while the card is as read); a card with limits is
 * locked, so that its authorizations are decided one at a time and concurrent ones never overshoot
 * a limit (readAndCommit).
 */
export async function simulateAuthorization(
  ctx: ServiceContext,
  cardId: string,
  input: SimulateAuthorizationInput,
): Promise<IssuingAuthorizationRow> {
  const amount = parseAmount(input.amount, 'USD', { max: AUTHORIZATION_MAX_MINOR });
  const mcc = validateMcc(input.merchant.mcc, 'merchant.mcc');
  const request: AuthorizationRequest = {
    amount,
    merchant: { name: input.merchant.name, mcc, country: input.merchant.country ?? 'US' },
    reference: input.reference ?? null,
  };
  return readAndCommit(ctx, {
    read: (exec, lock) => loadCard(exec, ctx.merchant.id, cardId, lock),
    optimistic: (card) => card.spendingControls.limits.length === 0,
    write: (card, target) => authorizeOnCard(target, ctx, card, request),
  });
}
