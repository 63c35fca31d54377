import { change, commit } from '../../db/commit.ts';
import { jsonbOrdered } from '../../db/json-records.ts';
import { objectEvent } from '../../db/outbox.ts';
import { merchantRowsByIds } from '../../db/pages.ts';
import { newId } from '../../kernel/ids.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { ledgerPostingsEffect } from '../ledger/ledger.post.ts';
import { preparePosting } from '../ledger/ledger.statement.ts';
import { fxConversionStates } from './fx.machine.ts';
import { conversionPostings, lockQuote, takeQuote } from './fx.quotes.ts';
import { type FxConversionRow, fxConversionResource } from './fx.resource.ts';
import { listOf, loadOne } from './fx.rows.ts';
import type { CreateConversionInput } from './fx.schema.ts';
import { fxConversions } from './fx.table.ts';

/**
 * POST /v1/fx/conversions {quote_id}: available USD into the target's available at the locked rate,
 * one change in a transaction (the quote locked while it is taken): the quote used, both postings,
 * the conversion `completed` and its event (422 quote_expired, 409 quote_already_used, 422
 * insufficient_balance: nothing written).
 */
export async function createConversion(
  ctx: ServiceContext,
  input: CreateConversionInput,
): Promise<FxConversionRow> {
  return inContextTx(ctx, async (tx) => {
    const id = newId('fxConversion');
    const work = change();
    const quote = takeQuote(work, ctx, await lockQuote(tx, ctx, input.quote_id), id);
    for (const posting of conversionPostings(ctx, quote, { type: 'fx_conversion', id }))
      work.effect(ledgerPostingsEffect, preparePosting(posting));
    const now = ctx.clock.now();
    const row: FxConversionRow = {
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
      description: input.description ?? null,
      metadata: jsonbOrdered(input.metadata ?? {}),
      createdAt: now,
      updatedAt: now,
    };
    work
      .insert(fxConversions, row)
      .event(objectEvent(row, 'fx_conversion.completed', fxConversionResource(row)));
    await commit({ db: ctx.db, tx }, work);
    return row;
  });
}

export function getConversion(ctx: ServiceContext, id: string): Promise<FxConversionRow> {
  return loadOne(dbOf(ctx), fxConversions, ctx.merchant.id, id, 'FX conversion');
}

export function listConversions(
  ctx: ServiceContext,
  query: ListQuery & { state?: string | undefined },
): Promise<Page<FxConversionRow>> {
  return listOf(ctx, fxConversions, fxConversionStates, query);
}

/** The merchant's FX conversions among `ids` (GraphQL's nodes(ids:)). */
export function conversionsByIds(ctx: ServiceContext, ids: string[]): Promise<FxConversionRow[]> {
  return merchantRowsByIds<FxConversionRow>(ctx, fxConversions, ids);
}
