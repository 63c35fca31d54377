/**
 * Notifications of change, the steps: an NOC arriving on a settled ACH transfer (a magic
 * account's, due after settlement, or the simulate step's), applied to the saved counterparty the
 * transfer named; and the merchant refusing it (C61-C69), which reverts that correction. Each
 * writes the transfer's event: `transfer.notification_of_change`, `transfer.notification_of_change_refused`.
 */
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Tx } from '../../db/client.ts';
import { recordEvent } from '../../db/outbox.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ServiceContext } from '../context.ts';
import { loadCounterparty } from '../counterparties/counterparties.service.ts';
import {
  type CounterpartyFields,
  type CounterpartyRow,
  counterparties,
} from '../counterparties/counterparties.table.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
import { scheduleJob } from '../scheduler/scheduler.service.ts';
import {
  CHANGE_CODES,
  type CorrectedData,
  correctedValueProblem,
  derivedValue,
  magicNocArrivesAt,
  NOC_FIELDS,
  type NocField,
  type NocOriginal,
  type NocRecord,
  nocCode,
  nocDeadline,
  originalValue,
  REFUSAL_CODES,
  refusalDeadline,
  transactionCode,
} from './transfers.noc.ts';
import { type Direction, isInstantRail } from './transfers.rails.ts';
import type { TransferRow } from './transfers.resource.ts';
import { entryEvent, withEntry } from './transfers.rows.ts';
import { transfers } from './transfers.table.ts';

/**
 * The error's `deadline`: the first instant the step is refused (the last allowed second, 23:59:59
 * ET, plus one second), as return_deadline_passed names its deadline.
 */
const endOfTimeFrame = (lastAllowed: Date): string => new Date(lastAllowed.getTime() + 1000).toISOString();

export const TRANSFER_NOC_JOB = 'transfer.notification_of_change';
export const NOC_EVENT = 'transfer.notification_of_change';
export const NOC_REFUSED_EVENT = 'transfer.notification_of_change_refused';

export const simulateNocSchema = z.strictObject({
  // Checked by the service after the entry's state (409 before 400), so the list is metadata.
  code: z
    .string()
    .max(8)
    .meta({ enum: [...CHANGE_CODES] })
    .describe('The Nacha change code (C01-C07, C09, C13 are sent; C08, C10-C12 and C14 are refused).'),
  corrected_data: z
    .strictObject({
      routing_number: z.string().max(32).optional(),
      account_number: z.string().max(32).optional(),
      account_type: z.enum(['checking', 'savings']).optional(),
      name: z.string().max(100).optional(),
      individual_id: z.string().max(32).optional(),
      addenda_information: z.string().max(200).optional(),
    })
    .optional()
    .describe(
      'The corrected values (only the fields the code corrects); each field left out is derived from the entry.',
    ),
});
export type SimulateNocInput = z.output<typeof simulateNocSchema>;

export const refuseNocSchema = z.strictObject({
  code: z
    .string()
    .max(8)
    .meta({ enum: [...REFUSAL_CODES] })
    .describe('The refused-NOC code (C61-C69).'),
});
export type RefuseNocInput = z.output<typeof refuseNocSchema>;

/** Where each correctable field lives on a saved counterparty (addenda information is the entry's own). */
const COUNTERPARTY_FIELD: Partial<Record<NocField, keyof CounterpartyFields>> = {
  routing_number: 'routingNumber',
  account_number: 'accountNumber',
  account_type: 'accountType',
  name: 'name',
  individual_id: 'individualId',
};

const FIELD_WORDS: Record<NocField, string> = {
  routing_number: 'the routing number',
  account_number: 'the account number',
  account_type: 'the transaction code (account type)',
  name: 'the name',
  individual_id: 'the individual id',
  addenda_information: 'the addenda information',
};

