import { and, eq } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { updateIfState } from '../../db/compare-and-set.ts';
import { inTransaction } from '../../db/tx.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { invalidState } from '../../kernel/state-machine.ts';
import { parseInput } from '../../kernel/validation.ts';
import { validateBankAccount } from '../bank-accounts/bank-account.ts';
import {
  decideAfterChallenge,
  decideAuthorization,
  type NetworkDecision,
  type ValidCard,
  validateCard,
} from '../cards/network.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/events.service.ts';
import { creditPendingFunds } from '../ledger/ledger.funds.ts';
import { attemptMachine } from './collections.machine.ts';
import { type AttemptRow, attemptResource, type CollectionRow } from './collections.resource.ts';
import { completeChallengeSchema, payCollectionSchema } from './collections.schema.ts';
import { loadCollection, transitionCollection } from './collections.service.ts';
import { collections, paymentAttempts } from './collections.table.ts';

export interface NextAction {
  type: 'three_d_secure';
  url: string;
}

export interface PayResult {
  collection: CollectionRow;
  attempt: AttemptRow;
  nextAction: NextAction | null;
}

type Settled = Exclude<NetworkDecision, { outcome: 'challenge' }>;

export function challengeUrl(publicUrl: string, collectionId: string, attemptId: string): string {
  return `${publicUrl}/checkout/${collectionId}/3ds/${attemptId}`;
}

/**
 * Pays a pending collection by card or US bank account: the code path of the hosted checkout and
 * of POST /v1/simulate/collections/{reference}/pay. A declined card is recorded as a failed attempt,
 * the collection stays pending, and the call ends in 402 card_declined after the record commits.
 */
export async function payCollection(
  ctx: ServiceContext,
  reference: string,
  raw: unknown,
): Promise<PayResult> {
  const input = parseInput(payCollectionSchema, raw, { card: 'parameter_invalid' });
  const result = await inTransaction(ctx.db, ctx.tx, async (tx) => {
    if (input.method === 'bank_account') {
      const account = validateBankAccount(input.bank_account, 'bank_account');
      const collection = await payableCollection(tx, ctx, reference);
      const attempt = await insertAttempt(tx, ctx, collection, {
        method: 'bank_account',
        state: 'processing',
        bankRoutingNumber: account.routingNumber,
        bankAccountLast4: account.last4,
        bankAccountType: account.accountType,
      });
      return {
        collection: await transitionCollection(tx, ctx, collection, 'submit_bank_payment'),
        attempt,
        nextAction: null,
      };
    }
    const card = validateCard(input.card);
    const collection = await payableCollection(tx, ctx, reference);
    const now = ctx.clock.now();
    let decision = decideAuthorization(card, now);
    if (decision.outcome === 'challenge' && !input.three_d_secure) {
      const passed = decideAfterChallenge(card, 'succeed', now);
      const attempt = await insertAttempt(tx, ctx, collection, {
        ...cardColumns(card),
        state: 'requires_action',
        threeDSecure: 'required',
        challengeResult: passed.outcome === 'declined' ? declinedParts(passed) : null,
      });
      const nextAction: NextAction = {
        type: 'three_d_secure',
        url: challengeUrl(ctx.publicUrl, collection.id, attempt.id),
      };
      return { collection, attempt, nextAction };
    }
    let threeDSecure: string | null = null;
    if (decision.outcome === 'challenge') {
      decision = decideAfterChallenge(card, input.three_d_secure ?? 'fail', now);
      threeDSecure = input.three_d_secure === 'succeed' ? 'succeeded' : 'failed';
    }
    return settleCardAttempt(tx, ctx, collection, decision, { ...cardColumns(card), threeDSecure });
  });
  throwIfDeclined(result.attempt);
  return result;
}

/**
 * Ends a 3-D Secure challenge (the page's Complete / Fail buttons, or the simulate endpoint). The
 * checkout passes the collection of its URL, and an attempt of another collection is not found.
 */
export async function completeChallenge(
  ctx: ServiceContext,
  attemptId: string,
  raw: unknown,
  collectionId?: string,
): Promise<PayResult> {
  const { outcome } = parseInput(completeChallengeSchema, raw);
  const result = await inTransaction(ctx.db, ctx.tx, async (tx) => {
    const [attempt] = await tx
      .select()
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.id, attemptId), eq(paymentAttempts.merchantId, ctx.merchant.id)));
    if (!attempt || (collectionId !== undefined && attempt.collectionId !== collectionId))
      throw new SandbankError('resource_not_found', {
        message: `No payment attempt ${attemptId.slice(0, 60)}.`,
      });
    if (attempt.state !== 'requires_action')
      throw invalidState(attemptMachine, attempt.state as never, 'complete_challenge');
    const [current] = await tx.select().from(collections).where(eq(collections.id, attempt.collectionId));
    if (!current) throw new SandbankError('resource_not_found');
    const collection = await payableCollection(tx, ctx, current.reference);
    const decision: Settled =
      outcome === 'fail'
        ? {
            outcome: 'declined',
            declineCode: 'authentication_failed',
            networkResponseCode: null,
            message: '3-D Secure authentication failed.',
          }
        : attempt.challengeResult
          ? { outcome: 'declined', ...attempt.challengeResult }
          : { outcome: 'approved', networkResponseCode: '00' };
    return settleCardAttempt(tx, ctx, collection, decision, {
      existing: attempt,
      threeDSecure: outcome === 'succeed' ? 'succeeded' : 'failed',
    });
  });
  throwIfDeclined(result.attempt);
  return result;
}

