/**
 * The Nacha return codes and what each may return: every code of reference/ach_return_codes.json
 * with Sandbank's rule (its refusal, the direction it applies to, its time frame), and why a code
 * cannot return an entry. The checks that use them (deadlines, dishonors, contests) are in
 * transfers.returns.ts, which re-exports these names; the classification is explained code by code
 * in docs/guide/bank-transfers.md ("Return rules").
 */
import returnCodes from '../../../reference/ach_return_codes.json' with { type: 'json' };
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
  /** By the opening of business (08:30 ET) of the 2nd banking day after the settlement date. */
  | { kind: 'banking_days'; days: 2 }
  /** By the opening of business of the banking day after the 60th calendar day after the settlement date. */
  | { kind: 'calendar_days'; days: 60 }
  /**
   * The ACH Operator's and edit codes ("next file delivery time after processing"): Sandbank lets
   * them arrive by the end of the 1st banking day after the settlement date (or any time before settlement).
   */
  | { kind: 'next_file'; days: 1 }
  /** No deadline: returned at the ODFI's request or with its agreement (R06, R31). */
  | { kind: 'none' };

/** The entry classes Sandbank originates and receives: consumer (PPD, WEB) and corporate (CCD). */
export type SecCode = 'PPD' | 'CCD' | 'WEB';
export const SEC_CODES: readonly SecCode[] = ['PPD', 'CCD', 'WEB'];
const CONSUMER: readonly SecCode[] = ['PPD', 'WEB'];
const CORPORATE: readonly SecCode[] = ['CCD'];

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
  /** The entry classes it may return: consumer codes PPD and WEB, corporate ones CCD, most all three. */
  secCodes: readonly SecCode[];
  /**
   * Whether the receiver's customer must have signed a Written Statement of Unauthorized Debit
   * before the bank returns with it (the consumer and corporate-SEC unauthorized codes).
   */
  wsud: boolean;
  timeFrame: TimeFrame;
}

/** The RDFI-return codes that apply to debits only (a credit cannot be short of funds, stopped, or unauthorized). */
const DEBIT_ONLY = new Set(['R01', 'R05', 'R07', 'R08', 'R09', 'R10', 'R11', 'R29']);
/** The RDFI-return codes that apply to credits only. */
const CREDIT_ONLY = new Set(['R23']);
/** RDFI-return codes of entry classes Sandbank never originates. */
const SEC_NOT_ORIGINATED = new Set(['R21', 'R22', 'R30', 'R33', 'R35', 'R36', 'R37', 'R38', 'R39']);
/**
 * Unauthorized and revoked debits of a consumer account: R07 (authorization revoked), R10 (not
 * authorized, or the originator not known), R11 (not as authorized): consumer entries (PPD, WEB).
 */
const CONSUMER_ONLY = new Set(['R07', 'R10', 'R11']);
/**
 * R05 (a consumer account debited with a corporate SEC code) and R29 (a corporate customer says the
 * debit was not authorized): corporate entries (CCD).
 */
const CORPORATE_ONLY = new Set(['R05', 'R29']);
/** The codes an RDFI may use only with its customer's Written Statement of Unauthorized Debit. */
const WSUD = new Set(['R05', 'R07', 'R10', 'R11']);
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
    secCodes: CONSUMER_ONLY.has(row.code) ? CONSUMER : CORPORATE_ONLY.has(row.code) ? CORPORATE : SEC_CODES,
    wsud: WSUD.has(row.code),
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
export function knownRule(code: string): ReturnRule {
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

/**
 * Why the code cannot return this entry (its direction, and its SEC code when it has one), as a
 * sentence; null when it can.
 */
export function returnRefusal(
  rule: ReturnRule,
  direction: ReturnDirection,
  secCode: string | null = null,
): string | null {
  if (rule.refusal) return `${rule.code} ${REFUSAL_TEXT[rule.refusal]}.`;
  if (rule.applies !== 'both' && rule.applies !== direction)
    return `${rule.code} (${rule.title}) returns ${rule.applies}s only; this entry is a ${direction}.`;
  if (secCode !== null && !(rule.secCodes as readonly string[]).includes(secCode)) {
    const other = rule.secCodes.includes('CCD')
      ? 'a consumer entry is returned unauthorized with R10 or R11'
      : 'a CCD entry is returned unauthorized with R29, or R05 when the account is a consumer one';
    return `${rule.code} (${rule.title}) applies to ${rule.secCodes.join(' and ')} entries only; this entry is ${secCode} (${other}).`;
  }
  return null;
}
