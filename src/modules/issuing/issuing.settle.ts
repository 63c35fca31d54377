import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { step } from '../../db/step.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { formatDecimal, parseAmount } from '../../kernel/money.ts';
import { transition } from '../../kernel/state-machine.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import { placeHold, postHold, voidHold } from '../ledger/ledger.holds.ts';
import { post } from '../ledger/ledger.post.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
import { issuingAuthorizationMachine } from './issuing.machine.ts';
import type { IssuingAuthorizationRow } from './issuing.resource.ts';
import { AUTHORIZATION_MAX_MINOR, issuingAuthorizationKind, loadAuthorization } from './issuing.rows.ts';
import type { AuthorizationAmountInput } from './issuing.schema.ts';
import { issuingAuthorizations } from './issuing.table.ts';

type Ctx = ServiceContext & { tx: Tx };

function optionalAmount(
  input: AuthorizationAmountInput,
  fallback: bigint,
  max: bigint,
  what: string,
): bigint {
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
function simulateStep(
  ctx: ServiceContext,
  id: string,
  work: (tx: Tx, row: IssuingAuthorizationRow) => Promise<IssuingAuthorizationRow>,
): Promise<IssuingAuthorizationRow> {
  return inContextTx(ctx, async (tx) => {
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

export const outstanding = (row: IssuingAuthorizationRow) => row.amount - row.amountReversed;

/**
 * Clearing (`capture {amount?}`, default what is still authorized). The amount may differ from
 * the authorization, as clearing does (a tip, a fuel pump): the hold is released and the captured
 * amount leaves available — above the hold even if that takes available below zero, as an issuer
 * must pay a clearing it approved.
 */
export function captureAuthorization(ctx: ServiceContext, id: string, input: AuthorizationAmountInput = {}) {
  return simulateStep(ctx, id, (tx, row) => {
    transition(issuingAuthorizationMachine, row.state, 'capture');
    const amount = optionalAmount(input, outstanding(row), AUTHORIZATION_MAX_MINOR, 'captured');
    return captureOn(tx, ctx, row, amount);
  });
}

/**
 * Money between the card's merchant's available balance and the card network for one of its
 * authorizations: `toNetwork` minor units out of available (a capture), or back in when negative (a
 * refund). A capture may take available below zero.
 */
function postWithNetwork(
  tx: Tx,
  row: IssuingAuthorizationRow,
  type: 'issuing_capture' | 'issuing_refund',
  toNetwork: bigint,
  at: Date,
) {
  return post(tx, {
    merchantId: row.merchantId,
    currency: 'USD',
    type,
    source: { type: 'issuing_authorization', id: row.id },
    at,
    entries: [
      { account: 'available', amount: -toNetwork },
      { account: 'card_network', amount: toNetwork },
    ],
    ...(toNetwork > 0n ? { allowNegative: ['available'] as const } : {}),
  });
}

export async function captureOn(tx: Tx, ctx: ServiceContext, row: IssuingAuthorizationRow, amount: bigint) {
  const now = ctx.clock.now();
  if (amount === outstanding(row)) {
    await postHold(tx, row.merchantId, row.holdId as string, now, 'card_network');
  } else {
    await voidHold(tx, row.merchantId, row.holdId as string, now);
    // Above the hold, as an issuer must pay a clearing it approved.
    await postWithNetwork(tx, row, 'issuing_capture', amount, now);
  }
  return step(tx, ctx, issuingAuthorizationKind, row, 'capture', { amountCaptured: amount, updatedAt: now });
}

/**
 * `reverse {amount?}`: the merchant gives back all (default) or part of what is still authorized;
 * the hold shrinks by it, and what was reversed no longer counts against a limit.
 */
export function reverseAuthorization(ctx: ServiceContext, id: string, input: AuthorizationAmountInput = {}) {
  return simulateStep(ctx, id, (tx, row) => {
    transition(issuingAuthorizationMachine, row.state, 'reverse');
    const amount = optionalAmount(input, outstanding(row), outstanding(row), 'reversed');
    return reverseOn(tx, ctx, row, amount);
  });
}

export async function reverseOn(tx: Tx, ctx: ServiceContext, row: IssuingAuthorizationRow, amount: bigint) {
  const now = ctx.clock.now();
  const left = outstanding(row) - amount;
  await voidHold(tx, row.merchantId, row.holdId as string, now);
  let holdId = row.holdId;
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
    holdId = hold.id;
  }
  return step(tx, ctx, issuingAuthorizationKind, row, left === 0n ? 'reverse' : 'reverse_part', {
    amountReversed: row.amountReversed + amount,
    holdId,
    updatedAt: now,
  });
}

/** `refund {amount?}`: money back from the merchant on a capture, up to what was captured. */
export function refundAuthorization(ctx: ServiceContext, id: string, input: AuthorizationAmountInput = {}) {
  return simulateStep(ctx, id, (tx, row) => {
    transition(issuingAuthorizationMachine, row.state, 'refund'); // 409 before a 400 on the amount
    const left = row.amountCaptured - row.amountRefunded;
    if (left === 0n) {
      throw new SandbankError('invalid_state', { message: 'This authorization is refunded in full.' });
    }
    return refundOn(tx, ctx, row, optionalAmount(input, left, left, 'refunded'));
  });
}

export async function refundOn(tx: Tx, ctx: ServiceContext, row: IssuingAuthorizationRow, amount: bigint) {
  const now = ctx.clock.now();
  await postWithNetwork(tx, row, 'issuing_refund', -amount, now);
  return step(tx, ctx, issuingAuthorizationKind, row, 'refund', {
    amountRefunded: row.amountRefunded + amount,
    updatedAt: now,
  });
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
  await voidHold(ctx.tx, row.merchantId, row.holdId as string, now);
  await step(ctx.tx, ctx, issuingAuthorizationKind, row, 'expire', { updatedAt: now });
}
