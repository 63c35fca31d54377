/**
 * Account verification of a saved counterparty (docs/guide/account-verification.md): Nacha's
 * micro-entries (credits under 1.00 each, an offsetting debit for no more than their sum, both
 * settling together, described ACCTVERIFY) and prenotes (live entries from the third banking day
 * after the prenote settles), and which uses of a counterparty its verification allows. Pure.
 */
import { addBankingDays, nyDateOf, nyInstant } from '../../kernel/calendar.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { defineMachine } from '../../kernel/state-machine.ts';

export const VERIFICATION_STATES = [
  'unverified',
  'verification_pending',
  'verified',
  'verification_failed',
] as const;
export type VerificationState = (typeof VERIFICATION_STATES)[number];
export type VerificationMethod = 'microdeposits' | 'prenote';

/**
 * A counterparty's verification once started, as a machine (its events: counterparty.verification_pending,
 * .verified, .verification_failed): decided by the bank's entries or the merchant's confirmation,
 * and started again after a failure. `unverified` is the status before any verification (no event).
 */
export const counterpartyVerificationMachine = defineMachine({
  object: 'counterparty verification',
  states: ['verification_pending', 'verified', 'verification_failed'],
  initial: 'verification_pending',
  final: [],
  transitions: {
    verify: { from: ['verification_pending'], to: 'verified' },
    fail: { from: ['verification_pending'], to: 'verification_failed' },
    restart: { from: ['verification_failed'], to: 'verification_pending' },
  },
});

/** The micro-deposit amounts, in cents, as sandboxes conventionally use them (0.32 and 0.45). */
export const MICRODEPOSIT_AMOUNTS_MINOR: readonly bigint[] = [32n, 45n];
/** The company entry description micro-entries carry. */
export const MICRODEPOSIT_DESCRIPTION = 'ACCTVERIFY';
/** How many times the amounts may be confirmed wrongly before the verification fails. */
export const MICRODEPOSIT_ATTEMPTS = 3;
/** A prenote's waiting period: live entries from the third banking day after its settlement. */
export const PRENOTE_WAIT_BANKING_DAYS = 3;

/** Accounts whose bank returns a verification's entries, with the code (the ACH magic accounts). */
export const VERIFICATION_RETURNS: Readonly<Record<string, { code: string; reason: string }>> = {
  '000111111113': { code: 'R02', reason: 'Account Closed' },
  '000111111116': { code: 'R03', reason: 'No Account/Unable to Locate Account' },
};

/** When live ACH entries may start after a prenote settled at `settledAt`: 00:00 ET of the third banking day after. */
export function liveEntriesFrom(settledAt: Date): Date {
  return nyInstant(addBankingDays(nyDateOf(settledAt), PRENOTE_WAIT_BANKING_DAYS), '00:00');
}

/** What of a counterparty's verification an entry's use depends on. */
export interface VerificationView {
  id: string;
  state: VerificationState;
  method: VerificationMethod | null;
  /** A prenote's first live-entry instant; micro-deposits: when they arrive. */
  availableAt: Date | null;
}

/**
 * Whether an entry may use the counterparty: never after a failed verification; no ACH entry
 * during a prenote's waiting period, no ACH debit while micro-deposits are pending; a WEB debit
 * only from a verified account (Nacha's WEB debit account validation). 409 with the reason.
 */
export function checkVerifiedUse(
  view: VerificationView,
  entry: { rail: string; direction: 'credit' | 'debit'; secCode: string | null },
  now: Date,
  param = 'counterparty',
): void {
  const ach = entry.rail === 'ach' || entry.rail === 'same_day_ach';
  if (view.state === 'verification_failed')
    throw new SandbankError('counterparty_verification_failed', {
      param,
      message: `Counterparty ${view.id} failed its account verification; verify it again before paying or debiting it.`,
    });
  if (view.state === 'verification_pending' && ach) {
    if (view.method === 'prenote' && view.availableAt && now.getTime() < view.availableAt.getTime())
      throw new SandbankError('counterparty_verification_pending', {
        param,
        message: `Counterparty ${view.id} is in its prenote's waiting period: live ACH entries may start at ${view.availableAt.toISOString()}.`,
        extra: { deadline: view.availableAt.toISOString() },
      });
    if (view.method === 'microdeposits' && entry.direction === 'debit')
      throw new SandbankError('counterparty_verification_pending', {
        param,
        message: `Counterparty ${view.id} has micro-deposits to confirm before it can be debited.`,
      });
  }
  if (ach && entry.direction === 'debit' && entry.secCode === 'WEB' && view.state !== 'verified')
    throw new SandbankError('counterparty_verification_pending', {
      param,
      message: `A WEB debit needs a validated account: verify counterparty ${view.id} first (micro-deposits or a prenote).`,
    });
}
