import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { objectEvent, recordEvent } from '../../db/outbox.ts';
import { nextSameDayAchWindow, nextStandardAchDeposit } from '../../kernel/calendar.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { formatDecimal, parseAmount } from '../../kernel/money.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import { counterpartyResource } from './counterparties.resource.ts';
import { loadCounterparty } from './counterparties.service.ts';
import { type CounterpartyRow, counterparties, type VerificationRecord } from './counterparties.table.ts';
import {
  liveEntriesFrom,
  MICRODEPOSIT_AMOUNTS_MINOR,
  MICRODEPOSIT_ATTEMPTS,
  VERIFICATION_RETURNS,
  type VerificationMethod,
  type VerificationState,
} from './counterparties.verification-rules.ts';

/**
 * Verifying a saved counterparty's account: micro-deposits to confirm, or a prenote with its
 * waiting period (the rules: counterparties.verification-rules.ts). Each change of its state is
 * one write with its `counterparty.<state>` event; the bank's side runs as due work on the clock.
 */

/** Due work of a verification: its entries settle (a magic account returns them); a prenote's wait ends. */
export const VERIFICATION_JOB = 'counterparty.verification';

/** Writes the counterparty's verification, with its event when the state changes. */
async function writeVerification(
  tx: Tx,
  ctx: ServiceContext,
  row: CounterpartyRow,
  state: VerificationState,
  verification: VerificationRecord,
): Promise<CounterpartyRow> {
  const now = ctx.clock.now();
  const [moved] = await tx
    .update(counterparties)
    .set({ verificationState: state, verification, updatedAt: now })
    .where(and(eq(counterparties.id, row.id), eq(counterparties.merchantId, row.merchantId)))
    .returning();
  const written = moved as CounterpartyRow;
  if (state !== row.verificationState)
    await recordEvent(tx, objectEvent(written, `counterparty.${state}`, counterpartyResource(written)));
  return written;
}

/** Starts a verification by `method`: refused (409) while one is pending or once verified. */
function start(ctx: ServiceContext, id: string, method: VerificationMethod): Promise<CounterpartyRow> {
  return inContextTx(ctx, async (tx) => {
    const row = await loadCounterparty(tx, ctx.merchant.id, id, { lock: true });
    if (row.verificationState === 'verified' || row.verificationState === 'verification_pending')
      throw new SandbankError('invalid_state', {
        message: `This counterparty is ${row.verificationState}${row.verification ? ` (by ${row.verification.method})` : ''}; a new verification starts from unverified or verification_failed.`,
      });
    const now = ctx.clock.now();
    const window = method === 'microdeposits' ? nextSameDayAchWindow(now) : nextStandardAchDeposit(now);
    const settlesAt = window.settlement;
    const availableAt = method === 'microdeposits' ? settlesAt : liveEntriesFrom(settlesAt);
    const moved = await writeVerification(tx, ctx, row, 'verification_pending', {
      method,
      started_at: now.toISOString(),
      settles_at: settlesAt.toISOString(),
      available_at: availableAt.toISOString(),
      attempts_remaining: method === 'microdeposits' ? MICRODEPOSIT_ATTEMPTS : null,
      failure_code: null,
      failure_reason: null,
      verified_at: null,
    });
    const job = (step: string, dueAt: Date) =>
      scheduleJob(tx, {
        merchantId: row.merchantId,
        kind: VERIFICATION_JOB,
        objectId: row.id,
        dueAt,
        payload: { step, started_at: now.toISOString() },
        createdAt: now,
      });
    await job('settle', settlesAt);
    if (method === 'prenote') await job('wait_over', availableAt);
    return moved;
  });
}

/** POST /v1/counterparties/{id}/microdeposits: two credits under 1.00 and their offsetting debit, ACCTVERIFY. */
export const sendMicrodeposits = (ctx: ServiceContext, id: string) => start(ctx, id, 'microdeposits');

/** POST /v1/counterparties/{id}/prenote: a zero-dollar entry; live entries from the third banking day after it settles. */
export const sendPrenote = (ctx: ServiceContext, id: string) => start(ctx, id, 'prenote');

