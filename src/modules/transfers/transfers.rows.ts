import { and, eq } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { inTransaction } from '../../db/tx.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/events.service.ts';
import type { EntryKind } from './transfers.machine.ts';
import { railEntryResource, type TransferRow } from './transfers.resource.ts';
import { transfers } from './transfers.table.ts';

/** Due work that moves a transfer or payout along the rail's timeline (payload: none; the row says what). */
export const TRANSFER_SUBMIT_JOB = 'transfer.submit';
export const TRANSFER_SETTLE_JOB = 'transfer.settle';
export const TRANSFER_RETURN_JOB = 'transfer.return';
export const TRANSFER_RTP_JOB = 'transfer.rtp_answer';

export async function loadEntry(
  exec: Executor,
  merchantId: string,
  kind: EntryKind,
  id: string,
): Promise<TransferRow> {
  const [row] = id.includes('\u0000')
    ? []
    : await exec
        .select()
        .from(transfers)
        .where(and(eq(transfers.id, id), eq(transfers.merchantId, merchantId), eq(transfers.kind, kind)));
  if (!row) throw new SandbankError('resource_not_found', { message: `No ${kind} ${id.slice(0, 60)}.` });
  return row;
}

export function emit(tx: Tx, row: TransferRow, type: string = row.state): Promise<string> {
  return recordEvent(tx, {
    merchantId: row.merchantId,
    type: `${row.kind}.${type}`,
    objectId: row.id,
    data: { object: railEntryResource(row) },
    at: row.updatedAt,
  });
}

export const kindOf = (row: TransferRow) => row.kind as EntryKind;

/** A step requested through the API (simulate/… or cancel), in a transaction of its own. */
export function step(
  ctx: ServiceContext,
  kind: EntryKind,
  id: string,
  work: (tx: Tx, row: TransferRow) => Promise<TransferRow>,
): Promise<TransferRow> {
  return inTransaction(ctx.db, ctx.tx, async (tx) =>
    work(tx, await loadEntry(tx, ctx.merchant.id, kind, id)),
  );
}
