/**
 * The rules of ACH returns, dishonored returns and contested dishonored returns: which Nacha code an
 * RDFI may send back one of Sandbank's entries with, in which direction, and until when. Pure and
 * clock-free (every function takes the instants it works on); the codes, titles, categories and
 * time frames come from reference/ach_return_codes.json, the classification below is Sandbank's own
 * and is explained code by code in docs/bank-transfers.md ("Return rules").
 *
 * Other modules (inbound entries a merchant returns) call checkReturn the same way.
 */
import returnCodes from '../../../reference/ach_return_codes.json' with { type: 'json' };
import {
  addBankingDays,
  addCalendarDays,
  type LocalDate,
  nyDateOf,
  nyInstant,
} from '../../kernel/calendar.ts';
import { SandbankError } from '../../kernel/errors.ts';

export type ReturnDirection = 'credit' | 'debit';
/** Which forward entries a code can return. */
export type Applies = 'debit' | 'credit' | 'both';

/**
 * Why a code can never return an entry Sandbank originates (domestic PPD, CCD and WEB credits and
 * debits), or null when it can.
 */
export type Refusal =
  /** R61-R70: the ODFI's codes for dishonoring a return (use …/dishonor_return). */
  | 'dishonor_code'
  /** R71-R77: the RDFI's codes for contesting a dishonored return (use …/contest_dishonored_return). */
  | 'contest_code'
  /** R40-R47: automated enrollment entries (ENR) only. */
  | 'enr_only'
  /** R50-R53: re-presented check entries (RCK) only. */
  | 'rck_only'
  /** R80-R85: international (IAT) entries, returned by a gateway. */
  | 'iat_only'
  /** Codes of entry classes Sandbank does not originate (XCK, ARC/BOC/POP source documents, check truncation, CIE/MTE). */
  | 'sec_not_originated';

/** How long after the forward entry's settlement the return may arrive. */
export type TimeFrame =
  /** By the end (24:00 ET) of the 2nd banking day after the settlement date. */
  | { kind: 'banking_days'; days: 2 }
  /** By the end of the 60th calendar day after the settlement date. */
  | { kind: 'calendar_days'; days: 60 }
  /**
   * The ACH Operator's and edit codes ("next file delivery time after processing"): Sandbank lets
   * them arrive by the end of the 1st banking day after the settlement date (or any time before settlement).
   */
  | { kind: 'next_file'; days: 1 }
  /** No deadline: returned at the ODFI's request or with its agreement (R06, R31). */
  | { kind: 'none' };

export interface ReturnRule {
  code: string;
  title: string;
  /** The reference's category (rdfi_return, enr_federal_agency, rck_rdfi, …). */
  category: string;
  /** The reference's time frame in words. */
  referenceTimeFrame: string | null;
  unauthorized: boolean;
  /** Null: an RDFI may return Sandbank's entries with it. */
  refusal: Refusal | null;
  applies: Applies;
  timeFrame: TimeFrame;
}

/** The RDFI-return codes that apply to debits only (a credit cannot be short of funds, stopped, or unauthorized). */
const DEBIT_ONLY = new Set(['R01', 'R05', 'R07', 'R08', 'R09', 'R10', 'R11', 'R29']);
/** The RDFI-return codes that apply to credits only. */
const CREDIT_ONLY = new Set(['R23']);
/** RDFI-return codes of entry classes Sandbank never originates. */
const SEC_NOT_ORIGINATED = new Set(['R21', 'R22', 'R30', 'R33', 'R35', 'R36', 'R37', 'R38', 'R39']);
/** The ACH Operator's and edit codes whose reference time frame is the next file delivery. */
const NEXT_FILE = new Set(['R13', 'R18', 'R19', 'R25', 'R26', 'R27', 'R28']);
/** Returned at the ODFI's request (R06) or with its agreement (R31): no deadline. */
const NO_DEADLINE = new Set(['R06', 'R31']);

const CATEGORY_REFUSAL: Readonly<Record<string, Refusal>> = {
  dishonored_return_odfi: 'dishonor_code',
  contested_dishonored_return_rdfi: 'contest_code',
  enr_federal_agency: 'enr_only',
  rck_rdfi: 'rck_only',
  iat_gateway: 'iat_only',
};

