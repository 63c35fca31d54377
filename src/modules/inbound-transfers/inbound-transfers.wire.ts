import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import type { ServiceContext } from '../context.ts';
import { ledgerPostingsEffect } from '../ledger/ledger.post.ts';
import { preparePosting } from '../ledger/ledger.statement.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
import { imadOf, omadOf, wireWindowFor } from '../transfers/transfers.wire.ts';
import { common, completed, inboundEvent } from './inbound-transfers.service.ts';
import { type InboundTransferRow, inboundTransfers } from './inbound-transfers.table.ts';

/**
 * Inbound Fedwire transfers: a wire another bank sends the merchant arrives when the service
 * processes it — at once during its operating day, else at the next opening (21:00 ET the evening
 * before a banking day) — and is final: available at once, never returned through Sandbank.
 */

/** Due work: a wire sent while the service was closed arrives at its opening. */
export const INBOUND_WIRE_JOB = 'inbound_transfer.wire_arrive';

/** When a wire sent now arrives, and the sending bank's IMAD for it. */
export function inboundWireTiming(id: string, now: Date): { arrivesAt: Date; imad: string } {
  const window = wireWindowFor(now);
  return { arrivesAt: window.processesAt, imad: imadOf(id, window.date) };
}

/** The OMAD of the wire's delivery to the merchant's bank at `at` (its cycle date: the IMAD's). */
export function inboundWireOmad(row: InboundTransferRow, at: Date): string {
  const cycle = (row.imad ?? '').slice(0, 8).replace(/^(\d{4})(\d{2})(\d{2})$/, '$1-$2-$3');
  return omadOf(row.id, cycle, at);
}

/** The posting of an entry's money arriving from the rails, into `to`. */
export function arrival(row: InboundTransferRow, to: 'available' | 'pending', now: Date) {
  const entries = [
    { account: 'bank_rails' as const, amount: -row.amount },
    { account: to, amount: row.amount },
  ];
  return { ...common(row, now), type: 'inbound_transfer' as const, entries };
}

/** The arrival job: the wire completes and its money is available (once: a completed wire is left alone). */
export async function arriveInboundWireJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [row] = await ctx.tx
    .select()
    .from(inboundTransfers)
    .where(and(eq(inboundTransfers.id, job.objectId), eq(inboundTransfers.merchantId, ctx.merchant.id)))
    .for('update');
  if (row?.state !== 'pending') return;
  const now = ctx.clock.now();
  const done = completed(row, now);
  const work = change()
    .update({
      table: inboundTransfers,
      id: row.id,
      expect: { state: 'pending' },
      set: { state: done.state, completedAt: now, omad: done.omad, updatedAt: now },
    })
    .event(inboundEvent(done, ctx.publicUrl))
    .effect(ledgerPostingsEffect, preparePosting(arrival(row, 'available', now)));
  await commit({ db: ctx.db, tx: ctx.tx }, work);
}
