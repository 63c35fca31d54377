import type { Tx } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import { objectEvent } from '../../db/outbox.ts';
import { type StatefulKind, step } from '../../db/step.ts';
import { addSeconds } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { formatDecimal, parseAmount } from '../../kernel/money.ts';
import { type BankAccount, validateBankAccount } from '../bank-accounts/bank-account.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import { savedAccount } from '../counterparties/counterparties.service.ts';
import { jobValues } from '../scheduler/scheduler.service.ts';
import { createTransfer } from '../transfers/transfers.create.ts';
import { RAIL_LIMIT_MINOR, railOutcome } from '../transfers/transfers.rails.ts';
import {
  type PaymentRequestEvent,
  type PaymentRequestState,
  paymentRequestMachine,
} from './payment-requests.machine.ts';
import { loadRequest } from './payment-requests.read.ts';
import { paymentRequestResource } from './payment-requests.resource.ts';
import {
  encodeBehavior,
  type PayerBehavior,
  payerBehavior,
  RFP_ANSWER_SECONDS,
  RFP_DEFAULT_EXPIRY_SECONDS,
  RFP_MAX_EXPIRY_SECONDS,
  RFP_REJECT_REASONS,
} from './payment-requests.rules.ts';
import type {
  CreatePaymentRequestInput,
  RejectPaymentRequestInput,
  RfpRail,
  SimulatePaymentRequestInput,
} from './payment-requests.schema.ts';
import { type PaymentRequestRow, paymentRequests } from './payment-requests.table.ts';

/** Due work: the payer's bank answers an outbound request; pays an accepted one; any request lapses. */
export const RFP_ANSWER_JOB = 'payment_request.answer';
export const RFP_PAY_JOB = 'payment_request.pay';
export const RFP_EXPIRE_JOB = 'payment_request.expire';

export function paymentRequestEvent(
  row: PaymentRequestRow,
  _publicUrl: string,
  type = `payment_request.${row.state}`,
) {
  return objectEvent(row, type, paymentRequestResource(row));
}

export const requestKind: StatefulKind<PaymentRequestRow, PaymentRequestState, PaymentRequestEvent> = {
  machine: paymentRequestMachine,
  table: paymentRequests,
  event: paymentRequestEvent,
};

/** The request's expiry: after now, at most 90 days on (400 parameter_invalid otherwise); default 7 days. */
function expiryOf(input: string | undefined, now: Date): Date {
  if (input === undefined) return addSeconds(now, RFP_DEFAULT_EXPIRY_SECONDS);
  const at = new Date(input);
  const latest = addSeconds(now, RFP_MAX_EXPIRY_SECONDS);
  if (at.getTime() <= now.getTime() || at.getTime() > latest.getTime())
    throw new SandbankError('parameter_invalid', {
      param: 'expires_at',
      message: `expires_at must be after the merchant's clock (${now.toISOString()}) and at most 90 days on (${latest.toISOString()}).`,
    });
  return at;
}

function checkAmount(rail: RfpRail, amount: bigint): void {
  if (amount > RAIL_LIMIT_MINOR[rail])
    throw new SandbankError('amount_exceeds_rail_limit', {
      param: 'amount',
      message: `The amount is over the ${rail} limit of ${formatDecimal(RAIL_LIMIT_MINOR[rail], 'USD')} USD.`,
    });
}

interface NewRequest {
  direction: 'outbound' | 'inbound';
  rail: RfpRail;
  amount: bigint;
  account: BankAccount;
  name: string;
  behavior: PayerBehavior | null;
  expiresAt: Date;
  labels: {
    reference?: string | undefined;
    description?: string | undefined;
    metadata?: Record<string, string> | undefined;
  };
}

/** One change: the request, its `created` event, its answer (outbound) and its expiry. */
async function insertRequest(ctx: ServiceContext, spec: NewRequest): Promise<PaymentRequestRow> {
  const now = ctx.clock.now();
  const row: PaymentRequestRow = {
    id: newId('paymentRequest'),
    merchantId: ctx.merchant.id,
    direction: spec.direction,
    rail: spec.rail,
    state: 'pending',
    amount: spec.amount,
    currency: 'USD',
    counterpartyName: spec.name,
    routingNumber: spec.account.routingNumber,
    accountLast4: spec.account.last4,
    payToAccount: spec.direction === 'inbound' ? spec.account.accountNumber : null,
    behavior: spec.behavior ? encodeBehavior(spec.behavior) : null,
    expiresAt: spec.expiresAt,
    respondedAt: null,
    rejectionCode: null,
    rejectionReason: null,
    paidAt: null,
    transferId: null,
    reference: spec.labels.reference ?? null,
    description: spec.labels.description ?? null,
    metadata: spec.labels.metadata ?? {},
    createdAt: now,
    updatedAt: now,
  };
  const job = (kind: string, dueAt: Date) =>
    jobValues({ merchantId: row.merchantId, kind, objectId: row.id, dueAt, createdAt: now });
  const work = change()
    .insert(paymentRequests, row)
    .event(paymentRequestEvent(row, ctx.publicUrl, 'payment_request.created'))
    .job(job(RFP_EXPIRE_JOB, row.expiresAt));
  if (spec.behavior && spec.behavior.kind !== 'ignores')
    work.job(job(RFP_ANSWER_JOB, addSeconds(now, RFP_ANSWER_SECONDS)));
  await commit(ctx, work);
  return row;
}

