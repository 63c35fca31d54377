import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { type Change, change, commit } from '../../db/commit.ts';
import { type EventInput, objectEvent } from '../../db/outbox.ts';
import { merchantRowsByIds } from '../../db/pages.ts';
import { type StatefulKind, step } from '../../db/step.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { transition } from '../../kernel/state-machine.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import type { PostingInput } from '../ledger/ledger.rows.ts';
import { type JobRow, jobValues } from '../scheduler/scheduler.service.ts';
import { type FxQuoteEvent, type FxQuoteState, fxQuoteMachine } from './fx.machine.ts';
import { priceQuote, type QuoteRequest } from './fx.pricing.ts';
import { formatRate } from './fx.rates.ts';
import { type FxQuoteRow, fxQuoteResource } from './fx.resource.ts';
import { listOf, loadOne } from './fx.rows.ts';
import { type CreateQuoteInput, LOCK_DURATIONS } from './fx.schema.ts';
import { fxQuotes } from './fx.table.ts';

/**
 * FX quotes, and what conversions and settlements share: taking a quote and converting on the
 * ledger at it. Conversions live in fx.conversions.ts, settlements in fx.settlements.ts.
 */
export const EXPIRE_FX_QUOTE_JOB = 'fx.expire_quote';

/** A quote's event (by default `fx_quote.<state>`, on arriving in it), with the quote as it is now. */
function quoteEvent(row: FxQuoteRow, _publicUrl: string, type = `fx_quote.${row.state}`): EventInput {
  return objectEvent(row, type, fxQuoteResource(row));
}

/** Quotes as stateful objects, for step(). */
const quoteKind: StatefulKind<FxQuoteRow, FxQuoteState, FxQuoteEvent> = {
  machine: fxQuoteMachine,
  table: fxQuotes,
  event: quoteEvent,
};

/** A new quote priced now (every 400 of its amounts here), as stored: open, locked for its duration. */
export function newQuote(ctx: ServiceContext, request: QuoteRequest): FxQuoteRow {
  const now = ctx.clock.now();
  const priced = priceQuote(ctx.config.fx, now, request);
  return {
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
    usedBy: null,
    expiresAt: new Date(now.getTime() + LOCK_DURATIONS[request.lockDuration] * 1000),
    createdAt: now,
    updatedAt: now,
  };
}

/** POST /v1/fx/quotes: a rate locked for five minutes (default), an hour or a day — the quote, its event and its expiry, one change. */
export async function createQuote(ctx: ServiceContext, input: CreateQuoteInput): Promise<FxQuoteRow> {
  const row = newQuote(ctx, {
    target: input.target_currency,
    sourceAmount: input.source_amount,
    targetAmount: input.target_amount,
    lockDuration: input.lock_duration ?? 'five_minutes',
  });
  const expiry = jobValues({
    merchantId: row.merchantId,
    kind: EXPIRE_FX_QUOTE_JOB,
    objectId: row.id,
    dueAt: row.expiresAt,
    createdAt: row.createdAt,
  });
  await commit(ctx, change().insert(fxQuotes, row).event(quoteCreatedEvent(row)).job(expiry));
  return row;
}

/** A new quote's event. */
export function quoteCreatedEvent(row: FxQuoteRow): EventInput {
  return quoteEvent(row, '', 'fx_quote.created');
}

/** A quote as using it leaves it (used by `usedBy`); refused when it is used already or expired. */
export function usedQuote(ctx: ServiceContext, quote: FxQuoteRow, usedBy: string): FxQuoteRow {
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
  return { ...quote, state: transition(fxQuoteMachine, quote.state, 'use'), usedBy, updatedAt: now };
}

/** The event of a quote arriving in `used`. */
export function quoteUsedEvent(row: FxQuoteRow): EventInput {
  return quoteEvent(row, '');
}

export function getQuote(ctx: ServiceContext, id: string): Promise<FxQuoteRow> {
  return loadOne(dbOf(ctx), fxQuotes, ctx.merchant.id, id, 'FX quote');
}

export function listQuotes(
  ctx: ServiceContext,
  query: ListQuery & { state?: string | undefined },
): Promise<Page<FxQuoteRow>> {
  return listOf(ctx, fxQuotes, fxQuoteMachine.states, query);
}

/** The quote a request names, its row locked (404 on quote_id when it is not the merchant's). */
export function lockQuote(tx: Tx, ctx: ServiceContext, quoteId: string): Promise<FxQuoteRow> {
  return loadOne<FxQuoteRow>(tx, fxQuotes, ctx.merchant.id, quoteId, 'FX quote', {
    lock: true,
    param: 'quote_id',
  });
}

/**
 * Adds to a change the taking of a locked quote for a conversion or a settlement: of two requests
 * racing for one quote, the second waits on the row lock and then finds it used (409
 * quote_already_used). A quote is usable strictly before `expires_at` on the clock (422
 * quote_expired from that instant on, whether or not the expiry job has run yet). The quote's
 * update and its `fx_quote.used` event; the quote as it leaves it.
 */
export function takeQuote(work: Change, ctx: ServiceContext, quote: FxQuoteRow, usedBy: string): FxQuoteRow {
  const used = usedQuote(ctx, quote, usedBy);
  work
    .update({
      table: fxQuotes,
      id: quote.id,
      expect: { state: quote.state },
      set: { state: used.state, usedBy: used.usedBy, updatedAt: used.updatedAt },
    })
    .event(quoteUsedEvent(used));
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
  await step(ctx.tx, ctx, quoteKind, row, 'expire');
}

/**
 * The ledger of a conversion at a quote, as two postings, each balanced in its own currency (the
 * ledger sums to zero per currency after every conversion): USD leaves available for the FX desk
 * (fx_liquidity), and the target currency comes from the desk into available. 422
 * insufficient_balance (and nothing written) when the USD available is short.
 */
export function conversionPostings(
  ctx: ServiceContext,
  quote: FxQuoteRow,
  source: { type: string; id: string },
): PostingInput[] {
  const at = ctx.clock.now();
  const base = { merchantId: ctx.merchant.id, type: 'fx_conversion', source, at };
  return [
    {
      ...base,
      currency: 'USD',
      entries: [
        { account: 'available', amount: -quote.sourceAmount },
        { account: 'fx_liquidity', amount: quote.sourceAmount },
      ],
    },
    {
      ...base,
      currency: quote.targetCurrency as CurrencyCode,
      entries: [
        { account: 'fx_liquidity', amount: -quote.targetAmount },
        { account: 'available', amount: quote.targetAmount },
      ],
    },
  ];
}

/** The merchant's FX quotes among `ids` (GraphQL's nodes(ids:)). */
export function quotesByIds(ctx: ServiceContext, ids: string[]): Promise<FxQuoteRow[]> {
  return merchantRowsByIds<FxQuoteRow>(ctx, fxQuotes, ids);
}