function throwIfDeclined(attempt: AttemptRow): void {
  if (attempt.method !== 'card' || attempt.state !== 'failed') return;
  throw new SandbankError('card_declined', {
    message: attempt.failureMessage ?? 'The card was declined.',
    declineCode: attempt.declineCode ?? 'generic_decline',
    objectId: attempt.id,
    commitWrites: true,
  });
}

async function payableCollection(
  exec: Executor,
  ctx: ServiceContext,
  reference: string,
): Promise<CollectionRow> {
  const collection = await loadCollection(exec, ctx, reference);
  if (collection.state !== 'pending') {
    throw new SandbankError('collection_not_payable', {
      message: `This collection is ${collection.state} and cannot be paid.`,
    });
  }
  return collection;
}

function cardColumns(card: ValidCard) {
  return {
    method: 'card' as const,
    cardBrand: card.brand,
    cardLast4: card.last4,
    cardExpMonth: String(card.expMonth),
    cardExpYear: String(card.expYear),
  };
}

function declinedParts(decision: Extract<NetworkDecision, { outcome: 'declined' }>) {
  return {
    declineCode: decision.declineCode,
    networkResponseCode: decision.networkResponseCode,
    message: decision.message,
  };
}

type AttemptColumns = Partial<AttemptRow> & Pick<AttemptRow, 'method' | 'state'>;

async function insertAttempt(
  exec: Executor,
  ctx: ServiceContext,
  collection: CollectionRow,
  columns: AttemptColumns,
): Promise<AttemptRow> {
  const now = ctx.clock.now();
  const [attempt] = await exec
    .insert(paymentAttempts)
    .values({
      id: newId('paymentAttempt'),
      merchantId: collection.merchantId,
      collectionId: collection.id,
      amount: collection.amount,
      currency: collection.currency,
      createdAt: now,
      updatedAt: now,
      ...columns,
    })
    .returning();
  if (!attempt) throw new Error('insert returned no row');
  await emitAttemptEvent(exec, attempt);
  return attempt;
}

function emitAttemptEvent(exec: Executor, attempt: AttemptRow): Promise<string> {
  return recordEvent(exec, {
    merchantId: attempt.merchantId,
    type: `payment_attempt.${attempt.state}`,
    objectId: attempt.id,
    data: { object: attemptResource(attempt) },
    at: attempt.updatedAt,
  });
}

interface SettleOptions extends Partial<AttemptColumns> {
  existing?: AttemptRow;
}

/** Records the network's final answer on an attempt and, when approved, marks the collection paid. */
async function settleCardAttempt(
  exec: Tx,
  ctx: ServiceContext,
  collection: CollectionRow,
  decision: Settled,
  { existing, ...columns }: SettleOptions,
): Promise<PayResult> {
  const approved = decision.outcome === 'approved';
  const outcome = {
    state: approved ? 'succeeded' : 'failed',
    networkResponseCode: decision.networkResponseCode,
    declineCode: approved ? null : decision.declineCode,
    failureMessage: approved ? null : decision.message,
  };
  let attempt: AttemptRow;
  if (existing) {
    const updated = await updateIfState(exec, paymentAttempts, existing.id, existing.state, {
      ...columns,
      ...outcome,
      updatedAt: ctx.clock.now(),
    });
    if (!updated) throw invalidState(attemptMachine, existing.state as never, 'complete_challenge');
    attempt = updated;
    await emitAttemptEvent(exec, attempt);
  } else {
    attempt = await insertAttempt(exec, ctx, collection, { method: 'card', ...columns, ...outcome });
  }
  if (!approved) return { collection, attempt, nextAction: null };
  const paid = await transitionCollection(exec, ctx, collection, 'pay_by_card');
  await creditPendingFunds(exec, ctx, {
    amount: paid.amount,
    currency: paid.currency as CurrencyCode,
    source: { type: 'collection', id: paid.id },
    type: 'collection_payment',
    from: 'card_network',
  });
  return { collection: paid, attempt, nextAction: null };
}

/** A payment attempt and its collection as they are now (an idempotent replay of a payment). */
export async function loadPayResult(ctx: ServiceContext, attemptId: string): Promise<PayResult> {
  const exec = ctx.tx ?? ctx.db;
  const [attempt] = await exec
    .select()
    .from(paymentAttempts)
    .where(and(eq(paymentAttempts.id, attemptId), eq(paymentAttempts.merchantId, ctx.merchant.id)));
  if (!attempt) throw new SandbankError('resource_not_found');
  const [collection] = await exec.select().from(collections).where(eq(collections.id, attempt.collectionId));
  if (!collection) throw new SandbankError('resource_not_found');
  const nextAction: NextAction | null =
    attempt.state === 'requires_action'
      ? { type: 'three_d_secure', url: challengeUrl(ctx.publicUrl, collection.id, attempt.id) }
      : null;
  return { collection, attempt, nextAction };
}
