import { and, desc, eq, lt } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { transitionRow } from '../../db/compare-and-set.ts';
import { inTransaction } from '../../db/tx.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { parseInput } from '../../kernel/validation.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/events.service.ts';
import { post } from '../ledger/ledger.post.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import { fxQuoteMachine } from './fx.machine.ts';
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
import { type FxQuoteRow, fxQuoteResource } from './fx.resource.ts';
import {
  createQuoteSchema,
  FX_TARGETS,
  LOCK_DURATIONS,
  type LockDuration,
  quoteFieldCodes,
} from './fx.schema.ts';
import { type fxConversions, fxQuotes, type fxSettlements } from './fx.table.ts';

/**
 * FX rates and quotes, and what conversions and settlements share: taking a quote and
 * converting on the ledger. Conversions live in fx.conversions.ts, settlements in fx.settlements.ts.
 */
export const EXPIRE_FX_QUOTE_JOB = 'fx.expire_quote';

/** The largest USD amount one quote sells (a sandbox bound: amounts stay far from overflow). */
const MAX_SOURCE_MINOR = 1_000_000_000n; // 10,000,000.00 USD
/** The largest target amount one quote buys or one settlement pays, in major units. */
const MAX_TARGET_MAJOR = 2_000_000_000n;

/** The most of `currency` one quote buys or one settlement pays, in minor units. */
export function maxTargetMinor(currency: FxTargetCurrency): bigint {
  return MAX_TARGET_MAJOR * 10n ** BigInt(currency === 'JPY' ? 0 : 2);
}

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

/** The rate of one currency at an instant: the hour's mid rate and the sell rate under it. */
function rateAt(targetCurrency: FxTargetCurrency, instant: Date): FxRate {
  const mid = midRateAt(baseRates[targetCurrency], targetCurrency, instant);
  return { targetCurrency, mid, rate: sellRate(mid, spread) };
}

export interface FxRates {
  at: Date;
  asOf: Date;
  nextChangeAt: Date;
  spread: Rate;
  rates: FxRate[];
}

/**
 * GET /v1/fx/rates: the mid and sell rates of the clock's hour, or of the hour of `at` (any instant,
 * past or future: the rates are a pure function of time, so a chart can ask for any hour).
 */
export function getRates(ctx: ServiceContext, at?: Date): FxRates {
  const instant = at ?? ctx.clock.now();
  return {
    at: instant,
    asOf: hourStart(instant),
    nextChangeAt: nextRateChangeAt(instant),
    spread,
    rates: FX_TARGETS.map((currency) => rateAt(currency, instant)),
  };
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
// Shared by quotes, conversions and settlements

/** Writes the event `<object>.<type>` of a row's change, at the row's updatedAt. */
export function emit(
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

type FxTable = typeof fxQuotes | typeof fxConversions | typeof fxSettlements;

/** One of the merchant's FX objects (404 resource_not_found otherwise), its row locked when asked. */
export async function loadOne<T>(
  exec: Executor,
  table: FxTable,
  merchantId: string,
  id: string,
  what: string,
  options: { lock?: boolean; param?: string } = {},
): Promise<T> {
  const query = exec
    .select()
    .from(table)
    .where(and(eq(table.id, id), eq(table.merchantId, merchantId)));
  const [row] = id.includes('\u0000') ? [] : options.lock ? await query.for('update') : await query;
  if (!row) {
    throw new SandbankError('resource_not_found', {
      message: `No ${what} ${id.slice(0, 60)}.`,
      ...(options.param ? { param: options.param } : {}),
    });
  }
  return row as T;
}

/** A page of the merchant's FX objects of one table, newest first, optionally in one state. */
export async function listOf<T extends { id: string }>(
  ctx: ServiceContext,
  table: FxTable,
  query: ListQuery & { state?: string | undefined },
): Promise<Page<T>> {
  const conditions = [eq(table.merchantId, ctx.merchant.id)];
  if (query.starting_after) conditions.push(lt(table.id, query.starting_after));
  if (query.state) conditions.push(eq(table.state, query.state));
  const rows = await (ctx.tx ?? ctx.db)
    .select()
    .from(table)
    .where(and(...conditions))
    .orderBy(desc(table.id))
    .limit(query.limit + 1);
  return toPage(rows as T[], query.limit);
}

// ---------------------------------------------------------------------------------------------
// Quotes

const emitQuote = (exec: Executor, row: FxQuoteRow, type: string) =>
  emit(exec, 'fx_quote', row, type, fxQuoteResource(row));

export interface QuoteRequest {
  target: FxTargetCurrency;
  sourceAmount?: unknown;
  targetAmount?: unknown;
  lockDuration: LockDuration;
}

/** The amounts of a quote request at the clock's rate (400s for a bad or missing amount). */
export function priceQuote(now: Date, request: QuoteRequest) {
  const { target } = request;
  const hasSource = request.sourceAmount !== undefined;
  const hasTarget = request.targetAmount !== undefined;
  if (hasSource === hasTarget) {
    throw new SandbankError(hasSource ? 'parameter_invalid' : 'parameter_missing', {
      param: 'source_amount',
      message: 'Give exactly one of source_amount (USD to sell) and target_amount (to buy).',
    });
  }
  const { mid, rate } = rateAt(target, now);
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
          max: maxTargetMinor(target),
        }),
      });
  if (amounts.sourceAmount > MAX_SOURCE_MINOR) {
    throw new SandbankError('amount_invalid', {
      param: 'target_amount',
      message: 'This target amount costs more than 10,000,000.00 USD, the most one quote sells.',
    });
  }
  if (amounts.targetAmount > maxTargetMinor(target)) {
    throw new SandbankError('amount_invalid', {
      param: 'source_amount',
      message: `This amount buys more than ${MAX_TARGET_MAJOR} ${target}, the most one quote buys.`,
    });
  }
  return { ...amounts, mid, sell: rate, fixedSide: hasSource ? 'source' : 'target' };
}

