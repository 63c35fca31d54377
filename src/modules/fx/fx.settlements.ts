import type { Tx } from '../../db/client.ts';
import { type Change, change, commit } from '../../db/commit.ts';
import { type EventInput, objectEvent } from '../../db/outbox.ts';
import { merchantRowsByIds } from '../../db/pages.ts';
import type { StatefulKind } from '../../db/step.ts';
import { addBankingDays, nyDateOf, nyInstant } from '../../kernel/calendar.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { transition } from '../../kernel/state-machine.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { holdPosting } from '../ledger/ledger.holds.ts';
import { ledgerPostingsEffect } from '../ledger/ledger.post.ts';
import { preparePosting } from '../ledger/ledger.statement.ts';
import { jobValues } from '../scheduler/scheduler.service.ts';
import {
  failureOf,
  type NormalizedDestination,
  validateIbanDestination,
  validateJpyDestination,
} from './fx.destinations.ts';
import { type FxSettlementEvent, type FxSettlementState, fxSettlementMachine } from './fx.machine.ts';
import { maxTargetMinor, priceQuote, type QuoteRequest } from './fx.pricing.ts';
import {
  conversionPostings,
  lockQuote,
  newQuote,
  quoteCreatedEvent,
  quoteUsedEvent,
  takeQuote,
  usedQuote,
} from './fx.quotes.ts';
import type { FxConfig, FxTargetCurrency } from './fx.rates.ts';
import { type FxQuoteRow, type FxSettlementRow, fxSettlementResource } from './fx.resource.ts';
import { listOf, loadOne } from './fx.rows.ts';
import { type CreateSettlementInput, FUNDING_WAYS } from './fx.schema.ts';
import { fxQuotes, fxSettlements, type StoredFxDestination } from './fx.table.ts';

/**
 * Settlements abroad: a payment to a foreign account in EUR, GBP or JPY, funded by
 * converting USD (a locked quote, or at the current rate) or out of that currency's balance — the
 * latter is how a EUR, GBP or JPY payout is made. Paying or failing one lives in fx.settle.ts.
 */
export const PAY_FX_SETTLEMENT_JOB = 'fx.pay_settlement';

/** When a settlement is paid: the next US banking day at this New York time. */
const SETTLEMENT_PAY_TIME = '12:00';

/** A settlement's event (by default `fx_settlement.<state>`, on arriving in it), with the settlement as it is now. */
function settlementEvent(
  row: FxSettlementRow,
  _publicUrl: string,
  type = `fx_settlement.${row.state}`,
): EventInput {
  return objectEvent(row, type, fxSettlementResource(row));
}

/** Settlements as stateful objects, for step(). */
export const settlementKind: StatefulKind<FxSettlementRow, FxSettlementState, FxSettlementEvent> = {
  machine: fxSettlementMachine,
  table: fxSettlements,
  event: settlementEvent,
};

function validateDestination(raw: unknown, currency: FxTargetCurrency): NormalizedDestination {
  return currency === 'JPY' ? validateJpyDestination(raw) : validateIbanDestination(raw, currency);
}

/** What is kept of a destination: the name, the bank's codes, the account's last 4 characters. */
function storedDestination(destination: NormalizedDestination): StoredFxDestination {
  if ('iban' in destination) {
    return {
      type: 'iban',
      name: destination.name,
      country: destination.iban.slice(0, 2),
      last4: destination.iban.slice(-4),
    };
  }
  return {
    type: 'jp_bank_account',
    name: destination.name,
    bank_code: destination.bankCode,
    branch_code: destination.branchCode,
    last4: destination.accountNumber.slice(-4),
  };
}

type Funding =
  | { kind: 'quote'; quoteId: string }
  | { kind: 'convert_now'; currency: FxTargetCurrency; request: QuoteRequest }
  | { kind: 'balance'; currency: FxTargetCurrency; amount: bigint };

/** Which of the three ways the settlement is funded (exactly one), every 400 before any write. */
function fundingOf(input: CreateSettlementInput, fx: FxConfig, now: Date): Funding {
  const sent = FUNDING_WAYS.map((fields) => fields.filter((field) => input[field] !== undefined)).filter(
    (fields) => fields.length > 0,
  );
  if (sent.length !== 1) {
    throw new SandbankError(sent.length === 0 ? 'parameter_missing' : 'parameter_invalid', {
      // Two ways at once: the first field of the second way is the one that conflicts.
      param: sent[1]?.[0] ?? 'quote_id',
      message: `${sent.length > 1 ? `${sent.map((fields) => fields[0]).join(' and ')} fund a settlement in different ways. ` : ''}Fund a settlement one way: quote_id; or target_currency with source_amount or target_amount (converted now); or currency with amount (from that balance).`,
    });
  }
  if (input.quote_id !== undefined) return { kind: 'quote', quoteId: input.quote_id };
  if (input.currency !== undefined || input.amount !== undefined) {
    if (input.currency === undefined || input.amount === undefined) {
      throw new SandbankError('parameter_missing', {
        param: input.currency === undefined ? 'currency' : 'amount',
        message: 'A settlement from a balance needs both currency and amount.',
      });
    }
    const amount = parseAmount(input.amount, input.currency, { max: maxTargetMinor(input.currency) });
    return { kind: 'balance', currency: input.currency, amount };
  }
  if (input.target_currency === undefined) {
    throw new SandbankError('parameter_missing', {
      param: 'target_currency',
      message: 'A settlement converted now needs target_currency.',
    });
  }
  const request: QuoteRequest = {
    target: input.target_currency,
    sourceAmount: input.source_amount,
    targetAmount: input.target_amount,
    lockDuration: 'five_minutes',
  };
  priceQuote(fx, now, request);
  return { kind: 'convert_now', currency: input.target_currency, request };
}

