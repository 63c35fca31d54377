/**
 * An NOC arriving on a settled ACH transfer (a magic account's, due after settlement, or the
 * simulate step's), applied to the saved counterparty the transfer named through the counterparties
 * module; it writes the transfer's event `transfer.notification_of_change`.
 */
import type { Tx } from '../../db/client.ts';
import { recordEvent } from '../../db/outbox.ts';
import { SandbankError } from '../../kernel/errors.ts';
import {
  type CorrectedData,
  NOC_FIELDS,
  type NocField,
  type NocRecord,
} from '../bank-accounts/bank-accounts.corrections.ts';
import type { ServiceContext } from '../context.ts';
import { applyCorrection } from '../counterparties/counterparties.corrections.ts';
import { loadCounterparty } from '../counterparties/counterparties.service.ts';
import type { CounterpartyRow } from '../counterparties/counterparties.table.ts';
import type { Direction } from '../transfers/transfers.rails.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import { entryEvent, setNotificationsOfChange } from '../transfers/transfers.rows.ts';
import { endOfTimeFrame, NOC_EVENT, notAch, whenEt } from './nocs.checks.ts';
import {
  correctedNocDeadline,
  correctedValueProblem,
  derivedValue,
  type NocOriginal,
  nocCode,
  nocDeadline,
  originalValue,
  refusalDeadline,
  transactionCode,
} from './nocs.rules.ts';
import type { SimulateNocInput } from './nocs.schema.ts';

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

/** The corrected values a counterparty records: each corrected field, then C05-C07's transaction code. */
function correctedOf(data: CorrectedData): Record<string, string> {
  const corrected: Record<string, string> = {};
  for (const field of NOC_FIELDS) {
    const value = data[field];
    if (value !== undefined) corrected[field] = value;
  }
  if (data.transaction_code) corrected.transaction_code = data.transaction_code;
  return corrected;
}

/**
 * The RDFI's NOC about a settled ACH transfer, or its corrected NOC after the merchant refused
 * the last one: 409 invalid_state unless settled (and on RTP, or when it has an NOC not refused); 400 parameter_invalid for a code Sandbank does not send (a refusal
 * code, C08, C10-C12, C14) or corrected data that is not a correction; 409 time_frame_passed after
 * the 2nd banking day after settlement (a corrected NOC: the 5th banking day after the refusal). Applied at once to the saved counterparty it names.
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
  // One NOC per entry, and after a refused one a corrected one.
  const earlier = row.notificationsOfChange.at(-1);
  if (earlier && !earlier.refused_at)
    throw new SandbankError('invalid_state', {
      message: `This ${row.kind} already has a notification of change (${earlier.code}); an RDFI sends one per entry, and another only to correct one the originating bank refused.`,
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
  const refusedAt = earlier?.refused_at ? new Date(earlier.refused_at) : null;
  const deadline = refusedAt ? correctedNocDeadline(refusedAt) : nocDeadline(row.settledAt as Date);
  if (now.getTime() >= deadline.getTime() + 1000)
    throw new SandbankError('time_frame_passed', {
      message: refusedAt
        ? `An RDFI sends a corrected notification of change within 5 banking days of the refused one (${earlier?.code}, refused ${earlier?.refusal_code}): the last allowed instant for this ${row.kind} was ${whenEt(deadline)}.`
        : `An RDFI sends a notification of change within 2 banking days of the entry's settlement: the last allowed instant for this ${row.kind} was ${whenEt(deadline)}.`,
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
  if (counterparty)
    await applyCorrection(
      tx,
      counterparty,
      {
        code: record.code,
        reason: record.reason,
        transferId: row.id,
        corrected: correctedOf(record.corrected_data),
        receivedAt: record.received_at,
      },
      now,
    );
  const moved = await setNotificationsOfChange(tx, row, [...row.notificationsOfChange, record], now);
  await recordEvent(tx, entryEvent(moved, ctx.publicUrl, NOC_EVENT));
  return moved;
}
