/**
 * The rail engine of bank transfers and payouts: per-rail limits, the FedACH
 * timeline of an entry, when a return arrives, RTP completion, and what the magic accounts do.
 * Pure and clock-free: every function takes the instant it works on. The timeline comes from the
 * banking calendar (kernel/calendar.ts); the return codes from reference/ach_return_codes.json.
 */
import returnCodes from '../../../reference/ach_return_codes.json' with { type: 'json' };
import rails from '../../../reference/rails_and_lifecycle.json' with { type: 'json' };
import { type LocalDate, nextSameDayAchWindow, nextStandardAchDeposit } from '../../kernel/calendar.ts';
import { returnRefusal, returnRule, scheduledReturnAt } from './transfers.returns.ts';
import { WIRE_LIMIT_MINOR } from './transfers.wire.ts';

export const RAILS = ['ach', 'same_day_ach', 'rtp', 'fednow', 'wire'] as const;
export type Rail = (typeof RAILS)[number];
/** The instant rails (RTP and FedNow): 24×7×365, credits only, completed or rejected within seconds. */
export const INSTANT_RAILS = ['rtp', 'fednow'] as const;
export type InstantRail = (typeof INSTANT_RAILS)[number];
export const ACH_RAILS = ['ach', 'same_day_ach'] as const;
export type AchRail = (typeof ACH_RAILS)[number];

/** ACH or Same-Day ACH: the rails of windows, returns, NOCs and SEC codes. */
export function isAchRail(rail: string): rail is AchRail {
  return rail === 'ach' || rail === 'same_day_ach';
}

/** Fedwire (transfers.wire.ts): credits only, on the service's operating day, final at once. */
export function isWireRail(rail: string): rail is 'wire' {
  return rail === 'wire';
}

/** RTP or FedNow: the entry rides the instant machine (transfers.machine.ts rtp*), not ACH's. */
export function isInstantRail(rail: string): rail is InstantRail {
  return rail === 'rtp' || rail === 'fednow';
}
export type Direction = 'credit' | 'debit';

/** The largest amount of one entry on each rail, in US cents. */
export const RAIL_LIMIT_MINOR: Readonly<Record<Rail, bigint>> = Object.freeze({
  same_day_ach: BigInt(rails.same_day_ach.per_payment_limit_usd) * 100n,
  rtp: BigInt(rails.rtp.per_transaction_limit_usd) * 100n,
  // The FedNow network maximum (the reference's sourced field; participants may set lower ones).
  fednow: BigInt(rails.fednow.per_transaction_limit_usd) * 100n,
  // 99,999,999.99, the most a NACHA entry's ten-digit amount field can carry.
  ach: 9_999_999_999n,
  wire: WIRE_LIMIT_MINOR,
});

// ---------------------------------------------------------------------------------------------
// ACH timeline

export interface AchTimeline {
  /**
   * The FedACH window the entry goes in (1-3; 0: standard ACH's overnight next-day deposit,
   * 02:15 ET), and the banking day it belongs to.
   */
  window: number;
  windowDate: LocalDate;
  /** The window's cut-off: the entry is `submitted` then. */
  submitsAt: Date;
  /** Same-Day ACH: the window's settlement; standard ACH: the next banking day, 08:30 ET. */
  settlesAt: Date;
}

/**
 * When an ACH entry created at `createdAt` is submitted and settles. Same-Day ACH goes in the next
 * window whose cut-off is at or after the instant (after the last window, on weekends and on Fed
 * holidays: the next banking day's first window) and settles with it. Standard ACH goes in the same
 * windows during the day and settles the next banking day at 08:30 ET; created after the last
 * window (or on a weekend or holiday), it goes in the overnight next-day deposit (02:15 ET) of the
 * next banking day and settles that morning at 08:30 ET (calendar.ts nextStandardAchDeposit).
 */
export function achTimeline(rail: AchRail, createdAt: Date): AchTimeline {
  const window =
    rail === 'same_day_ach' ? nextSameDayAchWindow(createdAt) : nextStandardAchDeposit(createdAt);
  return {
    window: window.window,
    windowDate: window.date,
    submitsAt: window.cutoff,
    settlesAt: window.settlement,
  };
}

// ---------------------------------------------------------------------------------------------
// Returns