function ruleOf(row: (typeof returnCodes.codes)[number]): ReturnRule {
  const refusal =
    CATEGORY_REFUSAL[row.category] ?? (SEC_NOT_ORIGINATED.has(row.code) ? 'sec_not_originated' : null);
  const applies: Applies = DEBIT_ONLY.has(row.code) ? 'debit' : CREDIT_ONLY.has(row.code) ? 'credit' : 'both';
  const timeFrame: TimeFrame = NO_DEADLINE.has(row.code)
    ? { kind: 'none' }
    : NEXT_FILE.has(row.code)
      ? { kind: 'next_file', days: 1 }
      : row.time_frame?.startsWith('60 calendar days')
        ? { kind: 'calendar_days', days: 60 }
        : { kind: 'banking_days', days: 2 };
  return {
    code: row.code,
    title: row.title,
    category: row.category,
    referenceTimeFrame: row.time_frame,
    unauthorized: row.unauthorized_return,
    refusal,
    applies,
    timeFrame,
  };
}

/** Every code of the reference with Sandbank's rule, in the reference's order (R01 … R85). */
export const RETURN_RULES: ReadonlyMap<string, ReturnRule> = new Map(
  returnCodes.codes.map((row) => [row.code, ruleOf(row)]),
);

export function returnRule(code: string): ReturnRule | null {
  return RETURN_RULES.get(code) ?? null;
}

/** The code's rule; 400 parameter_invalid for a code the reference does not list. */
function knownRule(code: string): ReturnRule {
  const rule = returnRule(code);
  if (rule) return rule;
  throw new SandbankError('parameter_invalid', {
    param: 'code',
    message: `${code.slice(0, 8)} is not a Nacha return code (R01-R85, as listed in the reference).`,
  });
}

const REFUSAL_TEXT: Readonly<Record<Refusal, string>> = {
  dishonor_code: "is an ODFI's code for dishonoring a return (use the dishonor_return step)",
  contest_code:
    "is an RDFI's code for contesting a dishonored return (use the contest_dishonored_return step)",
  enr_only: 'returns automated enrollment (ENR) entries only',
  rck_only: 'returns re-presented check (RCK) entries only',
  iat_only: 'is a gateway code for international (IAT) entries only',
  sec_not_originated: 'belongs to an entry class Sandbank does not originate (only PPD, CCD and WEB)',
};

/** The end (24:00 ET) of a New York date: the first instant of the next one. */
const endOf = (date: LocalDate): Date => nyInstant(addCalendarDays(date, 1), '00:00');

/**
 * The last instant (exclusive: the return must arrive before it) a return with this rule may
 * arrive for an entry settled at `settledAt`; null when the code has no deadline.
 */
export function returnDeadlineOf(rule: ReturnRule, settledAt: Date): Date | null {
  const settled = nyDateOf(settledAt);
  switch (rule.timeFrame.kind) {
    case 'none':
      return null;
    case 'calendar_days':
      return endOf(addCalendarDays(settled, rule.timeFrame.days));
    case 'banking_days':
    case 'next_file':
      return endOf(addBankingDays(settled, rule.timeFrame.days));
  }
}

/** Why the code cannot be used, as a sentence fragment; null when it can. */
export function returnRefusal(rule: ReturnRule, direction: ReturnDirection): string | null {
  if (rule.refusal) return `${rule.code} ${REFUSAL_TEXT[rule.refusal]}.`;
  if (rule.applies !== 'both' && rule.applies !== direction)
    return `${rule.code} (${rule.title}) returns ${rule.applies}s only; this entry is a ${direction}.`;
  return null;
}

export interface ReturnCheck {
  code: string;
  /** The entry's direction: what the RDFI received (a credit or a debit to its customer's account). */
  direction: ReturnDirection;
  /** When the forward entry settled; null before settlement (a return then is always timely). */
  settledAt: Date | null;
  now: Date;
  /** Let a return after its deadline arrive anyway, marked untimely (the ODFI may dishonor it R68). */
  untimely?: boolean;
}

