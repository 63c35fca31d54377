import { SandbankError } from '../../kernel/errors.ts';
import { achReturnReason, type ReturnReason } from '../transfers/transfers.rails.ts';
import {
  checkReturn,
  describeTimeFrame,
  RETURN_RULES,
  returnRefusal,
  returnRule,
} from '../transfers/transfers.returns.ts';

/**
 * Which Nacha return codes the merchant, as the receiver of an inbound ACH entry (its bank the
 * RDFI), may send it back with, and until when. The rules of every return are one table
 * (transfers.returns.ts: codes, categories, directions, time frames); an inbound entry adds two:
 *
 * - Only a code the receiver sends on its own: not the ACH Operator's edit codes (R13, R18, R19,
 *   R25-R28, time frame "next file delivery"), and not R06 or R31, which need the originating bank's
 *   request or agreement (nothing here plays that bank).
 *
 * Which SEC codes a code applies to (consumer R07, R10, R11; corporate R05, R29) is the table's, as
 * for the merchant's own entries.
 */

export interface InboundReturnEntry {
  direction: 'credit' | 'debit';
  secCode: string | null;
  settledAt: Date;
}

/** Whether a receiving bank may use this code on an inbound entry at all (not its direction or time). */
export function isReceiverReturnCode(code: string): boolean {
  const rule = returnRule(code);
  return (
    rule !== null &&
    rule.refusal === null &&
    rule.timeFrame.kind !== 'none' &&
    rule.timeFrame.kind !== 'next_file'
  );
}

/**
 * The codes the merchant may send this entry back with, time aside: a receiver's codes of the
 * entry's direction and SEC code, each with its time frame in words and whether it needs the
 * customer's Written Statement of Unauthorized Debit (the dashboard's return form lists them).
 */
export function receiverCodesFor(
  entry: Pick<InboundReturnEntry, 'direction' | 'secCode'>,
): Array<{ code: string; title: string; timeFrame: string; wsud: boolean }> {
  return [...RETURN_RULES.values()]
    .filter(
      (rule) =>
        isReceiverReturnCode(rule.code) && returnRefusal(rule, entry.direction, entry.secCode) === null,
    )
    .map((rule) => ({
      code: rule.code,
      title: rule.title,
      timeFrame: describeTimeFrame(rule.timeFrame),
      wsud: rule.wsud,
    }));
}

/** The return's reason when the merchant may send this entry back with `code` at `now`; a 4xx otherwise. */
export function checkInboundReturn(entry: InboundReturnEntry, code: string, now: Date): ReturnReason {
  const rule = returnRule(code);
  const refuse = (why: string) =>
    new SandbankError('return_code_not_allowed', {
      param: 'code',
      message: `${rule?.code} (${rule?.title}) ${why}`,
    });
  if (rule && !rule.refusal && !isReceiverReturnCode(rule.code))
    throw refuse(
      "is not a code a receiving bank returns an entry with on its own (the ACH Operator's, or the originating bank's request).",
    );
  // The code's existence, category, direction, SEC code and time frame: the rules every return follows.
  const verdict = checkReturn({
    code,
    direction: entry.direction,
    secCode: entry.secCode,
    settledAt: entry.settledAt,
    now,
  });
  return achReturnReason(verdict.rule.code) as ReturnReason;
}