/** POST /v1/payment_requests: the merchant asks a payer for money (pain.013). */
export async function createPaymentRequest(
  ctx: ServiceContext,
  input: CreatePaymentRequestInput,
): Promise<PaymentRequestRow> {
  const amount = parseAmount(input.amount, input.currency);
  checkAmount(input.rail, amount);
  const payer = input.payer;
  const saved = typeof payer === 'string' ? await savedAccount(ctx, payer, 'payer') : null;
  const inline = payer as Exclude<typeof payer, string>;
  const account = saved?.account ?? validateBankAccount(inline, 'payer');
  return insertRequest(ctx, {
    direction: 'outbound',
    rail: input.rail,
    amount,
    account,
    name: saved?.name ?? inline.name,
    behavior: payerBehavior(account.routingNumber, account.accountNumber),
    expiresAt: expiryOf(input.expires_at, ctx.clock.now()),
    labels: input,
  });
}

/** POST /v1/simulate/payment_requests: a requester asks the merchant for money. */
export async function simulatePaymentRequest(
  ctx: ServiceContext,
  input: SimulatePaymentRequestInput,
): Promise<PaymentRequestRow> {
  const amount = parseAmount(input.amount, input.currency);
  checkAmount(input.rail, amount);
  return insertRequest(ctx, {
    direction: 'inbound',
    rail: input.rail,
    amount,
    account: validateBankAccount(input.requester, 'requester'),
    name: input.requester.name,
    behavior: null,
    expiresAt: expiryOf(input.expires_at, ctx.clock.now()),
    labels: input,
  });
}

/** A step on request `id` of `direction`, in a transaction of its own on its row locked (409 for the other direction). */
function withRequest(
  ctx: ServiceContext,
  id: string,
  direction: 'outbound' | 'inbound',
  work: (tx: Tx, row: PaymentRequestRow) => Promise<PaymentRequestRow>,
): Promise<PaymentRequestRow> {
  return inContextTx(ctx, async (tx) => {
    const row = await loadRequest(tx, ctx.merchant.id, id, true);
    if (ctx.clock.now().getTime() >= row.expiresAt.getTime() && row.state !== 'expired')
      throw new SandbankError('invalid_state', {
        message: `This request expired at ${row.expiresAt.toISOString()}; it can no longer be answered or withdrawn.`,
      });
    if (row.direction !== direction)
      throw new SandbankError('invalid_state', {
        message:
          direction === 'inbound'
            ? 'The merchant sent this request; only its payer accepts or rejects it (the merchant may cancel it).'
            : 'The merchant received this request; it accepts or rejects it, only its requester cancels it.',
      });
    return work(tx, row);
  });
}

/**
 * POST /v1/payment_requests/{id}/accept (an inbound request): the merchant accepts and pays it at
 * once with a credit transfer on the request's rail to the requester (422 insufficient_balance when
 * short, and then nothing is written): accepted, then paid, naming the transfer.
 */
export function acceptPaymentRequest(ctx: ServiceContext, id: string): Promise<PaymentRequestRow> {
  return withRequest(ctx, id, 'inbound', async (tx, row) => {
    const now = ctx.clock.now();
    // A credit the requester's bank would reject pays nothing: refused before anything is written.
    const outcome = railOutcome({
      rail: row.rail as RfpRail,
      direction: 'credit',
      routingNumber: row.routingNumber,
      accountNumber: row.payToAccount ?? '',
      secCode: null,
    });
    if (outcome.kind === 'rejected')
      throw new SandbankError('invalid_state', {
        message: `The requester's bank rejects credits to this account (${outcome.reason}); reject the request instead.`,
      });
    const accepted = await step(tx, ctx, requestKind, row, 'accept', { respondedAt: now, updatedAt: now });
    const transfer = await createTransfer(
      { ...ctx, tx },
      {
        rail: row.rail as RfpRail,
        direction: 'credit',
        amount: formatDecimal(row.amount, 'USD'),
        currency: 'USD',
        counterparty: {
          name: row.counterpartyName,
          routing_number: row.routingNumber,
          account_number: row.payToAccount ?? '',
          account_type: 'checking',
        },
        reference: row.reference ?? undefined,
        description: `Pays request for payment ${row.id}`,
        metadata: { payment_request: row.id },
      },
    );
    return step(tx, ctx, requestKind, accepted, 'pay', {
      paidAt: now,
      transferId: transfer.id,
      updatedAt: now,
    });
  });
}

/** POST /v1/payment_requests/{id}/reject (an inbound request): refused with an ISO 20022 reason. */
export function rejectPaymentRequest(
  ctx: ServiceContext,
  id: string,
  input: RejectPaymentRequestInput,
): Promise<PaymentRequestRow> {
  return withRequest(ctx, id, 'inbound', (tx, row) => rejectRequest(tx, ctx, row, input.reason ?? 'NARR'));
}

export async function rejectRequest(
  tx: Tx,
  ctx: ServiceContext,
  row: PaymentRequestRow,
  code: keyof typeof RFP_REJECT_REASONS,
) {
  const now = ctx.clock.now();
  return step(tx, ctx, requestKind, row, 'reject', {
    respondedAt: now,
    rejectionCode: code,
    rejectionReason: RFP_REJECT_REASONS[code],
    updatedAt: now,
  });
}

/** POST /v1/payment_requests/{id}/cancel (an outbound request, before it is paid). */
export function cancelPaymentRequest(ctx: ServiceContext, id: string): Promise<PaymentRequestRow> {
  return withRequest(ctx, id, 'outbound', (tx, row) => step(tx, ctx, requestKind, row, 'cancel'));
}

export {
  getPaymentRequest,
  listPaymentRequests,
  loadRequest,
  paymentRequestsByIds,
} from './payment-requests.read.ts';
