import { z } from 'zod';
import { timestamp } from '../../kernel/wire-resources.ts';
import { CHANGE_CODES, maskedCorrectedData, type NocRecord, REFUSAL_CODES } from './transfers.noc.ts';

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
