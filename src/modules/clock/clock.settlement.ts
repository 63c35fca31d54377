import { and, count, eq, inArray, isNotNull, max } from 'drizzle-orm';
import { nextSameDayAchWindow } from '../../kernel/calendar.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { inboundTransfers } from '../inbound-transfers/inbound-transfers.table.ts';
import { ACH_RAILS } from '../transfers/transfers.rails.ts';
import { transfers } from '../transfers/transfers.table.ts';

/**
 * "Next settlement": the clock instant at which every ACH entry of the merchant now in flight has
 * settled, whatever its kind. Standard ACH (a checkout's bank payment is a standard ACH debit)
 * settles the banking day after its window, Same-Day ACH at the window's settlement; credits and
 * debits, transfers and payouts alike, each at the `expected_settlement_at` its rail gave it at
 * creation (transfers.rails.ts achTimeline), and inbound ACH entries still pending. One advance to the latest of them (advanceClock with
 * `next: 'settlement'`) runs every submission and settlement on the way. With nothing in flight,
 * the next Same-Day ACH window's settlement (when an entry made now would settle soonest).
 */

/** An entry's states before it settles, on the ACH rails (a payout is `in_transit` once submitted). */
const UNSETTLED_STATES = ['pending', 'submitted', 'in_transit'] as const;

export interface SettlementTarget {
  /** Where the advance goes (never before the clock's now). */
  at: Date;
  /** How many ACH entries settle by then (0: none in flight, `at` is the next window's settlement). */
  entries: number;
}

export async function nextSettlement(ctx: ServiceContext, now: Date): Promise<SettlementTarget> {
  const [row] = await dbOf(ctx)
    .select({ latest: max(transfers.expectedSettlementAt), entries: count() })
    .from(transfers)
    .where(
      and(
        eq(transfers.merchantId, ctx.merchant.id),
        inArray(transfers.rail, [...ACH_RAILS]),
        inArray(transfers.state, [...UNSETTLED_STATES]),
        // An entry that stays submitted until a simulate step moves it has no settlement to wait for.
        isNotNull(transfers.expectedSettlementAt),
      ),
    );
  // Inbound ACH entries settle on the same timeline (the instant rails' are completed at once).
  const [inbound] = await dbOf(ctx)
    .select({ latest: max(inboundTransfers.expectedSettlementAt), entries: count() })
    .from(inboundTransfers)
    .where(
      and(
        eq(inboundTransfers.merchantId, ctx.merchant.id),
        inArray(inboundTransfers.rail, [...ACH_RAILS]),
        eq(inboundTransfers.state, 'pending'),
        isNotNull(inboundTransfers.expectedSettlementAt),
      ),
    );
  const instants = [row?.latest, inbound?.latest].flatMap((at) => (at ? [new Date(at).getTime()] : []));
  const latest = instants.length ? new Date(Math.max(...instants)) : null;
  const entries = Number(row?.entries ?? 0) + Number(inbound?.entries ?? 0);
  if (!latest || !entries) return { at: nextSameDayAchWindow(now).settlement, entries: 0 };
  // A settlement already due runs now (a step taken late settles when it is taken).
  return { at: latest.getTime() > now.getTime() ? latest : now, entries };
}