export interface ReturnVerdict {
  rule: ReturnRule;
  /** The deadline (exclusive); null before settlement or for codes without one. */
  deadline: Date | null;
  /** Whether the return arrives after its deadline (only with `untimely: true`). */
  untimely: boolean;
}

/**
 * Whether an RDFI may return an entry with `code` now. Throws 400 parameter_invalid for a code
 * that is not in the reference, 400 return_code_not_allowed for a code that can never return this
 * entry (its category, or the wrong direction), and 422 return_deadline_passed (with `deadline`)
 * when its time frame is over, unless `untimely` lets it arrive late.
 */
export function checkReturn(input: ReturnCheck): ReturnVerdict {
  const rule = knownRule(input.code);
  const refusal = returnRefusal(rule, input.direction);
  if (refusal) throw new SandbankError('return_code_not_allowed', { param: 'code', message: refusal });
  const deadline = input.settledAt ? returnDeadlineOf(rule, input.settledAt) : null;
  const late = deadline !== null && input.now.getTime() >= deadline.getTime();
  if (late && !input.untimely) {
    throw new SandbankError('return_deadline_passed', {
      param: 'code',
      message: `A ${rule.code} return had to arrive before ${deadline.toISOString()} (${describeTimeFrame(rule.timeFrame)} after settlement); send "untimely": true to let it arrive late, marked untimely.`,
      extra: { deadline: deadline.toISOString() },
    });
  }
  return { rule, deadline, untimely: late };
}

export function describeTimeFrame(frame: TimeFrame): string {
  switch (frame.kind) {
    case 'none':
      return 'no deadline';
    case 'calendar_days':
      return `${frame.days} calendar days`;
    case 'banking_days':
      return `${frame.days} banking days`;
    case 'next_file':
      return `${frame.days} banking day`;
  }
}

/**
 * When a magic account's return arrives on its own, always inside its time frame: at 13:00 ET
 * (the first window's settlement) on the 1st banking day after settlement, or on the 5th for the
 * 60-calendar-day (unauthorized-debit) codes, when the funds already look final.
 */
export function scheduledReturnAt(rule: ReturnRule, settledAt: Date): Date {
  const days = rule.timeFrame.kind === 'calendar_days' ? 5 : 1;
  return nyInstant(addBankingDays(nyDateOf(settledAt), days), '13:00');
}

// ---------------------------------------------------------------------------------------------
// Dishonored and contested dishonored returns

/** The ODFI's dishonor codes. */
export const DISHONOR_CODES = ['R61', 'R62', 'R67', 'R68', 'R69', 'R70'] as const;
export type DishonorCode = (typeof DISHONOR_CODES)[number];
/** The RDFI's contest codes. */
export const CONTEST_CODES = ['R71', 'R72', 'R73', 'R74', 'R75', 'R76', 'R77'] as const;
export type ContestCode = (typeof CONTEST_CODES)[number];

/** The ODFI may dishonor a return until the end of the 5th banking day after the return settled. */
export const DISHONOR_BANKING_DAYS = 5;
/** The RDFI may contest a dishonor until the end of the 2nd banking day after the dishonor settled. */
export const CONTEST_BANKING_DAYS = 2;

export interface ReturnFacts {
  /** The code the entry came back with. */
  returnCode: string;
  /** Whether that return arrived after its deadline. */
  returnUntimely: boolean;
  direction: ReturnDirection;
}

/** Why the ODFI may not dishonor this return with `code`; null when it may. */
function dishonorRefusal(code: DishonorCode, r: ReturnFacts): string | null {
  switch (code) {
    case 'R68':
      return r.returnUntimely
        ? null
        : `R68 (Untimely Return) needs an untimely return; this ${r.returnCode} return was timely.`;
    case 'R70':
      return r.returnCode === 'R06' || r.returnCode === 'R31'
        ? null
        : `R70 dishonors a return made at the ODFI's request or with its agreement (R06, R31); this one is ${r.returnCode}.`;
    case 'R62':
      return r.direction === 'debit'
        ? null
        : 'R62 (Return of Erroneous or Reversing Debit) dishonors the return of a debit; this entry is a credit.';
    default:
      return null; // R61 misrouted, R67 duplicate, R69 field errors: a claim about the return itself
  }
}

