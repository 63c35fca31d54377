/**
 * The merchant refusing a transfer's NOC (C61-C69), which reverts the correction it made to the
 * saved counterparty (through the counterparties module); it writes the transfer's event
 * `transfer.notification_of_change_refused`.
 */
import type { Tx } from '../../db/client.ts';
import { recordEvent } from '../../db/outbox.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { NocRecord } from '../bank-accounts/bank-accounts.corrections.ts';
import type { ServiceContext } from '../context.ts';
import { revertCorrection } from '../counterparties/counterparties.corrections.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import { entryEvent, setNotificationsOfChange } from '../transfers/transfers.rows.ts';
import { endOfTimeFrame, NOC_REFUSED_EVENT, notAch, whenEt } from './nocs.checks.ts';
import { nocCode } from './nocs.rules.ts';
import type { RefuseNocInput } from './nocs.schema.ts';

/**
 * The merchant (through its ODFI) refuses the transfer's NOC with a refused-NOC code: 409
 * invalid_state without an NOC or when it is already refused; 400 parameter_invalid for a code
 * that is not C61-C69; 409 time_frame_passed after its refuse_by. The correction it made to the
 * counterparty is reverted. A refusal code names an error in the NOC itself (misrouted, a trace
 * number, company or individual id, routing or account number or transaction code that is not the
 * original entry's, badly formatted corrected data, wrong discretionary data), whatever field the
 * NOC corrects: any of them may refuse any NOC.
 */
export async function refuseNoc(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  input: RefuseNocInput,
): Promise<TransferRow> {
  notAch(row);
  const record = row.notificationsOfChange.at(-1);
  if (!record)
    throw new SandbankError('invalid_state', {
      message: `This ${row.kind} has no notification of change to refuse.`,
    });
  if (record.refused_at)
    throw new SandbankError('invalid_state', {
      message: `This ${row.kind}'s notification of change (${record.code}) is already refused (${record.refusal_code}).`,
    });
  const code = nocCode(input.code);
  if (!code?.refusal)
    throw new SandbankError('parameter_invalid', {
      param: 'code',
      message: `${input.code.slice(0, 8)} is not a refused-NOC code (C61-C69, as listed in the reference).`,
    });
  const now = ctx.clock.now();
  const deadline = new Date(record.refuse_by);
  if (now.getTime() >= deadline.getTime() + 1000)
    throw new SandbankError('time_frame_passed', {
      message: `An ODFI refuses a notification of change within 15 calendar days of receiving it: the last allowed instant for this one was ${whenEt(deadline)}.`,
      extra: { deadline: endOfTimeFrame(deadline) },
    });
  const at = now.toISOString();
  if (record.counterparty)
    await revertCorrection(
      tx,
      row.merchantId,
      record.counterparty,
      row.id,
      { code: code.code, at },
      ctx.clock.now(),
    );
  const refused: NocRecord = {
    ...record,
    refused_at: at,
    refusal_code: code.code,
    refusal_reason: code.title,
  };
  const moved = await setNotificationsOfChange(
    tx,
    row,
    [...row.notificationsOfChange.slice(0, -1), refused],
    now,
  );
  await recordEvent(tx, entryEvent(moved, ctx.publicUrl, NOC_REFUSED_EVENT));
  return moved;
}
