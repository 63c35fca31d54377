import { and, eq } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import type { EventInput } from '../../db/outbox.ts';
import { objectEvent } from '../../db/outbox.ts';
import type { StatefulKind } from '../../db/step.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { Machine } from '../../kernel/state-machine.ts';
import type { NocRecord } from '../bank-accounts/bank-accounts.corrections.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import {
  type AchTransferEvent,
  achMachineOf,
  type EntryKind,
  type EntryState,
  type RtpTransferEvent,
  rtpMachineOf,
  type WireTransferEvent,
  wireMachineOf,
} from './transfers.machine.ts';
import { isAchRail } from './transfers.rails.ts';
import { railEntryResource, type TransferRow } from './transfers.resource.ts';
import { transfers } from './transfers.table.ts';

/** Due work that moves a transfer or payout along the rail's timeline (payload: none; the row says what). */
export const TRANSFER_SUBMIT_JOB = 'transfer.submit';
export const TRANSFER_SETTLE_JOB = 'transfer.settle';
export const TRANSFER_RETURN_JOB = 'transfer.return';
export const TRANSFER_RTP_JOB = 'transfer.rtp_answer';
/** Fedwire: the service processes the wire; the beneficiary bank returns it; it answers a recall. */
export const TRANSFER_WIRE_JOB = 'transfer.wire_process';
export const TRANSFER_WIRE_RETURN_JOB = 'transfer.wire_return';
export const TRANSFER_WIRE_RECALL_JOB = 'transfer.wire_recall_answer';

/** One of the merchant's entries of this kind (404 resource_not_found otherwise), its row locked when asked. */
export async function loadEntry(
  exec: Executor,
  merchantId: string,
  kind: EntryKind,
  id: string,
  options: { lock?: boolean } = {},
): Promise<TransferRow> {
  const query = exec
    .select()
    .from(transfers)
    .where(and(eq(transfers.id, id), eq(transfers.merchantId, merchantId), eq(transfers.kind, kind)));
  const [row] = id.includes('\u0000') ? [] : options.lock ? await query.for('update') : await query;
  if (!row) throw new SandbankError('resource_not_found', { message: `No ${kind} ${id.slice(0, 60)}.` });
  return row;
}

/**
 * An entry's event (by default `<kind>.<state>`, on arriving in it: `transfer.settled`,
 * `payout.paid`), with the entry as it is now.
 */
export function entryEvent(
  row: TransferRow,
  _publicUrl: string,
  type = `${row.kind}.${row.state}`,
): EventInput {
  return objectEvent(row, type, railEntryResource(row));
}

/** Entries of one machine as stateful objects, for step(). */
function entryKind<E extends string>(
  machine: Machine<EntryState, E>,
): StatefulKind<TransferRow, EntryState, E> {
  return { machine, table: transfers, event: entryEvent };
}

const kindsOf = (kind: EntryKind) => ({
  ach: entryKind(achMachineOf(kind)),
  rtp: entryKind(rtpMachineOf(kind)),
  wire: entryKind(wireMachineOf(kind)),
});
const KINDS = { transfer: kindsOf('transfer'), payout: kindsOf('payout') };

/** The entry's kind on ACH and Same-Day ACH (its machine: the transfer's or the payout's). */
export const achKindOf = (row: TransferRow): StatefulKind<TransferRow, EntryState, AchTransferEvent> =>
  KINDS[row.kind].ach;

/** The entry's kind on RTP. */
export const rtpKindOf = (row: TransferRow): StatefulKind<TransferRow, EntryState, RtpTransferEvent> =>
  KINDS[row.kind].rtp;

/** The entry's kind on Fedwire. */
export const wireKindOf = (row: TransferRow): StatefulKind<TransferRow, EntryState, WireTransferEvent> =>
  KINDS[row.kind].wire;

type AchKind = StatefulKind<TransferRow, EntryState, AchTransferEvent>;

/** The rail's name as a person reads it. */
export const railName = (rail: string): string =>
  ({ rtp: 'RTP', fednow: 'FedNow', wire: 'Fedwire' })[rail] ?? 'ACH';

/** The entry's ACH kind (409 on an RTP entry: `event` is a step of ACH entries only). */
export function achKind(row: TransferRow, event: AchTransferEvent): AchKind {
  if (!isAchRail(row.rail)) {
    throw new SandbankError('invalid_state', {
      message: `This ${railName(row.rail)} ${row.kind} is ${row.state}; ${event} is a step of ACH ${row.kind}s only.`,
    });
  }
  return achKindOf(row);
}

/** What every ledger posting of an entry's step shares. */
export const common = (row: TransferRow, at: Date) => ({
  merchantId: row.merchantId,
  currency: row.currency as CurrencyCode,
  amount: row.amount,
  source: { type: row.kind, id: row.id },
  at,
});

/**
 * A step requested through the API (simulate/… or cancel), in a transaction of its own, on the
 * entry's row locked: a step racing it (the API's or the rail's due work) waits, then finds the
 * state it left.
 */
export function withEntry(
  ctx: ServiceContext,
  kind: EntryKind,
  id: string,
  work: (tx: Tx, row: TransferRow) => Promise<TransferRow>,
): Promise<TransferRow> {
  return inContextTx(ctx, async (tx) =>
    work(tx, await loadEntry(tx, ctx.merchant.id, kind, id, { lock: true })),
  );
}

/** Writes the entry's notifications of change (the nocs module's steps), answering the row as it now is. */
export async function setNotificationsOfChange(
  tx: Tx,
  row: TransferRow,
  records: NocRecord[],
  now: Date,
): Promise<TransferRow> {
  const [moved] = await tx
    .update(transfers)
    .set({ notificationsOfChange: records, updatedAt: now })
    .where(and(eq(transfers.id, row.id), eq(transfers.merchantId, row.merchantId)))
    .returning();
  return moved as TransferRow;
}