export interface ReturnReason {
  code: string;
  title: string;
  /** Nacha's unauthorized-return codes (R05, R07, R10, R11, R29, R51). */
  unauthorized: boolean;
  /** The reference's time frame, e.g. "2 banking days" or "60 calendar days". */
  timeFrame: string | null;
}

const RETURN_REASONS: ReadonlyMap<string, ReturnReason> = new Map(
  returnCodes.codes.map((row) => [
    row.code,
    {
      code: row.code,
      title: row.title,
      unauthorized: row.unauthorized_return,
      timeFrame: row.time_frame,
    },
  ]),
);

/** Every Nacha return code of the reference, in its order (R01 … R85): the codes an entry can come back with. */
export const ACH_RETURN_CODES: readonly string[] = returnCodes.codes.map((row) => row.code);

/** A Nacha return code from the reference, or null (unassigned, retired or malformed). */
export function achReturnReason(code: string): ReturnReason | null {
  return RETURN_REASONS.get(code) ?? null;
}

/**
 * When a return of an entry settled at `settledAt` arrives on its own (a magic account): inside its
 * code's time frame, at 13:00 ET (the first window's settlement) on the next banking day, or 5
 * banking days after settlement for the 60-calendar-day (unauthorized-debit) codes, when the funds
 * already look final (transfers.returns.ts scheduledReturnAt). The deadlines are returnDeadlineOf's.
 */
export function returnArrivesAt(settledAt: Date, reason: ReturnReason): Date {
  const rule = returnRule(reason.code);
  if (!rule) throw new Error(`rails: ${reason.code} is not in the reference`);
  return scheduledReturnAt(rule, settledAt);
}

// ---------------------------------------------------------------------------------------------
// RTP

/** RTP settles in real time: an accepted credit completes this many seconds after it is sent. */
export const RTP_COMPLETION_SECONDS = 2;

export function rtpCompletesAt(createdAt: Date): Date {
  return new Date(createdAt.getTime() + RTP_COMPLETION_SECONDS * 1000);
}

/** ISO 20022 status reasons an RTP or FedNow rejection can carry (ExternalStatusReason1Code). */
export const RTP_REJECT_REASONS = {
  AC03: 'Invalid creditor account number',
  AC04: 'Closed account number',
  AM02: 'Amount exceeds the allowed maximum',
} as const;
export type RtpRejectReason = keyof typeof RTP_REJECT_REASONS;

// ---------------------------------------------------------------------------------------------
// Magic values

/** The routing number no rail reaches: RTP and FedNow reject it with AC03, ACH refuses it at creation. */
export const UNREACHABLE_ROUTING_NUMBER = '790000051';

export type RailOutcome =
  /** ACH settles and stays settled; RTP completes. */
  | { kind: 'succeeds' }
  /** ACH settles, then comes back with this return. */
  | { kind: 'returns'; reason: ReturnReason }
  /** ACH stays `submitted` until a simulate step moves it. */
  | { kind: 'stays_submitted' }
  /** RTP or FedNow is rejected by the receiving bank. */
  | { kind: 'rejected'; reason: RtpRejectReason }
  /** ACH refuses the entry at creation: the routing number is not on the network. */
  | { kind: 'unreachable' };

/** What an account number makes the ACH network do with an entry (RTP has no returns). */
export type MagicAccountBehavior =
  | { kind: 'succeeds' }
  /**
   * Settles, then comes back with this Nacha code (`debitsOnly`: a credit to it settles);
   * `corporateCode` instead on a CCD entry, when the code is a consumer one.
   */
  | { kind: 'returns'; code: string; debitsOnly: boolean; corporateCode?: string }
  | { kind: 'stays_submitted' };

export interface MagicAccount {
  accountNumber: string;
  /** The outcome in words, as the README's table and the dashboard's picker show it. */
  outcome: string;
  behavior: MagicAccountBehavior;
}