/**
 * What a settlement pays, and the quote it converts at, taken for it in `work`: the named quote
 * (locked; its destination checked against its currency first, so a wrong destination leaves it
 * open), or a new one at the current rate, made used; no quote for a settlement paid out of a balance.
 */
async function fund(
  tx: Tx,
  ctx: ServiceContext,
  work: Change,
  funding: Funding,
  destination: unknown,
  settlementId: string,
): Promise<{ quote: FxQuoteRow | null; currency: FxTargetCurrency; amount: bigint }> {
  if (funding.kind === 'balance') return { quote: null, ...funding };
  let quote: FxQuoteRow;
  if (funding.kind === 'convert_now') {
    const made = newQuote(ctx, funding.request);
    quote = usedQuote(ctx, made, settlementId);
    work.insert(fxQuotes, quote).event(quoteCreatedEvent(made), quoteUsedEvent(quote));
  } else {
    const named = await lockQuote(tx, ctx, funding.quoteId);
    validateDestination(destination, named.targetCurrency as FxTargetCurrency);
    quote = takeQuote(work, ctx, named, settlementId);
  }
  return { quote, currency: quote.targetCurrency as FxTargetCurrency, amount: quote.targetAmount };
}

/**
 * POST /v1/fx/settlements: pays a foreign account. The target amount is converted (or taken from
 * the balance) and held on the target balance — `pending → converted`, both in this request — then
 * paid the next US banking day at 12:00 ET, or returned to that balance when the destination fails.
 * One change, in a transaction (a named quote is locked while it is taken): the quote taken, the
 * settlement and its two events, the conversion's postings, the hold and the job that pays it.
 * Every 400 and 422 leaves nothing written (a named quote stays open).
 */
export async function createSettlement(
  ctx: ServiceContext,
  input: CreateSettlementInput,
): Promise<FxSettlementRow> {
  const funding = fundingOf(input, ctx.config.fx, ctx.clock.now());
  // With a quote the currency is the quote's: the destination is checked once the quote is read.
  if (funding.kind !== 'quote') validateDestination(input.destination, funding.currency);
  return inContextTx(ctx, async (tx) => {
    const id = newId('fxSettlement');
    const now = ctx.clock.now();
    const work = change();
    const { quote, currency, amount } = await fund(tx, ctx, work, funding, input.destination, id);
    const destination = validateDestination(input.destination, currency);
    const failure = failureOf(destination);
    const source = { type: 'fx_settlement', id };
    const hold = preparePosting(
      holdPosting({ merchantId: ctx.merchant.id, currency, amount, type: 'fx_settlement', source, at: now }),
    );
    const created: FxSettlementRow = {
      id,
      merchantId: ctx.merchant.id,
      state: fxSettlementMachine.initial,
      quoteId: quote?.id ?? null,
      sourceCurrency: quote?.sourceCurrency ?? null,
      sourceAmount: quote?.sourceAmount ?? null,
      rate: quote?.rate ?? null,
      fee: quote?.fee ?? null,
      amount,
      currency,
      destination: storedDestination(destination),
      failsWith: failure?.code ?? null,
      holdId: null,
      expectedPaidAt: nyInstant(addBankingDays(nyDateOf(now), 1), SETTLEMENT_PAY_TIME),
      convertedAt: null,
      paidAt: null,
      failedAt: null,
      failureCode: null,
      failureReason: null,
      reference: input.reference ?? null,
      description: input.description ?? null,
      metadata: input.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    };
    const converted: FxSettlementRow = {
      ...created,
      state: transition(fxSettlementMachine, created.state, 'convert'),
      holdId: hold.row.id,
      convertedAt: now,
      updatedAt: now,
    };
    work
      .insert(fxSettlements, converted)
      .event(settlementEvent(created, ctx.publicUrl, 'fx_settlement.created'));
    if (quote)
      for (const posting of conversionPostings(ctx, quote, source))
        work.effect(ledgerPostingsEffect, preparePosting(posting));
    work
      .effect(ledgerPostingsEffect, hold)
      .event(settlementEvent(converted, ctx.publicUrl))
      .job(
        jobValues({
          merchantId: ctx.merchant.id,
          kind: PAY_FX_SETTLEMENT_JOB,
          objectId: id,
          dueAt: converted.expectedPaidAt,
          createdAt: now,
        }),
      );
    await commit({ db: ctx.db, tx }, work);
    return converted;
  });
}

export function getSettlement(ctx: ServiceContext, id: string): Promise<FxSettlementRow> {
  return loadOne(dbOf(ctx), fxSettlements, ctx.merchant.id, id, 'FX settlement');
}

export function listSettlements(
  ctx: ServiceContext,
  query: ListQuery & { state?: string | undefined },
): Promise<Page<FxSettlementRow>> {
  return listOf(ctx, fxSettlements, fxSettlementMachine.states, query);
}

/** The merchant's FX settlements among `ids` (GraphQL's nodes(ids:)). */
export function settlementsByIds(ctx: ServiceContext, ids: string[]): Promise<FxSettlementRow[]> {
  return merchantRowsByIds<FxSettlementRow>(ctx, fxSettlements, ids);
}
