import type { Tx } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import { addSeconds } from '../../kernel/clock.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { formatDecimal, parseAmount } from '../../kernel/money.ts';
import { type BankAccount, validateBankAccount } from '../bank-accounts/bank-account.ts';
import type { ServiceContext } from '../context.ts';
import { savedAccount } from '../counterparties/counterparties.service.ts';
import { checkVerifiedUse } from '../counterparties/counterparties.verification-rules.ts';
import { holdPosting } from '../ledger/ledger.holds.ts';
import { ledgerPostingsEffect } from '../ledger/ledger.post.ts';
import { preparePosting } from '../ledger/ledger.statement.ts';
import { jobValues } from '../scheduler/scheduler.service.ts';
import { magicNocCode } from './transfers.hooks.ts';
import type { EntryKind } from './transfers.machine.ts';
import {
  achTimeline,
  type Direction,
  isAchRail,
  isWireRail,
  RAIL_LIMIT_MINOR,
  type Rail,
  type RailOutcome,
  railOutcome,
  rtpCompletesAt,
} from './transfers.rails.ts';
import type { TransferRow } from './transfers.resource.ts';
import { entryEvent, TRANSFER_RTP_JOB, TRANSFER_SUBMIT_JOB, TRANSFER_WIRE_JOB } from './transfers.rows.ts';
import type { CreatePayoutInput, CreateTransferInput } from './transfers.schema.ts';
import { transfers } from './transfers.table.ts';
import { imadOf, WIRE_SETTLEMENT_SECONDS, wireBehavior, wireWindowFor } from './transfers.wire.ts';

/** What an entry is, once its request is parsed: the one shape transfers, payouts and a checkout's debit share. */
interface EntrySpec {
  kind: EntryKind;
  rail: Rail;
  direction: Direction;
  amount: bigint;
  currency: CurrencyCode;
  account: BankAccount;
  name: string;
  /** The saved counterparty it was sent to, when it named one. */
  counterpartyId?: string | null;
  secCode: string | null;
  collectionId?: string;
  reference: string | null;
  description: string | null;
  metadata: Record<string, string>;
}

/** The request's names of the rail and the account (errors point at them). */
interface SpecParams {
  rail: string;
  account: string;
}

/** Rail rules that need the whole request: RTP is credit-only, per-rail limits, reachable routing. */
function checkRailRules(spec: EntrySpec, params: SpecParams): RailOutcome {
  if (!isAchRail(spec.rail) && spec.direction === 'debit') {
    throw new SandbankError('rail_direction_unsupported', {
      param: 'direction',
      ...(isWireRail(spec.rail)
        ? { message: 'Fedwire is a credit transfer service: wires push money, they do not pull it.' }
        : {}),
    });
  }
  if (spec.amount > RAIL_LIMIT_MINOR[spec.rail]) {
    throw new SandbankError('amount_exceeds_rail_limit', {
      param: 'amount',
      message: `The amount is over the ${spec.rail} limit of ${formatDecimal(RAIL_LIMIT_MINOR[spec.rail], 'USD')} USD per entry.`,
    });
  }
  const outcome = railOutcome({
    rail: spec.rail,
    direction: spec.direction,
    routingNumber: spec.account.routingNumber,
    accountNumber: spec.account.accountNumber,
    secCode: spec.secCode,
  });
  if (outcome.kind === 'unreachable') {
    throw new SandbankError('routing_number_unreachable', {
      param: `${params.account}.routing_number`,
      message: `Routing number ${spec.account.routingNumber} is not reachable over ${isWireRail(spec.rail) ? 'Fedwire' : 'ACH'}.`,
    });
  }
  return outcome;
}

/**
 * A checked entry as one change: a credit's hold on the available balance (422
 * insufficient_balance when short, and then nothing is written), the row, its `created` event and
 * the first due work of its rail.
 */
function entryChange(ctx: ServiceContext, spec: EntrySpec, outcome: RailOutcome) {
  const now = ctx.clock.now();
  const id = newId(spec.kind);
  const timeline = isAchRail(spec.rail) ? achTimeline(spec.rail, now) : null;
  const wire = isWireRail(spec.rail) ? wireWindowFor(now) : null;
  const wireOutcome = wire ? wireBehavior(spec.account.accountNumber) : null;
  const values: TransferRow = {
    id,
    merchantId: ctx.merchant.id,
    kind: spec.kind,
    rail: spec.rail,
    direction: spec.direction,
    state: 'pending',
    amount: spec.amount,
    currency: spec.currency,
    counterpartyName: spec.name,
    routingNumber: spec.account.routingNumber,
    accountLast4: spec.account.last4,
    accountType: spec.account.accountType,
    secCode: spec.secCode,
    outcome: wireOutcome?.kind ?? outcome.kind,
    outcomeCode:
      wireOutcome && wireOutcome.kind !== 'succeeds'
        ? wireOutcome.code
        : outcome.kind === 'returns'
          ? outcome.reason.code
          : outcome.kind === 'rejected'
            ? outcome.reason
            : null,
    holdId: null,
    expectedSubmissionAt: timeline?.submitsAt ?? wire?.processesAt ?? null,
    // An entry that stays submitted until a simulate step moves it has no settlement to expect.
    expectedSettlementAt:
      outcome.kind === 'stays_submitted'
        ? null
        : (timeline?.settlesAt ??
          (wire ? addSeconds(wire.processesAt, WIRE_SETTLEMENT_SECONDS) : rtpCompletesAt(now))),
    submittedAt: null,
    settledAt: null,
    returnedAt: null,
    returnCode: null,
    returnReason: null,
    failureReason: null,
    returnUntimely: false,
    dishonoredAt: null,
    dishonorCode: null,
    dishonorReason: null,
    contestedAt: null,
    contestCode: null,
    contestReason: null,
    collectionId: spec.collectionId ?? null,
    reference: spec.reference,
    description: spec.description,
    metadata: spec.metadata,
    counterpartyId: spec.counterpartyId ?? null,
    nocCode:
      spec.kind === 'transfer' && isAchRail(spec.rail) ? magicNocCode(spec.account.accountNumber) : null,
    notificationsOfChange: [],
    wsud: null,
    imad: wire ? imadOf(id, wire.date) : null,
    omad: null,
    recall: null,
    createdAt: now,
    updatedAt: now,
  };
  const work = change();
  if (spec.direction === 'credit') {
    const hold = preparePosting(
      holdPosting({
        merchantId: ctx.merchant.id,
        currency: spec.currency,
        amount: spec.amount,
        type: spec.kind,
        source: { type: spec.kind, id },
        at: now,
      }),
    );
    values.holdId = hold.row.id;
    work.effect(ledgerPostingsEffect, hold);
  }
  work
    .insert(transfers, values)
    .event(entryEvent(values, ctx.publicUrl, `${values.kind}.created`))
    .job(
      jobValues({
        merchantId: values.merchantId,
        kind: isAchRail(spec.rail) ? TRANSFER_SUBMIT_JOB : wire ? TRANSFER_WIRE_JOB : TRANSFER_RTP_JOB,
        objectId: id,
        dueAt: isAchRail(spec.rail)
          ? (values.expectedSubmissionAt as Date)
          : (values.expectedSettlementAt as Date),
        createdAt: now,
      }),
    );
  return { row: values, work };
}