/** The magic account numbers, in the README's order: the one table railOutcome reads. */
export const MAGIC_ACCOUNTS: readonly MagicAccount[] = Object.freeze([
  { accountNumber: '000123456789', outcome: 'succeeds', behavior: { kind: 'succeeds' } },
  {
    accountNumber: '000111111113',
    outcome: 'settles, then returned R02 (account closed)',
    behavior: { kind: 'returns', code: 'R02', debitsOnly: false },
  },
  {
    accountNumber: '000111111116',
    outcome: 'settles, then returned R03 (no account)',
    behavior: { kind: 'returns', code: 'R03', debitsOnly: false },
  },
  {
    accountNumber: '000222222227',
    outcome: 'debits: settle, then returned R01 (insufficient funds); credits succeed',
    behavior: { kind: 'returns', code: 'R01', debitsOnly: true },
  },
  {
    accountNumber: '000333333335',
    outcome:
      'debits: settle, then returned unauthorized: R10 5 banking days later on a consumer entry (PPD, WEB: a checkout), R29 the next banking day on a corporate one (CCD); credits succeed',
    behavior: { kind: 'returns', code: 'R10', debitsOnly: true, corporateCode: 'R29' },
  },
  {
    accountNumber: '000000000009',
    outcome: 'stays submitted until a simulate step moves it',
    behavior: { kind: 'stays_submitted' },
  },
]);

/**
 * `100XX`: returned with code RXX when an RDFI may return the entry with RXX (an assigned code of
 * the right category, of the entry's direction and SEC code: transfers.returns.ts); otherwise an
 * ordinary account.
 */
export const RETURN_CODE_ACCOUNT = Object.freeze({
  pattern: /^100(\d\d)$/,
  example: '10029',
  outcome:
    'settles, then returned RXX for 100XX (here R29, CCD debits only), when an RDFI may return the entry with RXX (category, direction and SEC code; otherwise it succeeds)',
});

/** The magic routing number's outcome in words (see UNREACHABLE_ROUTING_NUMBER). */
export const UNREACHABLE_ROUTING_OUTCOME =
  'RTP and FedNow rejected AC03; ACH refused at creation (routing_number_unreachable)';

/**
 * Magic account numbers of the instant rails: the receiving bank rejects the credit with this ISO
 * 20022 reason (FedNow and RTP alike; on ACH these accounts are ordinary ones).
 */
export const INSTANT_REJECT_ACCOUNTS: Readonly<Record<string, RtpRejectReason>> = Object.freeze({
  '000444444440': 'AC04',
  '000555555553': 'AM02',
});

const MAGIC_BY_ACCOUNT: ReadonlyMap<string, MagicAccountBehavior> = new Map(
  MAGIC_ACCOUNTS.map((account) => [account.accountNumber, account.behavior]),
);

/** What an account number does on ACH: its row of MAGIC_ACCOUNTS, the 100XX pattern, or success. */
export function magicAccountBehavior(accountNumber: string): MagicAccountBehavior {
  const listed = MAGIC_BY_ACCOUNT.get(accountNumber);
  if (listed) return listed;
  const code = RETURN_CODE_ACCOUNT.pattern.exec(accountNumber)?.[1];
  return code ? { kind: 'returns', code: `R${code}`, debitsOnly: false } : { kind: 'succeeds' };
}

/** What the simulated network does with an entry, decided by its rail and counterparty alone. */
export function railOutcome(input: {
  rail: Rail;
  direction: Direction;
  routingNumber: string;
  accountNumber: string;
  /** The ACH entry's SEC code (PPD, CCD, WEB); null on the instant rails. */
  secCode: string | null;
}): RailOutcome {
  const { rail, direction, routingNumber, accountNumber, secCode } = input;
  if (routingNumber === UNREACHABLE_ROUTING_NUMBER)
    return isInstantRail(rail) ? { kind: 'rejected', reason: 'AC03' } : { kind: 'unreachable' };
  // A wire's beneficiary bank acts by its own magic accounts (transfers.wire.ts wireBehavior).
  if (isWireRail(rail)) return { kind: 'succeeds' };
  if (isInstantRail(rail)) {
    // Instant payments are irrevocable: no returns, only the receiving bank's rejection.
    const reason = INSTANT_REJECT_ACCOUNTS[accountNumber];
    return reason ? { kind: 'rejected', reason } : { kind: 'succeeds' };
  }
  const behavior = magicAccountBehavior(accountNumber);
  if (behavior.kind !== 'returns') return behavior;
  const code = behavior.corporateCode && secCode === 'CCD' ? behavior.corporateCode : behavior.code;
  const rule = behavior.debitsOnly && direction !== 'debit' ? null : returnRule(code);
  // A code an RDFI may not return this entry with (its category, direction or SEC code) leaves an
  // ordinary account.
  const reason = rule && returnRefusal(rule, direction, secCode) === null ? achReturnReason(rule.code) : null;
  return reason ? { kind: 'returns', reason } : { kind: 'succeeds' };
}
