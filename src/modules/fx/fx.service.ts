import { and, desc, eq, lt } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { transitionRow } from '../../db/compare-and-set.ts';
import { inTransaction } from '../../db/tx.ts';
import { addBankingDays, nyDateOf, nyInstant } from '../../kernel/calendar.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { parseInput } from '../../kernel/validation.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/events.service.ts';
import { placeHold, post, postHold, voidHold } from '../ledger/ledger.service.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import {
  failureOf,
  failureReasonOf,
  type NormalizedDestination,
  validateIbanDestination,
  validateJpyDestination,
} from './fx.destinations.ts';
import { fxQuoteMachine, fxSettlementMachine } from './fx.machine.ts';
import { quoteAmounts } from './fx.quote-math.ts';
import {
  DEFAULT_FX_RATES,
  DEFAULT_SPREAD,
  type FxTargetCurrency,
  formatRate,
  hourStart,
  midRateAt,
  nextRateChangeAt,
  type Rate,
  sellRate,
} from './fx.rates.ts';
import {
  type FxConversionRow,
  type FxQuoteRow,
  type FxSettlementRow,
  fxConversionResource,
  fxQuoteResource,
  fxSettlementResource,
} from './fx.resource.ts';
import {
  createConversionSchema,
  createQuoteSchema,
  createSettlementSchema,
  FX_TARGETS,
  LOCK_DURATIONS,
  type LockDuration,
  quoteFieldCodes,
  settlementFieldCodes,
} from './fx.schema.ts';
import { fxConversions, fxQuotes, fxSettlements, type StoredFxDestination } from './fx.table.ts';

export const EXPIRE_FX_QUOTE_JOB = 'fx.expire_quote';
export const PAY_FX_SETTLEMENT_JOB = 'fx.pay_settlement';

/** The largest USD amount one quote sells (a sandbox bound: amounts stay far from overflow). */
const MAX_SOURCE_MINOR = 1_000_000_000n; // 10,000,000.00 USD
/** The largest target amount one quote buys or one settlement pays, in major units. */
const MAX_TARGET_MAJOR = 2_000_000_000n;

/** When a settlement is paid: the next US banking day at this New York time. */
const SETTLEMENT_PAY_TIME = '12:00';

// ---------------------------------------------------------------------------------------------
// Rates

let baseRates: Record<FxTargetCurrency, Rate> = { ...DEFAULT_FX_RATES };
let spread: Rate = DEFAULT_SPREAD;

/** Sets the base mid rates and the spread (FX_RATES, FX_SPREAD, at start-up). */
export function setFxConfig(config: { rates: Record<FxTargetCurrency, Rate>; spread: Rate }): void {
  baseRates = { ...config.rates };
  spread = config.spread;
}

export interface FxRate {
  targetCurrency: FxTargetCurrency;
  mid: Rate;
  rate: Rate;
}

/** The rates at an instant: the same instant always gives the same rates; each UTC hour has its own. */
export function ratesAt(instant: Date): FxRate[] {
  return FX_TARGETS.map((targetCurrency) => {
    const mid = midRateAt(baseRates[targetCurrency], targetCurrency, instant);
    return { targetCurrency, mid, rate: sellRate(mid, spread) };
  });
}

export interface FxRates {
  at: Date;
  asOf: Date;
  nextChangeAt: Date;
  spread: Rate;
  rates: FxRate[];
}

/** GET /v1/fx/rates: the mid and sell rates of the clock's hour. */
export function getRates(ctx: ServiceContext): FxRates {
  const now = ctx.clock.now();
  return { at: now, asOf: hourStart(now), nextChangeAt: nextRateChangeAt(now), spread, rates: ratesAt(now) };
}