/**
 * Checks everything before writing (400s change nothing), then writes the entry as one change:
 * in the caller's transaction when there is one, else through the group commit.
 */
async function createEntry(ctx: ServiceContext, spec: EntrySpec, params: SpecParams): Promise<TransferRow> {
  const { row, work } = entryChange(ctx, spec, checkRailRules(spec, params));
  await commit(ctx, work);
  return row;
}

/** POST /v1/transfers: a credit sends money (held from available at once), a debit pulls it. */
export async function createTransfer(ctx: ServiceContext, input: CreateTransferInput): Promise<TransferRow> {
  if (!isAchRail(input.rail) && input.sec_code !== undefined) {
    throw new SandbankError('parameter_invalid', { param: 'sec_code', message: 'sec_code is for ACH only.' });
  }
  const counterparty = input.counterparty;
  const saved =
    typeof counterparty === 'string' ? await savedAccount(ctx, counterparty, 'counterparty') : null;
  const spec: EntrySpec = {
    kind: 'transfer',
    rail: input.rail,
    direction: input.direction,
    amount: parseAmount(input.amount, input.currency),
    currency: input.currency,
    account:
      saved?.account ??
      validateBankAccount(counterparty as Exclude<typeof counterparty, string>, 'counterparty'),
    name: saved?.name ?? (counterparty as Exclude<typeof counterparty, string>).name,
    counterpartyId: saved?.id ?? null,
    secCode: isAchRail(input.rail) ? (input.sec_code ?? 'CCD') : null,
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
  };
  if (saved) checkVerifiedUse(saved.verification, spec, ctx.clock.now());
  return createEntry(ctx, spec, { rail: 'rail', account: 'counterparty' });
}

/**
 * POST /v1/payouts: the merchant's available USD to its own bank account, as a credit on the
 * chosen rail (CCD for ACH: a business's own account).
 */
export async function createPayout(ctx: ServiceContext, input: CreatePayoutInput): Promise<TransferRow> {
  const destination = input.destination;
  const saved = typeof destination === 'string' ? await savedAccount(ctx, destination, 'destination') : null;
  const inline = destination as Exclude<typeof destination, string>;
  const spec: EntrySpec = {
    kind: 'payout',
    rail: input.method,
    direction: 'credit',
    amount: parseAmount(input.amount, input.currency),
    currency: input.currency,
    account: saved?.account ?? validateBankAccount(inline, 'destination'),
    name: saved?.name ?? inline.name,
    counterpartyId: saved?.id ?? null,
    secCode: isAchRail(input.method) ? 'CCD' : null,
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
  };
  if (saved) checkVerifiedUse(saved.verification, spec, ctx.clock.now(), 'destination');
  return createEntry(ctx, spec, { rail: 'method', account: 'destination' });
}

/**
 * A checkout paid by bank account (collections.pay.ts): a standard ACH debit of the payer's account
 * (SEC code WEB, an internet-authorized consumer debit), written in the caller's transaction. The
 * collection follows it through the hooks of onCollectionDebit.
 */
export async function createCollectionDebit(
  tx: Tx,
  ctx: ServiceContext,
  collection: { id: string; reference: string; amount: bigint; currency: string },
  account: BankAccount,
): Promise<TransferRow> {
  const spec: EntrySpec = {
    kind: 'transfer',
    rail: 'ach',
    direction: 'debit',
    amount: collection.amount,
    currency: collection.currency as CurrencyCode,
    account,
    name: account.name ?? 'Checkout payer',
    secCode: 'WEB',
    collectionId: collection.id,
    reference: collection.reference,
    description: `Checkout payment of collection ${collection.reference}`,
    metadata: {},
  };
  const { row, work } = entryChange(
    ctx,
    spec,
    checkRailRules(spec, { rail: 'method', account: 'bank_account' }),
  );
  await commit({ db: ctx.db, tx }, work);
  return row;
}