/** An instant as the errors name it: ISO 8601 and the bank's local date and time. */
function whenEt(at: Date): string {
  const local = at.toLocaleString('en-CA', {
    timeZone: 'America/New_York',
    hour12: false,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return `${at.toISOString()} (${local.replace(',', '')} ET)`;
}

function notAch(row: TransferRow): void {
  if (isInstantRail(row.rail))
    throw new SandbankError('invalid_state', {
      message: `This ${row.rail === 'fednow' ? 'FedNow' : 'RTP'} ${row.kind} is ${row.state}; notifications of change are for ACH entries only.`,
    });
}

async function updateTransfer(tx: Tx, row: TransferRow, values: Partial<TransferRow>): Promise<TransferRow> {
  const [moved] = await tx
    .update(transfers)
    .set(values)
    .where(and(eq(transfers.id, row.id), eq(transfers.merchantId, row.merchantId)))
    .returning();
  return moved as TransferRow;
}

/** The entry's receiver as it went out: a saved counterparty's full account number when it still ends as the entry did. */
function originalOf(row: TransferRow, counterparty: CounterpartyRow | null): NocOriginal {
  const full = counterparty?.accountNumber;
  return {
    routingNumber: row.routingNumber,
    accountNumber: full?.endsWith(row.accountLast4) ? full : row.accountLast4,
    accountType: row.accountType as 'checking' | 'savings',
    name: row.counterpartyName,
    individualId: counterparty?.individualId ?? null,
    description: row.description,
  };
}

/** The corrected data: each field the code corrects, given (checked) or derived; plus C05-C07's transaction code. */
function correctedDataOf(
  code: string,
  fields: readonly NocField[],
  given: Partial<Record<NocField, string>>,
  original: NocOriginal,
  direction: Direction,
): CorrectedData {
  for (const key of Object.keys(given) as NocField[]) {
    if (!fields.includes(key))
      throw new SandbankError('parameter_invalid', {
        param: `corrected_data.${key}`,
        message: `${code} corrects ${fields.map((f) => f).join(', ') || 'nothing'}; not ${key}.`,
      });
  }
  const data: CorrectedData = {};
  for (const field of fields) {
    const value = given[field];
    if (value === undefined) {
      data[field] = derivedValue(field, original);
      continue;
    }
    const problem = correctedValueProblem(field, value);
    if (problem)
      throw new SandbankError('parameter_invalid', {
        param: `corrected_data.${field}`,
        message: `Invalid corrected_data.${field}: ${problem}.`,
      });
    if (value === originalValue(field, original))
      throw new SandbankError('parameter_invalid', {
        param: `corrected_data.${field}`,
        message: `corrected_data.${field} is what the entry already had: a correction changes it.`,
      });
    data[field] = value;
  }
  if (data.account_type)
    data.transaction_code = transactionCode(data.account_type as 'checking' | 'savings', direction);
  return data;
}

/** Applies an NOC's corrections to the saved counterparty; answers what they replaced. */
async function correctCounterparty(
  tx: Tx,
  counterparty: CounterpartyRow,
  record: NocRecord,
  transferId: string,
  now: Date,
): Promise<void> {
  const values: Partial<CounterpartyFields> = {};
  const previous: Partial<CounterpartyFields> = {};
  const corrected: Record<string, string> = {};
  for (const field of NOC_FIELDS) {
    const value = record.corrected_data[field];
    if (value === undefined) continue;
    corrected[field] = value;
    const column = COUNTERPARTY_FIELD[field];
    if (!column) continue;
    Object.assign(previous, { [column]: counterparty[column] });
    Object.assign(values, { [column]: value });
  }
  if (record.corrected_data.transaction_code)
    corrected.transaction_code = record.corrected_data.transaction_code;
  await tx
    .update(counterparties)
    .set({
      ...values,
      corrections: [
        ...counterparty.corrections,
        {
          code: record.code,
          reason: record.reason,
          transferId,
          corrected,
          previous,
          receivedAt: record.received_at,
          refusedAt: null,
          refusalCode: null,
        },
      ],
      updatedAt: now,
    })
    .where(eq(counterparties.id, counterparty.id));
}

/**
 * The RDFI's NOC about a settled ACH transfer: 409 invalid_state unless settled (and on RTP, or
 * when it already has one); 400 parameter_invalid for a code Sandbank does not send (a refusal
 * code, C08, C10-C12, C14) or corrected data that is not a correction; 422 time_frame_passed after
 * the 2nd banking day after settlement. Applied at once to the saved counterparty it names.
 */
export async function receiveNoc(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  input: SimulateNocInput,
): Promise<TransferRow> {
  notAch(row);
  if (row.state !== 'settled')
    throw new SandbankError('invalid_state', {
      message: `This ${row.kind} is ${row.state}; a notification of change needs it to be settled.`,
    });
  const earlier = row.notificationsOfChange[0];
  if (earlier)
    throw new SandbankError('invalid_state', {
      message: `This ${row.kind} already has a notification of change (${earlier.code}); an RDFI sends one per entry.`,
    });
  const code = nocCode(input.code);
  if (!code || code.refusal)
    throw new SandbankError('parameter_invalid', {
      param: 'code',
      message: code
        ? `${code.code} is a refused-NOC code, sent by the ODFI: refuse an NOC with POST /v1/transfers/{id}/notification_of_change/refuse.`
        : `${input.code.slice(0, 8)} is not a Nacha change code (C01-C14, as listed in the reference).`,
    });
  if (code.notSent) throw new SandbankError('parameter_invalid', { param: 'code', message: code.notSent });
  const now = ctx.clock.now();
  const deadline = nocDeadline(row.settledAt as Date);
  if (now.getTime() >= deadline.getTime() + 1000)
    throw new SandbankError('time_frame_passed', {
      message: `An RDFI sends a notification of change within 2 banking days of the entry's settlement: the last allowed instant for this ${row.kind} was ${whenEt(deadline)}.`,
      extra: { deadline: endOfTimeFrame(deadline) },
    });
  const counterparty = row.counterpartyId
    ? await loadCounterparty(tx, row.merchantId, row.counterpartyId, { lock: true })
    : null;
  const record: NocRecord = {
    code: code.code,
    reason: code.title,
    corrected_data: correctedDataOf(
      code.code,
      code.corrects,
      input.corrected_data ?? {},
      originalOf(row, counterparty),
      row.direction as Direction,
    ),
    counterparty: counterparty?.id ?? null,
    received_at: now.toISOString(),
    refuse_by: refusalDeadline(now).toISOString(),
    refused_at: null,
    refusal_code: null,
    refusal_reason: null,
  };
  if (counterparty) await correctCounterparty(tx, counterparty, record, row.id, now);
  const moved = await updateTransfer(tx, row, {
    notificationsOfChange: [...row.notificationsOfChange, record],
    updatedAt: now,
  });
  await recordEvent(tx, entryEvent(moved, ctx.publicUrl, NOC_EVENT));
  return moved;
}

/** Undoes a refused NOC's correction: each field the counterparty still holds as corrected goes back. */
async function revertCorrection(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  record: NocRecord,
  refusal: { code: string; at: string },
): Promise<void> {
  if (!record.counterparty) return;
  const counterparty = await loadCounterparty(tx, row.merchantId, record.counterparty, { lock: true });
  const values: Partial<CounterpartyFields> = {};
  const corrections = counterparty.corrections.map((correction) => {
    if (correction.transferId !== row.id || correction.refusedAt !== null) return correction;
    for (const [column, before] of Object.entries(correction.previous) as [
      keyof CounterpartyFields,
      string,
    ][]) {
      const field = (Object.keys(COUNTERPARTY_FIELD) as NocField[]).find(
        (f) => COUNTERPARTY_FIELD[f] === column,
      );
      if (field && counterparty[column] === correction.corrected[field])
        Object.assign(values, { [column]: before });
    }
    return { ...correction, refusedAt: refusal.at, refusalCode: refusal.code };
  });
  await tx
    .update(counterparties)
    .set({ ...values, corrections, updatedAt: ctx.clock.now() })
    .where(eq(counterparties.id, counterparty.id));
}

/**
 * The merchant (through its ODFI) refuses the transfer's NOC with a refused-NOC code: 409
 * invalid_state without an NOC or when it is already refused; 400 parameter_invalid for a code
 * that is not C61-C69 or that is about a field the NOC does not correct (C64, C67-C69); 422
 * time_frame_passed after its refuse_by. The correction it made to the counterparty is reverted.
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
  const corrects = nocCode(record.code)?.corrects ?? [];
  if (code.refusalNeeds && !corrects.includes(code.refusalNeeds))
    throw new SandbankError('parameter_invalid', {
      param: 'code',
      message: `${code.code} (${code.title}) refuses an NOC that corrects ${FIELD_WORDS[code.refusalNeeds]}; this ${record.code} NOC corrects ${corrects.map((f) => FIELD_WORDS[f]).join(', ')}.`,
    });
  const now = ctx.clock.now();
  const deadline = new Date(record.refuse_by);
  if (now.getTime() >= deadline.getTime() + 1000)
    throw new SandbankError('time_frame_passed', {
      message: `An ODFI refuses a notification of change within 15 calendar days of receiving it: the last allowed instant for this one was ${whenEt(deadline)}.`,
      extra: { deadline: endOfTimeFrame(deadline) },
    });
  const at = now.toISOString();
  await revertCorrection(tx, ctx, row, record, { code: code.code, at });
  const refused: NocRecord = {
    ...record,
    refused_at: at,
    refusal_code: code.code,
    refusal_reason: code.title,
  };
  const moved = await updateTransfer(tx, row, {
    notificationsOfChange: [...row.notificationsOfChange.slice(0, -1), refused],
    updatedAt: now,
  });
  await recordEvent(tx, entryEvent(moved, ctx.publicUrl, NOC_REFUSED_EVENT));
  return moved;
}

/** At settlement: a magic account's NOC is due the next banking day (settle() calls this). */
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
  const [row] = await ctx.tx
    .select()
    .from(transfers)
    .where(and(eq(transfers.id, job.objectId), eq(transfers.merchantId, ctx.merchant.id)))
    .for('update');
  if (row?.state !== 'settled' || row.nocCode === null || row.notificationsOfChange.length > 0) return;
  await receiveNoc(ctx.tx, ctx, row, { code: row.nocCode });
}

export const nocSteps = {
  receive: (ctx: ServiceContext, id: string, input: SimulateNocInput) =>
    withEntry(ctx, 'transfer', id, (tx, row) => receiveNoc(tx, ctx, row, input)),
  refuse: (ctx: ServiceContext, id: string, input: RefuseNocInput) =>
    withEntry(ctx, 'transfer', id, (tx, row) => refuseNoc(tx, ctx, row, input)),
};