/** Which dishonor code each contest code answers (null: any dishonor). */
const CONTESTS: Readonly<Record<ContestCode, readonly DishonorCode[] | null>> = {
  R71: null, // the dishonored return was misrouted: any dishonor
  R72: [], // the dishonor was untimely: never, Sandbank refuses late dishonors
  R73: ['R68'], // the original return was timely
  R74: ['R69'], // a corrected return
  R75: ['R67'], // not a duplicate
  R76: ['R69'], // no errors found
  R77: ['R62'], // non-acceptance of an R62 dishonor
};

function endOfBankingDays(at: Date, days: number): Date {
  return endOf(addBankingDays(nyDateOf(at), days));
}

function checkWithin(at: Date, now: Date, days: number, what: string, code: string): Date {
  const deadline = endOfBankingDays(at, days);
  if (now.getTime() >= deadline.getTime()) {
    throw new SandbankError('return_deadline_passed', {
      param: 'code',
      message: `${what} ${code} had to arrive before ${deadline.toISOString()} (${days} banking days after ${what === 'A dishonor' ? 'the return' : 'the dishonor'}).`,
      extra: { deadline: deadline.toISOString() },
    });
  }
  return deadline;
}

/** Whether the ODFI may dishonor a return (settled at `returnedAt`) with `code` now; the deadline. */
export function checkDishonor(input: ReturnFacts & { code: string; returnedAt: Date; now: Date }): {
  code: DishonorCode;
  title: string;
  deadline: Date;
} {
  const rule = knownRule(input.code);
  if (!(DISHONOR_CODES as readonly string[]).includes(rule.code)) {
    throw new SandbankError('return_code_not_allowed', {
      param: 'code',
      message: `${rule.code} is not a dishonor code; an ODFI dishonors a return with ${DISHONOR_CODES.join(', ')}.`,
    });
  }
  const code = rule.code as DishonorCode;
  const refusal = dishonorRefusal(code, input);
  if (refusal) throw new SandbankError('return_code_not_allowed', { param: 'code', message: refusal });
  const deadline = checkWithin(input.returnedAt, input.now, DISHONOR_BANKING_DAYS, 'A dishonor', code);
  return { code, title: rule.title, deadline };
}

/** Whether the RDFI may contest a dishonor (settled at `dishonoredAt`, code `dishonorCode`) with `code` now. */
export function checkContest(input: { code: string; dishonorCode: string; dishonoredAt: Date; now: Date }): {
  code: ContestCode;
  title: string;
  deadline: Date;
} {
  const rule = knownRule(input.code);
  if (!(CONTEST_CODES as readonly string[]).includes(rule.code)) {
    throw new SandbankError('return_code_not_allowed', {
      param: 'code',
      message: `${rule.code} is not a contest code; an RDFI contests a dishonored return with ${CONTEST_CODES.join(', ')}.`,
    });
  }
  const code = rule.code as ContestCode;
  const answers = CONTESTS[code];
  if (answers !== null && !(answers as readonly string[]).includes(input.dishonorCode)) {
    throw new SandbankError('return_code_not_allowed', {
      param: 'code',
      message:
        answers.length === 0
          ? `${code} (${rule.title}) contests a late dishonor; Sandbank only takes dishonors within their ${DISHONOR_BANKING_DAYS} banking days, so this ${input.dishonorCode} was timely.`
          : `${code} (${rule.title}) contests an ${answers.join(' or ')} dishonor; this one is ${input.dishonorCode}.`,
    });
  }
  const deadline = checkWithin(input.dishonoredAt, input.now, CONTEST_BANKING_DAYS, 'A contest', code);
  return { code, title: rule.title, deadline };
}

/** The contest codes that can answer a dishonor code (for docs, dashboards and tests). */
export function contestCodesFor(dishonorCode: string): ContestCode[] {
  return CONTEST_CODES.filter((c) => {
    const answers = CONTESTS[c];
    return answers === null || (answers as readonly string[]).includes(dishonorCode);
  });
}

/** The dishonor codes the ODFI can use on this return (for docs, dashboards and tests). */
export function dishonorCodesFor(r: ReturnFacts): DishonorCode[] {
  return DISHONOR_CODES.filter((c) => dishonorRefusal(c, r) === null);
}
