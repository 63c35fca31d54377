/**
 * Notifications of change (NOCs), the rules: which change codes Sandbank's simulated RDFI sends,
 * what each corrects, the corrected values it derives when a test gives none, the time frames
 * (an NOC within 2 banking days of the entry's settlement; a refusal within 15 calendar days of the
 * NOC's receipt), and which refused-NOC codes (C61-C69) the merchant may answer an NOC with.
 * Pure and clock-free, like transfers.rails.ts. The codes come from reference/ach_noc_codes.json
 * (bank-accounts.corrections.ts reads them);
 * the time frames from reference/ach_noc_rules.json. docs/guide/notifications-of-change.md tells the rules.
 */
import nocRules from '../../../reference/ach_noc_rules.json' with { type: 'json' };
import { addBankingDays, addCalendarDays, nyDateOf, nyInstant } from '../../kernel/calendar.ts';
import { abaChecksumValid } from '../bank-accounts/bank-account.ts';
import { ACH_CHANGE_CODES, type NocField } from '../bank-accounts/bank-accounts.corrections.ts';
import { type Direction, UNREACHABLE_ROUTING_NUMBER } from '../transfers/transfers.rails.ts';

/** The fields each change code Sandbank sends corrects (C05's transaction code is the account type's). */
const CORRECTS: Readonly<Record<string, readonly NocField[]>> = {
  C01: ['account_number'],
  C02: ['routing_number'],
  C03: ['routing_number', 'account_number'],
  C04: ['name'],
  C05: ['account_type'],
  C06: ['account_number', 'account_type'],
  C07: ['routing_number', 'account_number', 'account_type'],
  C09: ['individual_id'],
  C13: ['addenda_information'],
};

const NO_IAT = 'Sandbank originates no IAT (international) entries, so no RDFI sends it one.';
const NO_CIE =
  'The reference marks it unverified: it is not in the current Nacha change-code list for the PPD, CCD and WEB entries Sandbank originates (it belonged to CIE entries), so Sandbank does not send it.';

/** Change codes of the reference Sandbank never sends, and why (a 400 names the reason). */
const NOT_SENT: Readonly<Record<string, string>> = {
  C08: `C08 corrects the receiving DFI of an IAT entry. ${NO_IAT}`,
  C10: `C10 (incorrect company name): ${NO_CIE}`,
  C11: `C11 (incorrect company identification): ${NO_CIE}`,
  C12: `C12 (incorrect company name and company ID): ${NO_CIE}`,
  C14: `C14 asks for the IAT SEC code on an outbound international payment. ${NO_IAT}`,
};

export interface NocCode {
  code: string;
  title: string;
  /** C61-C69: sent back by the ODFI to refuse an NOC. */
  refusal: boolean;
  /** What it corrects (empty for refusal codes and the codes Sandbank never sends). */
  corrects: readonly NocField[];
  /** Why Sandbank never sends it (C08, C10-C12, C14); null when it does. */
  notSent: string | null;
}

export const NOC_CODES: readonly NocCode[] = ACH_CHANGE_CODES.map((row) => ({
  ...row,
  corrects: CORRECTS[row.code] ?? [],
  notSent: NOT_SENT[row.code] ?? null,
}));

const BY_CODE: ReadonlyMap<string, NocCode> = new Map(NOC_CODES.map((row) => [row.code, row]));

export function nocCode(code: string): NocCode | null {
  return BY_CODE.get(code) ?? null;
}

/** The change codes Sandbank's RDFI sends (C01-C07, C09, C13). */
export const SENT_NOC_CODES: readonly string[] = NOC_CODES.filter(
  (row) => !row.refusal && row.notSent === null,
).map((row) => row.code);

// ---------------------------------------------------------------------------------------------
// Magic accounts

/** `200XX`: the entry settles, then the RDFI sends NOC CXX (when Sandbank sends CXX). */
export const NOC_CODE_ACCOUNT = Object.freeze({
  pattern: /^200(\d\d)$/,
  example: '20001',
  outcome:
    'settles, then a notification of change CXX for 200XX (here C01) the next banking day, for C01-C07, C09 and C13',
});

/** The NOC an account number makes the RDFI send after settlement, or null. */
export function magicNocCode(accountNumber: string): string | null {
  const digits = NOC_CODE_ACCOUNT.pattern.exec(accountNumber)?.[1];
  const code = digits ? `C${digits}` : null;
  return code && SENT_NOC_CODES.includes(code) ? code : null;
}

// ---------------------------------------------------------------------------------------------
// Time frames

const NOC_BANKING_DAYS = nocRules.noc_time_frame.banking_days_after_settlement;
const REFUSAL_CALENDAR_DAYS = nocRules.refused_noc_time_frame.calendar_days_after_receipt;
/** A magic account's NOC arrives the next banking day after settlement, at 13:00 ET (as returns do). */
const NOC_ARRIVAL = { bankingDays: 1, time: '13:00' } as const;

/** The instant ending a local day (24:00 ET), less one second: the last allowed instant of that day. */
const lastSecondOf = (day: string) => new Date(nyInstant(addCalendarDays(day, 1), '00:00').getTime() - 1000);

/** The last instant an NOC may arrive: 23:59:59 ET of the 2nd banking day after settlement. */
export function nocDeadline(settledAt: Date): Date {
  return lastSecondOf(addBankingDays(nyDateOf(settledAt), NOC_BANKING_DAYS));
}

/**
 * An RDFI whose NOC was refused may send a corrected one within five banking days after the
 * refused NOC's settlement date (Nacha Operating Rules, Subsection 3.9.2); a refusal settles when
 * the merchant sends it here.
 */
const CORRECTED_NOC_BANKING_DAYS = 5;

