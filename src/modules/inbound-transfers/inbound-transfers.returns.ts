import returnCodes from '../../../reference/ach_return_codes.json' with { type: 'json' };
import { SandbankError } from '../../kernel/errors.ts';
import { achReturnReason, type ReturnReason, returnDeadline } from '../transfers/transfers.rails.ts';

/**
 * Which Nacha return codes the merchant, as the receiver of an inbound ACH entry (its bank the
 * RDFI), may send it back with, and until when. ONE function (checkInboundReturn), so that a
 * central rule set of returns can replace it.
 *
 * - Only the reference's `rdfi_return` codes whose time frame is 2 banking days or 60 calendar days
 *   (ACH-operator codes, ENR, RCK, IAT, dishonored and contested returns, R06 and R31 need another
 *   party's request; R33, R37, R38 are for check-conversion entries, which are never inbound here).
 * - By direction: R01, R05, R07, R08, R09, R10, R11, R29 return debits only; R23 (credit entry
 *   refused by the receiver) credits only.
 * - By SEC code: R07, R10, R11 are consumer-account returns (PPD, WEB); R29 is the corporate one (CCD).
 * - By time: until returnDeadline (transfers.rails.ts) of the settlement — the end of the second
 *   banking day after it, or of the 60th calendar day for R05, R07, R10, R11.
 */

const CATEGORY: ReadonlyMap<string, string> = new Map(
  returnCodes.codes.map((row) => [row.code, row.category]),
);

const CHECK_CONVERSION_CODES = new Set(['R33', 'R37', 'R38']);
const DEBIT_ONLY = new Set(['R01', 'R05', 'R07', 'R08', 'R09', 'R10', 'R11', 'R29']);
const CREDIT_ONLY = new Set(['R23']);
const CONSUMER_ONLY = new Set(['R07', 'R10', 'R11']);
const CORPORATE_ONLY = new Set(['R29']);

export interface InboundReturnEntry {
  direction: string;
  secCode: string | null;
  settledAt: Date;
}

/** Whether a receiving bank may use this code at all on an inbound entry (not its time). */
export function isReceiverReturnCode(reason: ReturnReason): boolean {
  if (CATEGORY.get(reason.code) !== 'rdfi_return' || CHECK_CONVERSION_CODES.has(reason.code)) return false;
  const frame = reason.timeFrame ?? '';
  return frame.startsWith('2 banking days') || frame.startsWith('60 calendar days');
}

/** The return's reason when the merchant may send this entry back with `code` at `now`; a 4xx otherwise. */
export function checkInboundReturn(entry: InboundReturnEntry, code: string, now: Date): ReturnReason {
  const reason = achReturnReason(code);
  if (!reason) {
    throw new SandbankError('parameter_invalid', {
      param: 'code',
      message: `${code.slice(0, 8)} is not a Nacha return code (R01-R85, as listed in the reference).`,
    });
  }
  const refuse = (why: string) =>
    new SandbankError('parameter_invalid', {
      param: 'code',
      message: `${reason.code} (${reason.title}) ${why}`,
    });
  if (!isReceiverReturnCode(reason)) throw refuse('is not a code a receiving bank returns an entry with.');
  if (entry.direction === 'credit' && DEBIT_ONLY.has(reason.code)) throw refuse('returns debits only.');
  if (entry.direction === 'debit' && CREDIT_ONLY.has(reason.code)) throw refuse('returns credits only.');
  if (entry.secCode === 'CCD' && CONSUMER_ONLY.has(reason.code))
    throw refuse('is for consumer accounts (PPD, WEB); a CCD entry is returned unauthorized with R29.');
  if (entry.secCode !== 'CCD' && CORPORATE_ONLY.has(reason.code))
    throw refuse('is for corporate (CCD) entries; a consumer entry uses R10 or R11.');
  const deadline = returnDeadline(entry.settledAt, reason);
  if (now.getTime() >= deadline.getTime()) {
    throw new SandbankError('return_deadline_passed', {
      param: 'code',
      message: `The time frame of ${reason.code} (${reason.timeFrame}) ended at ${deadline.toISOString()}; this entry can no longer be returned with it.`,
    });
  }
  return reason;
}
