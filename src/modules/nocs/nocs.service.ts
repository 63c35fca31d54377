/**
 * Notifications of change, the entry points: the two steps on a transfer (each in a transaction of
 * its own, on the transfer's row locked), and the magic account's NOC, scheduled at settlement and
 * received when due. The rules are in nocs.rules.ts; docs/guide/notifications-of-change.md tells them.
 */
import type { Tx } from '../../db/client.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ServiceContext } from '../context.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
import { scheduleJob } from '../scheduler/scheduler.service.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import { loadEntry, withEntry } from '../transfers/transfers.rows.ts';
import { receiveNoc } from './nocs.receive.ts';
import { refuseNoc } from './nocs.refuse.ts';
import { magicNocArrivesAt } from './nocs.rules.ts';
import type { RefuseNocInput, SimulateNocInput } from './nocs.schema.ts';

export const TRANSFER_NOC_JOB = 'transfer.notification_of_change';

/** At settlement: a magic account's NOC is due the next banking day (registered on the transfers' settlement hook, reactions.ts). */
export async function scheduleMagicNoc(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<void> {
  if (row.kind !== 'transfer' || row.nocCode === null) return;
  const now = ctx.clock.now();
  await scheduleJob(tx, {
    merchantId: row.merchantId,
    kind: TRANSFER_NOC_JOB,
    objectId: row.id,
    dueAt: magicNocArrivesAt(now),
    createdAt: now,
  });
}

/** The due NOC of a magic account: sent when the transfer is still settled and has none yet. */
export async function nocJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const row = await loadEntry(ctx.tx, ctx.merchant.id, 'transfer', job.objectId, { lock: true }).catch(
    (error: unknown) => {
      if (error instanceof SandbankError && error.code === 'resource_not_found') return undefined;
      throw error;
    },
  );
  if (row?.state !== 'settled' || row.nocCode === null || row.notificationsOfChange.length > 0) return;
  await receiveNoc(ctx.tx, ctx, row, { code: row.nocCode });
}

export const nocSteps = {
  receive: (ctx: ServiceContext, id: string, input: SimulateNocInput) =>
    withEntry(ctx, 'transfer', id, (tx, row) => receiveNoc(tx, ctx, row, input)),
  refuse: (ctx: ServiceContext, id: string, input: RefuseNocInput) =>
    withEntry(ctx, 'transfer', id, (tx, row) => refuseNoc(tx, ctx, row, input)),
};
