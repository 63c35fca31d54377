import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { merchantPage } from '../../db/pages.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { isStateOf } from '../../kernel/state-machine.ts';
import type { ServiceContext } from '../context.ts';
import type { FxConversionState, FxQuoteState, FxSettlementState } from './fx.machine.ts';
import type { fxConversions, fxQuotes, fxSettlements } from './fx.table.ts';

/**
 * What quotes, conversions and settlements share about their rows: a change's event, one row
 * loaded, a page listed.
 */

type FxTable = typeof fxQuotes | typeof fxConversions | typeof fxSettlements;
type FxState = FxQuoteState | FxConversionState | FxSettlementState;

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

/** A page of the merchant's FX objects of one table (whose rows are in one of `states`), newest first, optionally in one state. */
export async function listOf<T extends { id: string }>(
  ctx: ServiceContext,
  table: FxTable,
  states: readonly FxState[],
  query: ListQuery & { state?: string | undefined },
): Promise<Page<T>> {
  const state = query.state || undefined; // an empty state filters nothing
  if (state !== undefined && !isStateOf(states, state)) return toPage([], query.limit);
  return merchantPage<T>(ctx, table, query, [state === undefined ? undefined : eq(table.state, state)]);
}