/** The amounts as the merchant states them, in cents, in order. */
function centsOf(amounts: readonly (string | number)[]): bigint[] {
  return amounts
    .map((amount) => parseAmount(amount, 'USD', { param: 'amounts' }))
    .sort((a, b) => Number(a - b));
}

/**
 * POST /v1/counterparties/{id}/microdeposits/confirm {amounts}: the right two amounts (any order)
 * verify the account. Wrong ones use an attempt — written, then refused with 400
 * microdeposit_amounts_mismatch saying how many remain; the last one fails the verification.
 */
export async function confirmMicrodeposits(
  ctx: ServiceContext,
  id: string,
  input: { amounts: (string | number)[] },
): Promise<CounterpartyRow> {
  const stated = centsOf(input.amounts);
  const outcome = await inContextTx(ctx, async (tx) => {
    const row = await loadCounterparty(tx, ctx.merchant.id, id, { lock: true });
    const v = row.verification;
    if (row.verificationState !== 'verification_pending' || v?.method !== 'microdeposits')
      throw new SandbankError('invalid_state', {
        message: `This counterparty is ${row.verificationState}; there are no micro-deposits to confirm (POST …/microdeposits sends them).`,
      });
    const now = ctx.clock.now();
    if (now.getTime() < new Date(v.available_at).getTime())
      throw new SandbankError('invalid_state', {
        message: `The micro-deposits arrive at ${v.available_at}; confirm them after that.`,
        extra: { available_at: v.available_at },
      });
    const right =
      stated.length === MICRODEPOSIT_AMOUNTS_MINOR.length &&
      stated.every((c, i) => c === MICRODEPOSIT_AMOUNTS_MINOR[i]);
    if (right)
      return {
        row: await writeVerification(tx, ctx, row, 'verified', { ...v, verified_at: now.toISOString() }),
        left: null,
      };
    const left = Math.max((v.attempts_remaining ?? 1) - 1, 0);
    const failed: VerificationRecord =
      left === 0
        ? {
            ...v,
            attempts_remaining: 0,
            failure_code: 'attempts_exhausted',
            failure_reason: 'The micro-deposit amounts were confirmed wrongly too often.',
          }
        : { ...v, attempts_remaining: left };
    await writeVerification(
      tx,
      ctx,
      row,
      left === 0 ? 'verification_failed' : 'verification_pending',
      failed,
    );
    return { row: null, left };
  });
  if (outcome.row) return outcome.row;
  throw new SandbankError('microdeposit_amounts_mismatch', {
    param: 'amounts',
    message:
      outcome.left === 0
        ? 'Those are not the micro-deposit amounts, and no attempt remains: the verification failed.'
        : `Those are not the micro-deposit amounts; ${outcome.left} attempt${outcome.left === 1 ? '' : 's'} remain.`,
    extra: { attempts_remaining: outcome.left },
  });
}

/** The micro-deposits as a test may read them (the testing API's and the guide's): 0.32 and 0.45. */
export const MICRODEPOSIT_AMOUNTS = MICRODEPOSIT_AMOUNTS_MINOR.map((cents) => formatDecimal(cents, 'USD'));

/** Due work: the verification's entries settle (a magic account returns them: failed), or a prenote's wait ends (verified). */
export async function verificationJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [row] = await ctx.tx
    .select()
    .from(counterparties)
    .where(and(eq(counterparties.id, job.objectId), eq(counterparties.merchantId, ctx.merchant.id)))
    .for('update');
  const v = row?.verification;
  // Only the verification that scheduled it: a later one has its own jobs.
  if (
    !row ||
    !v ||
    row.verificationState !== 'verification_pending' ||
    v.started_at !== job.payload.started_at
  )
    return;
  const returned = VERIFICATION_RETURNS[row.accountNumber];
  if (job.payload.step === 'settle' && returned)
    await writeVerification(ctx.tx, ctx, row, 'verification_failed', {
      ...v,
      failure_code: returned.code,
      failure_reason: returned.reason,
    });
  else if (job.payload.step === 'wait_over' && v.method === 'prenote')
    await writeVerification(ctx.tx, ctx, row, 'verified', {
      ...v,
      verified_at: ctx.clock.now().toISOString(),
    });
}