/** The last instant a corrected NOC may follow a refused one: 23:59:59 ET of the 5th banking day after the refusal. */
export function correctedNocDeadline(refusedAt: Date): Date {
  return lastSecondOf(addBankingDays(nyDateOf(refusedAt), CORRECTED_NOC_BANKING_DAYS));
}

/** The last instant the merchant may refuse an NOC: 23:59:59 ET of the 15th calendar day after receipt. */
export function refusalDeadline(receivedAt: Date): Date {
  return lastSecondOf(addCalendarDays(nyDateOf(receivedAt), REFUSAL_CALENDAR_DAYS));
}

/** When a magic account's NOC arrives for an entry settled at `settledAt`. */
export function magicNocArrivesAt(settledAt: Date): Date {
  return nyInstant(addBankingDays(nyDateOf(settledAt), NOC_ARRIVAL.bankingDays), NOC_ARRIVAL.time);
}

// ---------------------------------------------------------------------------------------------
// Corrected data

/** The entry's receiver as the NOC's original entry had it (an account number may be its last 4 digits only). */
export interface NocOriginal {
  routingNumber: string;
  /** The full account number of a saved counterparty, or the last 4 digits an inline entry keeps. */
  accountNumber: string;
  accountType: 'checking' | 'savings';
  name: string;
  individualId: string | null;
  description: string | null;
}

/** The ACH transaction code of a live entry: 22/27 checking credit/debit, 32/37 savings. */
export function transactionCode(accountType: 'checking' | 'savings', direction: Direction): string {
  return `${accountType === 'checking' ? 2 : 3}${direction === 'credit' ? 2 : 7}`;
}

/** The check digit that makes 8 digits a valid ABA routing number. */
function withCheckDigit(eight: string): string {
  const weights = [3, 7, 1, 3, 7, 1, 3, 7];
  const sum = weights.reduce((total, weight, i) => total + weight * Number(eight[i]), 0);
  return `${eight}${(10 - (sum % 10)) % 10}`;
}

/** A different routing number that passes the checksum and every rail reaches (its 8th digit moved on). */
function derivedRouting(routing: string): string {
  for (let step = 1; step < 10; step++) {
    const eighth = (Number(routing[7]) + step) % 10;
    const candidate = withCheckDigit(`${routing.slice(0, 7)}${eighth}`);
    if (candidate !== routing && candidate !== UNREACHABLE_ROUTING_NUMBER) return candidate;
  }
  return '021000021';
}

/**
 * A different account number, never a magic one (magic numbers start 0, 1 or 2): a leading 9, as
 * when an RDFI adds the branch digit the originator left out.
 */
function derivedAccount(account: string): string {
  return account.length < 17 ? `9${account}` : `${account[0] === '9' ? '8' : '9'}${account.slice(1)}`;
}

/** The name as the RDFI holds it: upper case, at most the 22 characters of the entry's field. */
function derivedName(name: string): string {
  const upper = name.toUpperCase().slice(0, 22);
  return upper === name ? `${name.slice(0, 12)} CORRECTED` : upper;
}

function derivedIndividualId(original: NocOriginal): string {
  const id = `ID${original.accountNumber.slice(-9)}`;
  return id === original.individualId ? `ID0${original.accountNumber.slice(-8)}` : id;
}

/** The 80 characters of payment-related information, in the characters an addenda record allows. */
function derivedAddenda(description: string | null): string {
  const text = (description ?? 'PAYMENT').toUpperCase().replace(/[^A-Z0-9 ]/g, ' ');
  return text.trim().slice(0, 80) || 'PAYMENT';
}

/** The value the RDFI would correct a field to, for an entry it does not name a value for. */
export function derivedValue(field: NocField, original: NocOriginal): string {
  switch (field) {
    case 'routing_number':
      return derivedRouting(original.routingNumber);
    case 'account_number':
      return derivedAccount(original.accountNumber);
    case 'account_type':
      return original.accountType === 'checking' ? 'savings' : 'checking';
    case 'name':
      return derivedName(original.name);
    case 'individual_id':
      return derivedIndividualId(original);
    case 'addenda_information':
      return derivedAddenda(original.description);
  }
}

/** The original entry's value of a field, to tell a correction from a repetition. */
export function originalValue(field: NocField, original: NocOriginal): string | null {
  switch (field) {
    case 'routing_number':
      return original.routingNumber;
    case 'account_number':
      return original.accountNumber;
    case 'account_type':
      return original.accountType;
    case 'name':
      return original.name;
    case 'individual_id':
      return original.individualId;
    case 'addenda_information':
      return null;
  }
}

/**
 * Why a given corrected value is not one an RDFI could send for this field, or null. Routing
 * numbers pass the checksum and are reachable; account numbers are 4-17 digits; names fit the
 * entry's 22 characters; individual ids its 15; addenda information its 80.
 */
export function correctedValueProblem(field: NocField, value: string): string | null {
  switch (field) {
    case 'routing_number':
      if (!abaChecksumValid(value)) return 'a routing number is 9 digits that pass the ABA checksum';
      return value === UNREACHABLE_ROUTING_NUMBER ? 'this routing number is not reachable over ACH' : null;
    case 'account_number':
      return /^\d{4,17}$/.test(value) ? null : 'an account number is 4-17 digits';
    case 'account_type':
      return value === 'checking' || value === 'savings' ? null : 'an account type is checking or savings';
    case 'name':
      return value.trim().length >= 1 && value.length <= 22 ? null : 'a name is 1-22 characters';
    case 'individual_id':
      return /^[A-Za-z0-9 -]{1,15}$/.test(value) ? null : 'an individual id is 1-15 letters or digits';
    case 'addenda_information':
      return value.trim().length >= 1 && value.length <= 80 ? null : 'addenda information is 1-80 characters';
  }
}
