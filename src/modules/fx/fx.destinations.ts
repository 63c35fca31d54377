import {
  electronicFormatIBAN,
  getCountrySpecifications,
  isSEPACountry,
  ValidationErrorsIBAN,
  validateIBAN,
} from 'ibantools';
import { SandbankError } from '../../kernel/errors.ts';

/**
 * Accounts abroad that FX settlements pay. IBANs are checked by ibantools (ISO 13616:
 * the country's length and format, the mod-97 check digits, and national checksums where the
 * library knows them). A EUR settlement goes to an IBAN of a SEPA country; a GBP one to a UK (GB)
 * IBAN. A JPY settlement goes to a Zengin account: 4-digit bank code, 3-digit branch code, 7-digit
 * account number, the holder's name in katakana or Latin letters.
 */
export type NormalizedDestination =
  | { name: string; iban: string }
  | { name: string; bankCode: string; branchCode: string; accountNumber: string };

/**
 * Destinations that exist but whose bank refuses the payment on the payment day (AC04, closed
 * account): valid IBANs with an all-9 account, and the Japanese account number 9999999.
 */
export const FAILING_DESTINATIONS = {
  EUR: 'DE89500105179999999999',
  GBP: 'GB54NWBK60161399999999',
  JPY: '9999999',
} as const;

/** The ISO 20022 reasons a beneficiary's bank refuses a settlement with (magic or simulated). */
export const FAILURE_REASONS: Record<string, string> = {
  AC01: "The beneficiary's bank reports the account number incorrect (ISO 20022 AC01).",
  AC04: "The beneficiary's bank reports the account closed (ISO 20022 AC04).",
  AC06: "The beneficiary's bank reports the account blocked (ISO 20022 AC06).",
  AG01: "The beneficiary's bank forbids this payment on the account (ISO 20022 AG01).",
  BE01: "The beneficiary's name does not match the account (ISO 20022 BE01).",
  MS03: "The beneficiary's bank refused the payment without a reason (ISO 20022 MS03).",
};

export function failureReasonOf(code: string): string {
  return FAILURE_REASONS[code] ?? code;
}

/** The ISO 20022 reason a magic destination fails with, or null for one that is paid. */
export function failureOf(destination: NormalizedDestination): { code: string } | null {
  const account = 'iban' in destination ? destination.iban : destination.accountNumber;
  return (Object.values(FAILING_DESTINATIONS) as string[]).includes(account) ? { code: 'AC04' } : null;
}

function invalid(field: string, message: string): SandbankError {
  return new SandbankError('destination_invalid', { param: `destination.${field}`, message });
}

function objectOf(input: unknown): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new SandbankError('destination_invalid', {
      param: 'destination',
      message: 'The destination is an object.',
    });
  return input as Record<string, unknown>;
}

function only(record: Record<string, unknown>, fields: readonly string[], what: string): void {
  const extra = Object.keys(record).find((key) => !fields.includes(key));
  if (extra !== undefined)
    throw invalid(extra.slice(0, 40), `A ${what} destination has only ${fields.join(', ')}.`);
}

const LATIN_OR_KATAKANA = /^[A-Za-z0-9 .,()\-/'\u30A0-\u30FF\uFF65-\uFF9F\u3000]+$/u;

function nameOf(record: Record<string, unknown>, japanese: boolean): string {
  const raw = record.name;
  if (typeof raw !== 'string' || raw.trim() === '')
    throw invalid('name', "The account holder's name is required.");
  const name = raw.trim();
  if (name.length > 140) throw invalid('name', "The account holder's name has at most 140 characters.");
  if (japanese && !LATIN_OR_KATAKANA.test(name))
    throw invalid('name', "A Japanese account holder's name is in katakana or Latin letters.");
  return name;
}

const IBAN_ERRORS: Partial<Record<ValidationErrorsIBAN, string>> = {
  [ValidationErrorsIBAN.NoIBANCountry]: 'does not start with a known country code',
  [ValidationErrorsIBAN.WrongIBANChecksum]: 'fails the ISO 13616 mod-97 check (a mistyped character?)',
  [ValidationErrorsIBAN.ChecksumNotNumber]: 'has letters where its check digits belong',
  [ValidationErrorsIBAN.WrongBBANFormat]: "does not have its country's account format",
  [ValidationErrorsIBAN.WrongAccountBankBranchChecksum]: "fails its country's bank or account checksum",
};

/** `{name, iban}` for EUR (a SEPA country's IBAN) or GBP (a GB IBAN); spaces and case are ignored. */
export function validateIbanDestination(input: unknown, currency: 'EUR' | 'GBP'): NormalizedDestination {
  const record = objectOf(input);
  only(record, ['name', 'iban'], `${currency}`);
  const name = nameOf(record, false);
  if (typeof record.iban !== 'string' || record.iban.trim() === '')
    throw invalid('iban', `A ${currency} destination needs an iban.`);
  const iban = electronicFormatIBAN(record.iban) ?? '';
  const country = iban.slice(0, 2);
  const spec = getCountrySpecifications()[country];
  if (!spec?.chars) throw invalid('iban', `The IBAN ${IBAN_ERRORS[ValidationErrorsIBAN.NoIBANCountry]}.`);
  if (iban.length !== spec.chars)
    throw invalid('iban', `A ${country} IBAN has ${spec.chars} characters; this one has ${iban.length}.`);
  const result = validateIBAN(iban);
  if (!result.valid) {
    // A mistyped digit usually breaks the national checksum too; the mod-97 check is the one to name.
    const first = result.errorCodes.includes(ValidationErrorsIBAN.WrongIBANChecksum)
      ? ValidationErrorsIBAN.WrongIBANChecksum
      : result.errorCodes[0];
    throw invalid('iban', `The IBAN ${(first !== undefined && IBAN_ERRORS[first]) || 'is not valid'}.`);
  }
  if (currency === 'GBP' && country !== 'GB')
    throw invalid('iban', `GBP settlements go to a UK (GB) IBAN; this one is from ${country}.`);
  if (currency === 'EUR' && !isSEPACountry(country))
    throw invalid('iban', `EUR settlements go to an IBAN of a SEPA country; ${country} is not one.`);
  return { name, iban };
}

function digits(record: Record<string, unknown>, field: string, count: number, what: string): string {
  const value = record[field];
  if (typeof value !== 'string' || !new RegExp(`^[0-9]{${count}}$`).test(value))
    throw invalid(field, `A Japanese ${what} is exactly ${count} digits, as a string.`);
  return value;
}

/** `{name, bank_code, branch_code, account_number}` of a Japanese (Zengin) account for JPY. */
export function validateJpyDestination(input: unknown): NormalizedDestination {
  const record = objectOf(input);
  only(record, ['name', 'bank_code', 'branch_code', 'account_number'], 'JPY');
  return {
    name: nameOf(record, true),
    bankCode: digits(record, 'bank_code', 4, 'bank code'),
    branchCode: digits(record, 'branch_code', 3, 'branch code'),
    accountNumber: digits(record, 'account_number', 7, 'account number'),
  };
}
