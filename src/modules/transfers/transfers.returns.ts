/**
 * The rules of ACH returns, dishonored returns and contested dishonored returns: which Nacha code an
 * RDFI may send back one of Sandbank's entries with, in which direction, and until when. Pure and
 * clock-free (every function takes the instants it works on); the codes, titles, categories and
 * time frames come from reference/ach_return_codes.json, the classification is Sandbank's own
 * (transfers.return-codes.ts) and is explained code by code in docs/guide/bank-transfers.md ("Return rules").
 *
 * Other modules (inbound entries a merchant returns) call checkReturn the same way.
 */
import {
  addBankingDays,
  addCalendarDays,
  type LocalDate,
  nyDateOf,
  nyInstant,
} from '../../kernel/calendar.ts';
import { SandbankError } from '../../kernel/errors.ts';
import {
  knownRule,
  type ReturnDirection,
  type ReturnRule,
  returnRefusal,
  type TimeFrame,
} from './transfers.return-codes.ts';

/** The codes and their rules (transfers.return-codes.ts), under the names their users import. */
export {
  type Applies,
  RETURN_RULES,
  type Refusal,
  type ReturnDirection,
  type ReturnRule,
  returnRefusal,
  returnRule,
  type TimeFrame,
} from './transfers.return-codes.ts';

/** The end (24:00 ET) of a New York date: the first instant of the next one. */
const endOf = (date: LocalDate): Date => nyInstant(addCalendarDays(date, 1), '00:00');

/**
 * Nacha has a return made available to the originating bank "no later than the opening of business"
 * of its last day: the 2nd banking day after the settlement date, or for the extended (unauthorized)
 * returns the banking day after the 60th calendar day. Sandbank reads opening of business as 08:30 ET,
 * when FedACH settles its overnight window and the returns it carried reach the originating bank
 * (docs/guide/bank-transfers.md, "Deadlines").
 */
export const OPENING_OF_BUSINESS = '08:30';

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
      return nyInstant(addBankingDays(addCalendarDays(settled, rule.timeFrame.days), 1), OPENING_OF_BUSINESS);
    case 'banking_days':
      return nyInstant(addBankingDays(settled, rule.timeFrame.days), OPENING_OF_BUSINESS);
    case 'next_file':
      return endOf(addBankingDays(settled, rule.timeFrame.days));
  }
}

export interface ReturnCheck {
  code: string;
  /** The entry's direction: what the RDFI received (a credit or a debit to its customer's account). */
  direction: ReturnDirection;
  /** The entry's SEC code (PPD, CCD, WEB); null for an entry without one (every code may return it). */
  secCode: string | null;
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
 * entry (its category, the wrong direction, or an SEC code it does not apply to), and 409 return_deadline_passed (with `deadline`)
 * when its time frame is over, unless `untimely` lets it arrive late.
 */
export function checkReturn(input: ReturnCheck): ReturnVerdict {
  const rule = knownRule(input.code);
  const refusal = returnRefusal(rule, input.direction, input.secCode);
  if (refusal) throw new SandbankError('return_code_not_allowed', { param: 'code', message: refusal });
  const deadline = input.settledAt ? returnDeadlineOf(rule, input.settledAt) : null;
  const late = deadline !== null && input.now.getTime() >= deadline.getTime();
  if (late && !input.untimely) {
    throw new SandbankError('return_deadline_passed', {
      param: 'code',
      message: `A ${rule.code} return had to arrive before ${deadline.toISOString()} (${describeTimeFrame(rule.timeFrame)}); send "untimely": true to let it arrive late, marked untimely.`,
      extra: { deadline: deadline.toISOString() },
    });
  }
  return { rule, deadline, untimely: late };
}

/** The time frame in words, as the refusal of a late return says it. */
export function describeTimeFrame(frame: TimeFrame): string {
  switch (frame.kind) {
    case 'none':
      return 'no deadline';
    case 'calendar_days':
      return `by the opening of business (${OPENING_OF_BUSINESS} ET) of the banking day after the ${frame.days}th calendar day after settlement`;
    case 'banking_days':
      return `by the opening of business (${OPENING_OF_BUSINESS} ET) of the ${frame.days}nd banking day after settlement`;
    case 'next_file':
      return `by the end of the ${frame.days}st banking day after settlement`;
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