/**
 * Prices and writes a quote with its created event, and the job that expires it unless the caller
 * uses it at once (`usedAtOnce`: a settlement converted at the current rate).
 */
export async function insertQuote(
  tx: Tx,
  ctx: ServiceContext,
  request: QuoteRequest,
  usedAtOnce = false,
): Promise<FxQuoteRow> {
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
      sellRate: formatRate(priced.sell),
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
  if (usedAtOnce) return row;
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

export function getQuote(ctx: ServiceContext, id: string): Promise<FxQuoteRow> {
  return loadOne(ctx.tx ?? ctx.db, fxQuotes, ctx.merchant.id, id, 'FX quote');
}

export function listQuotes(
  ctx: ServiceContext,
  query: ListQuery & { state?: string | undefined },
): Promise<Page<FxQuoteRow>> {
  return listOf(ctx, fxQuotes, query);
}

/** The quote a request names, its row locked (404 on quote_id when it is not the merchant's). */
export function lockQuote(tx: Tx, ctx: ServiceContext, quoteId: string): Promise<FxQuoteRow> {
  return loadOne<FxQuoteRow>(tx, fxQuotes, ctx.merchant.id, quoteId, 'FX quote', {
    lock: true,
    param: 'quote_id',
  });
}

/**
 * Takes a locked quote for a conversion or a settlement: of two requests racing for one quote, the
 * second waits on the row lock and then finds it used (409 quote_already_used). A quote is usable
 * strictly before `expires_at` on the clock (422 quote_expired from that instant on, whether or not
 * the expiry job has run yet).
 */
export async function useQuote(
  tx: Tx,
  ctx: ServiceContext,
  quote: FxQuoteRow,
  usedBy: string,
): Promise<FxQuoteRow> {
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
 * currency, so the ledger sums to zero per currency after every conversion. 422
 * insufficient_balance (and nothing written) when the USD available is short.
 */
export async function convertOnLedger(
  tx: Tx,
  ctx: ServiceContext,
  quote: FxQuoteRow,
  source: { type: string; id: string },
): Promise<void> {
  const at = ctx.clock.now();
  const base = { merchantId: ctx.merchant.id, type: 'fx_conversion', source, at };
  await post(tx, {
    ...base,
    currency: 'USD',
    entries: [
      { account: 'available', amount: -quote.sourceAmount },
      { account: 'fx_liquidity', amount: quote.sourceAmount },
    ],
  });
  await post(tx, {
    ...base,
    currency: quote.targetCurrency as CurrencyCode,
    entries: [
      { account: 'fx_liquidity', amount: -quote.targetAmount },
      { account: 'available', amount: quote.targetAmount },
    ],
  });
}