export function fxRatesResource(rates: FxRates): Record<string, unknown> {
  return {
    object: 'fx_rates',
    source_currency: 'USD',
    at: rates.at.toISOString(),
    as_of: rates.asOf.toISOString(),
    next_change_at: rates.nextChangeAt.toISOString(),
    spread: formatRate(rates.spread),
    rates: rates.rates.map((r) => ({
      source_currency: 'USD',
      target_currency: r.targetCurrency,
      mid_rate: formatRate(r.mid),
      rate: formatRate(r.rate),
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Quotes

function emit(
  exec: Executor,
  object: string,
  row: { id: string; merchantId: string; updatedAt: Date },
  type: string,
  data: Record<string, unknown>,
) {
  return recordEvent(exec, {
    merchantId: row.merchantId,
    type: `${object}.${type}`,
    objectId: row.id,
    data: { object: data },
    at: row.updatedAt,
  });
}

const emitQuote = (exec: Executor, row: FxQuoteRow, type: string) =>
  emit(exec, 'fx_quote', row, type, fxQuoteResource(row));

interface QuoteRequest {
  target: FxTargetCurrency;
  sourceAmount?: unknown;
  targetAmount?: unknown;
  lockDuration: LockDuration;
}

/** The amounts of a quote request at the clock's rate (400s for a bad or missing amount). */
function priceQuote(now: Date, request: QuoteRequest) {
  const { target } = request;
  const hasSource = request.sourceAmount !== undefined;
  const hasTarget = request.targetAmount !== undefined;
  if (hasSource === hasTarget) {
    throw new SandbankError(hasSource ? 'parameter_invalid' : 'parameter_missing', {
      param: 'source_amount',
      message: 'Give exactly one of source_amount (USD to sell) and target_amount (to buy).',
    });
  }
  const mid = midRateAt(baseRates[target], target, now);
  const rate = sellRate(mid, spread);
  const amounts = hasSource
    ? quoteAmounts({
        rate,
        mid,
        target,
        sourceAmount: parseAmount(request.sourceAmount, 'USD', {
          param: 'source_amount',
          max: MAX_SOURCE_MINOR,
        }),
      })
    : quoteAmounts({
        rate,
        mid,
        target,
        targetAmount: parseAmount(request.targetAmount, target, {
          param: 'target_amount',
          max: MAX_TARGET_MAJOR * 10n ** BigInt(target === 'JPY' ? 0 : 2),
        }),
      });
  if (amounts.sourceAmount > MAX_SOURCE_MINOR) {
    throw new SandbankError('amount_invalid', {
      param: 'target_amount',
      message: 'This target amount costs more than 10,000,000.00 USD, the most one quote sells.',
    });
  }
  return { ...amounts, mid, rate, fixedSide: hasSource ? 'source' : 'target' };
}

async function insertQuote(tx: Tx, ctx: ServiceContext, request: QuoteRequest): Promise<FxQuoteRow> {
  const now = ctx.clock.now();
  const priced = priceQuote(now, request);
  const [row] = await tx
    .insert(fxQuotes)
    .values({
      id: newId('fxQuote'),
      merchantId: ctx.merchant.id,
      state: fxQuoteMachine.initial,
      sourceCurrency: 'USD',
      targetCurrency: request.target,
      rate: formatRate(priced.rate),
      midRate: formatRate(priced.mid),
      sourceAmount: priced.sourceAmount,
      targetAmount: priced.targetAmount,
      fee: priced.fee,
      fixedSide: priced.fixedSide,
      lockDuration: request.lockDuration,
      expiresAt: new Date(now.getTime() + LOCK_DURATIONS[request.lockDuration] * 1000),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error('quote insert returned no row');
  await emitQuote(tx, row, 'created');
  await scheduleJob(tx, {
    merchantId: row.merchantId,
    kind: EXPIRE_FX_QUOTE_JOB,
    objectId: row.id,
    dueAt: row.expiresAt,
    createdAt: now,
  });
  return row;
}

/** POST /v1/fx/quotes: a rate locked for five minutes (default), an hour or a day. */
export function createQuote(ctx: ServiceContext, raw: unknown): Promise<FxQuoteRow> {
  const input = parseInput(createQuoteSchema, raw, quoteFieldCodes);
  const request = {
    target: input.target_currency,
    sourceAmount: input.source_amount,
    targetAmount: input.target_amount,
    lockDuration: input.lock_duration ?? 'five_minutes',
  };
  priceQuote(ctx.clock.now(), request); // every 400 before the transaction
  return inTransaction(ctx.db, ctx.tx, (tx) => insertQuote(tx, ctx, request));
}

async function loadOne<T>(
  exec: Executor,
  table: typeof fxQuotes | typeof fxConversions | typeof fxSettlements,
  merchantId: string,
  id: string,
  what: string,
  lock = false,
): Promise<T> {
  const query = exec
    .select()
    .from(table)
    .where(and(eq(table.id, id), eq(table.merchantId, merchantId)));
  const [row] = id.includes('\u0000') ? [] : lock ? await query.for('update') : await query;
  if (!row) throw new SandbankError('resource_not_found', { message: `No ${what} ${id.slice(0, 60)}.` });
  return row as T;
}

export function getQuote(ctx: ServiceContext, id: string): Promise<FxQuoteRow> {
  return loadOne(ctx.tx ?? ctx.db, fxQuotes, ctx.merchant.id, id, 'FX quote');
}

/**
 * Takes a quote for a conversion or a settlement, with its row locked: of two requests racing for
 * one quote, the second waits and then finds it used (409 quote_already_used). A quote is usable
 * strictly before `expires_at` on the clock (422 quote_expired from that instant on, whether or not
 * the expiry job has run yet).
 */
async function useQuote(tx: Tx, ctx: ServiceContext, quoteId: string, usedBy: string): Promise<FxQuoteRow> {
  const quote = await loadOne<FxQuoteRow>(tx, fxQuotes, ctx.merchant.id, quoteId, 'FX quote', true).catch(
    (error: unknown) => {
      if (error instanceof SandbankError)
        throw new SandbankError(error.code, { param: 'quote_id', message: error.message });
      throw error;
    },
  );
  const now = ctx.clock.now();
  if (quote.state === 'used') {
    throw new SandbankError('quote_already_used', {
      param: 'quote_id',
      message: `This quote was already used by ${quote.usedBy}.`,
    });
  }
  if (quote.state === 'expired' || now.getTime() >= quote.expiresAt.getTime()) {
    throw new SandbankError('quote_expired', {
      param: 'quote_id',
      message: `This quote expired at ${quote.expiresAt.toISOString()}; ask for a new one.`,
    });
  }
  const used = await transitionRow(tx, fxQuoteMachine, fxQuotes, quote, 'use', { usedBy, updatedAt: now });
  await emitQuote(tx, used, 'used');
  return used;
}

/** Due work: a quote nobody used by `expires_at` expires. */
export async function expireQuoteJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [row] = await ctx.tx
    .select()
    .from(fxQuotes)
    .where(and(eq(fxQuotes.id, job.objectId), eq(fxQuotes.merchantId, ctx.merchant.id)))
    .for('update');
  if (row?.state !== 'open') return;
  const moved = await transitionRow(ctx.tx, fxQuoteMachine, fxQuotes, row, 'expire', {
    updatedAt: ctx.clock.now(),
  });
  await emitQuote(ctx.tx, moved, 'expired');
}

/**
 * The ledger of a conversion at a quote: USD leaves available for the FX desk (fx_liquidity), and
 * the target currency comes from the desk into available. Each posting balances in its own
 * currency, so the ledger sums to zero per currency after every conversion.
 */
async function convertOnLedger(
  tx: Tx,
  ctx: ServiceContext,
  quote: FxQuoteRow,
  source: { type: string; id: string },
) {
  const at = ctx.clock.now();
  const target = quote.targetCurrency as CurrencyCode;
  await post(tx, {
    merchantId: ctx.merchant.id,
    currency: 'USD',
    type: 'fx_conversion',
    source,
    at,
    entries: [
      { account: 'available', amount: -quote.sourceAmount },
      { account: 'fx_liquidity', amount: quote.sourceAmount },
    ],
  });
  await post(tx, {
    merchantId: ctx.merchant.id,
    currency: target,
    type: 'fx_conversion',
    source,
    at,
    entries: [
      { account: 'fx_liquidity', amount: -quote.targetAmount },
      { account: 'available', amount: quote.targetAmount },
    ],
  });
}

// ---------------------------------------------------------------------------------------------
// Conversions

/** POST /v1/fx/conversions {quote_id}: available USD into the target's available, at the locked rate. */
export async function createConversion(ctx: ServiceContext, raw: unknown): Promise<FxConversionRow> {
  const input = parseInput(createConversionSchema, raw);
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    const id = newId('fxConversion');
    const quote = await useQuote(tx, ctx, input.quote_id, id);
    await convertOnLedger(tx, ctx, quote, { type: 'fx_conversion', id });
    const now = ctx.clock.now();
    const [row] = await tx
      .insert(fxConversions)
      .values({
        id,
        merchantId: ctx.merchant.id,
        state: 'completed',
        quoteId: quote.id,
        amount: quote.sourceAmount,
        currency: quote.sourceCurrency,
        targetCurrency: quote.targetCurrency,
        targetAmount: quote.targetAmount,
        rate: quote.rate,
        fee: quote.fee,
        reference: input.reference ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error('conversion insert returned no row');
    await emit(tx, 'fx_conversion', row, 'completed', fxConversionResource(row));
    return row;
  });
}

export function getConversion(ctx: ServiceContext, id: string): Promise<FxConversionRow> {
  return loadOne(ctx.tx ?? ctx.db, fxConversions, ctx.merchant.id, id, 'FX conversion');
}

export async function listConversions(ctx: ServiceContext, query: ListQuery): Promise<Page<FxConversionRow>> {
  const conditions = [eq(fxConversions.merchantId, ctx.merchant.id)];
  if (query.starting_after) conditions.push(lt(fxConversions.id, query.starting_after));
  const rows = await (ctx.tx ?? ctx.db)
    .select()
    .from(fxConversions)
    .where(and(...conditions))
    .orderBy(desc(fxConversions.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit);
}

// ---------------------------------------------------------------------------------------------
// Settlements

const emitSettlement = (exec: Executor, row: FxSettlementRow, type: string) =>
  emit(exec, 'fx_settlement', row, type, fxSettlementResource(row));

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
  | { kind: 'quote'; quoteId: string; currency: FxTargetCurrency | null }
  | { kind: 'convert_now'; request: QuoteRequest }
  | { kind: 'balance'; currency: FxTargetCurrency; amount: bigint };

/** Which of the three ways the settlement is funded (exactly one), every 400 before any write. */
function fundingOf(input: ReturnType<typeof parseSettlement>, now: Date): Funding {
  const ways = [
    input.quote_id !== undefined,
    input.target_currency !== undefined ||
      input.source_amount !== undefined ||
      input.target_amount !== undefined,
    input.currency !== undefined || input.amount !== undefined,
  ].filter(Boolean).length;
  if (ways !== 1) {
    throw new SandbankError(ways === 0 ? 'parameter_missing' : 'parameter_invalid', {
      param: 'quote_id',
      message:
        'Fund a settlement one way: quote_id; or target_currency with source_amount or target_amount (converted now); or currency with amount (from that balance).',
    });
  }
  if (input.quote_id !== undefined) return { kind: 'quote', quoteId: input.quote_id, currency: null };
  if (input.currency !== undefined || input.amount !== undefined) {
    if (input.currency === undefined || input.amount === undefined) {
      throw new SandbankError('parameter_missing', {
        param: input.currency === undefined ? 'currency' : 'amount',
        message: 'A settlement from a balance needs both currency and amount.',
      });
    }
    const amount = parseAmount(input.amount, input.currency, {
      max: MAX_TARGET_MAJOR * 10n ** BigInt(input.currency === 'JPY' ? 0 : 2),
    });
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
  priceQuote(now, request);
  return { kind: 'convert_now', request };
}

function parseSettlement(raw: unknown) {
  return parseInput(createSettlementSchema, raw, settlementFieldCodes);
}

/**
 * POST /v1/fx/settlements: pays a foreign account. Funded by converting USD (a locked quote, or at
 * the current rate) or out of a EUR/GBP/JPY balance; the target amount is then held on the target
 * balance (`pending → converted`, both in this request) and paid the next US banking day at 12:00
 * ET, or returned to that balance when the destination fails.
 */
export async function createSettlement(ctx: ServiceContext, raw: unknown): Promise<FxSettlementRow> {
  const input = parseSettlement(raw);
  const funding = fundingOf(input, ctx.clock.now());
  const knownCurrency =
    funding.kind === 'balance'
      ? funding.currency
      : funding.kind === 'convert_now'
        ? funding.request.target
        : null;
  // With a quote the currency is the quote's: the destination is checked once the quote is read.
  if (knownCurrency) validateDestination(input.destination, knownCurrency);
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    const id = newId('fxSettlement');
    const now = ctx.clock.now();
    let quote: FxQuoteRow | null = null;
    if (funding.kind === 'quote') {
      const peek = await loadOne<FxQuoteRow>(
        tx,
        fxQuotes,
        ctx.merchant.id,
        funding.quoteId,
        'FX quote',
      ).catch((error: unknown) => {
        if (error instanceof SandbankError)
          throw new SandbankError(error.code, { param: 'quote_id', message: error.message });
        throw error;
      });
      validateDestination(input.destination, peek.targetCurrency as FxTargetCurrency);
      quote = await useQuote(tx, ctx, funding.quoteId, id);
    } else if (funding.kind === 'convert_now') {
      quote = await useQuote(tx, ctx, (await insertQuote(tx, ctx, funding.request)).id, id);
    }
    const currency = (quote?.targetCurrency ??
      (funding as { currency: FxTargetCurrency }).currency) as FxTargetCurrency;
    const amount = quote?.targetAmount ?? (funding as { amount: bigint }).amount;
    const destination = validateDestination(input.destination, currency);
    const failure = failureOf(destination);
    const [created] = await tx
      .insert(fxSettlements)
      .values({
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
        expectedPaidAt: nyInstant(addBankingDays(nyDateOf(now), 1), SETTLEMENT_PAY_TIME),
        reference: input.reference ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!created) throw new Error('settlement insert returned no row');
    await emitSettlement(tx, created, 'pending');
    if (quote) await convertOnLedger(tx, ctx, quote, { type: 'fx_settlement', id });
    const hold = await placeHold(tx, {
      merchantId: ctx.merchant.id,
      currency,
      amount,
      type: 'fx_settlement',
      source: { type: 'fx_settlement', id },
      at: now,
    });
    const converted = await transitionRow(tx, fxSettlementMachine, fxSettlements, created, 'convert', {
      holdId: hold.id,
      convertedAt: now,
      updatedAt: now,
    });
    await emitSettlement(tx, converted, 'converted');
    await scheduleJob(tx, {
      merchantId: ctx.merchant.id,
      kind: PAY_FX_SETTLEMENT_JOB,
      objectId: id,
      dueAt: converted.expectedPaidAt,
      createdAt: now,
    });
    return converted;
  });
}

/** Due work: the beneficiary's bank credits the settlement (the hold leaves), or refuses it. */
export async function paySettlementJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [row] = await ctx.tx
    .select()
    .from(fxSettlements)
    .where(and(eq(fxSettlements.id, job.objectId), eq(fxSettlements.merchantId, ctx.merchant.id)))
    .for('update');
  if (row?.state !== 'converted') return;
  const now = ctx.clock.now();
  if (row.failsWith) {
    await voidHold(ctx.tx, row.merchantId, row.holdId as string, now);
    const failed = await transitionRow(ctx.tx, fxSettlementMachine, fxSettlements, row, 'fail', {
      failedAt: now,
      failureCode: row.failsWith,
      failureReason: failureReasonOf(row.failsWith),
      updatedAt: now,
    });
    await emitSettlement(ctx.tx, failed, 'failed');
    return;
  }
  await postHold(ctx.tx, row.merchantId, row.holdId as string, now, 'bank_rails');
  const paid = await transitionRow(ctx.tx, fxSettlementMachine, fxSettlements, row, 'pay', {
    paidAt: now,
    updatedAt: now,
  });
  await emitSettlement(ctx.tx, paid, 'paid');
}

export function getSettlement(ctx: ServiceContext, id: string): Promise<FxSettlementRow> {
  return loadOne(ctx.tx ?? ctx.db, fxSettlements, ctx.merchant.id, id, 'FX settlement');
}

export async function listSettlements(
  ctx: ServiceContext,
  query: ListQuery & { state?: string | undefined },
): Promise<Page<FxSettlementRow>> {
  const conditions = [eq(fxSettlements.merchantId, ctx.merchant.id)];
  if (query.starting_after) conditions.push(lt(fxSettlements.id, query.starting_after));
  if (query.state) conditions.push(eq(fxSettlements.state, query.state));
  const rows = await (ctx.tx ?? ctx.db)
    .select()
    .from(fxSettlements)
    .where(and(...conditions))
    .orderBy(desc(fxSettlements.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit);
}
