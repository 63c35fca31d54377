/**
 * What a receiving bank corrects about an account: the Nacha change codes of a notification of
 * change (C01-C14) and the refused-NOC codes (C61-C69), from reference/ach_noc_codes.json; the
 * fields a correction names; and how corrected data and an NOC are kept and rendered. The entry
 * (a transfer) keeps its NOCs and a saved counterparty its corrections, both in these words, so
 * they sit here, below both; what Sandbank does with an NOC is the nocs module's.
 */
import { z } from 'zod';
import nocCodes from '../../../reference/ach_noc_codes.json' with { type: 'json' };
import { timestamp } from '../../kernel/wire-resources.ts';

/** What an NOC can correct, as the API names it. */
export const NOC_FIELDS = [
  'routing_number',
  'account_number',
  'account_type',
  'name',
  'individual_id',
  'addenda_information',
] as const;
export type NocField = (typeof NOC_FIELDS)[number];

/** A change code or refused-NOC code of the reference, with its title. */
export interface AchChangeCode {
  code: string;
  title: string;
  /** C61-C69: sent back by the ODFI to refuse an NOC. */
  refusal: boolean;
}

export const ACH_CHANGE_CODES: readonly AchChangeCode[] = nocCodes.map((row) => ({
  code: row.code,
  title: row.title,
  refusal: row.refused_noc,
}));

/** Every change code of the reference (C01-C14). */
export const CHANGE_CODES: readonly string[] = ACH_CHANGE_CODES.filter((row) => !row.refusal).map(
  (row) => row.code,
);
/** Every refused-NOC code of the reference (C61-C69). */
export const REFUSAL_CODES: readonly string[] = ACH_CHANGE_CODES.filter((row) => row.refusal).map(
  (row) => row.code,
);

const TITLES: ReadonlyMap<string, string> = new Map(ACH_CHANGE_CODES.map((row) => [row.code, row.title]));

/** The title of a change or refused-NOC code; null for a code the reference does not list. */
export function changeCodeTitle(code: string): string | null {
  return TITLES.get(code) ?? null;
}

export type CorrectedData = Partial<Record<NocField | 'transaction_code', string>>;

/**
 * Corrected data as the API, events and dashboard show it: a corrected account number masked to its
 * last 4 digits (••••0003), as on the counterparty and the transfer, since it is the account's
 * number from then on. The full value is stored (the counterparty needs it) and never shown.
 */
export function maskedCorrectedData(data: CorrectedData): CorrectedData {
  return data.account_number === undefined
    ? data
    : { ...data, account_number: `••••${data.account_number.slice(-4)}` };
}

/** One NOC on an entry, as stored (timestamps ISO 8601) and as the API shows it. */
export interface NocRecord {
  code: string;
  reason: string;
  corrected_data: CorrectedData;
  /** The saved counterparty it corrected, when the entry named one. */
  counterparty: string | null;
  received_at: string;
  refuse_by: string;
  refused_at: string | null;
  refusal_code: string | null;
  refusal_reason: string | null;
}

const text = (description: string) => z.string().meta({ description });

/** What an NOC corrects: only the fields its code corrects are present. */
export const CorrectedDataWire = z
  .object({
    routing_number: text('The corrected ABA routing number (C02, C03, C07).').optional(),
    account_number: text(
      'The corrected account number, masked to its last 4 digits (••••0003) as everywhere (C01, C03, C06, C07).',
    ).optional(),
    account_type: z
      .enum(['checking', 'savings'])
      .meta({ description: 'The account type the corrected transaction code posts to (C05, C06, C07).' })
      .optional(),
    transaction_code: text(
      'The corrected ACH transaction code (22/27 checking credit/debit, 32/37 savings) (C05, C06, C07).',
    ).optional(),
    name: text("The receiver's name as the RDFI holds it (C04).").optional(),
    individual_id: text("The receiver's corrected identification number (C09).").optional(),
    addenda_information: text(
      'The corrected payment-related information of the addenda record (C13).',
    ).optional(),
  })
  .meta({
    id: 'NocCorrectedData',
    description: 'The corrected data of a notification of change: the fields its code corrects.',
  });

export const NotificationOfChangeWire = z
  .object({
    code: z
      .enum(CHANGE_CODES as [string, ...string[]])
      .meta({ description: 'The Nacha change code (C01-C13).' }),
    reason: text('The title of the change code (Incorrect bank account number).'),
    corrected_data: CorrectedDataWire,
    counterparty: z.string().nullable().meta({
      description: 'The saved counterparty the correction was applied to; null for an inline account.',
    }),
    received_at: timestamp.meta({ description: 'When the RDFI’s NOC arrived.' }),
    refuse_by: timestamp.meta({
      description:
        'The last instant the merchant may refuse it (15 calendar days after receipt, 23:59:59 ET).',
    }),
    refused_at: timestamp.nullable().meta({ description: 'When the merchant refused it; null otherwise.' }),
    refusal_code: z
      .enum(REFUSAL_CODES as [string, ...string[]])
      .nullable()
      .meta({ description: 'The refused-NOC code (C61-C69) it was refused with; null otherwise.' }),
    refusal_reason: text('The title of the refusal code; null unless refused.').nullable(),
  })
  .meta({
    id: 'NotificationOfChange',
    description:
      'A notification of change the receiving bank sent about an ACH entry: what to correct before the next entry, and whether the merchant refused it.',
  });

export const nocWire = (record: NocRecord): z.input<typeof NotificationOfChangeWire> =>
  ({ ...record, corrected_data: maskedCorrectedData(record.corrected_data) }) as z.input<
    typeof NotificationOfChangeWire
  >;
