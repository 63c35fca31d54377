import { z } from 'zod';
import { timestamp, type Wire, wireMetadata, wireResource } from '../../kernel/wire-resources.ts';
import {
  CHANGE_CODES,
  CorrectedDataWire,
  maskedCorrectedData,
  REFUSAL_CODES,
} from '../bank-accounts/bank-accounts.corrections.ts';
import type { CounterpartyRow } from './counterparties.table.ts';

export const CounterpartyCorrectionWire = z
  .object({
    code: z.enum(CHANGE_CODES as [string, ...string[]]).meta({ description: 'The Nacha change code.' }),
    reason: z.string().meta({ description: 'The title of the change code.' }),
    transfer: z.string().meta({ description: 'The transfer whose NOC carried it.' }),
    corrected_data: CorrectedDataWire,
    received_at: timestamp.meta({ description: 'When the NOC arrived (and the correction was applied).' }),
    refused_at: timestamp.nullable().meta({
      description: 'When the merchant refused the NOC and the correction was reverted; null otherwise.',
    }),
    refusal_code: z
      .enum(REFUSAL_CODES as [string, ...string[]])
      .nullable()
      .meta({ description: 'The refused-NOC code; null unless refused.' }),
  })
  .meta({
    id: 'CounterpartyCorrection',
    description: 'A correction a saved counterparty received from an NOC.',
  });

export const CounterpartyWire = wireResource(
  'Counterparty',
  'counterparty',
  'A saved US bank account transfers can name instead of an inline one. A notification of change on an entry to it corrects it, so the next entry uses the corrected data.',
  {
    name: z.string().meta({ description: "The account holder's name (as corrected by C04)." }),
    routing_number: z.string().meta({ description: 'The ABA routing number (9 digits).' }),
    account_number: z
      .string()
      .meta({ description: 'The account number masked to its last 4 digits (••••6789).' }),
    account_type: z.enum(['checking', 'savings']),
    individual_id: z
      .string()
      .nullable()
      .meta({ description: "The receiver's identification number entries carry; null when none was given." }),
    corrections: z
      .array(CounterpartyCorrectionWire)
      .meta({ description: 'The corrections it received, oldest first.' }),
    metadata: wireMetadata,
    created_at: timestamp,
    updated_at: timestamp,
  },
);

export function counterpartyResource(row: CounterpartyRow): Wire<typeof CounterpartyWire> {
  return {
    id: row.id,
    object: 'counterparty',
    name: row.name,
    routing_number: row.routingNumber,
    account_number: `••••${row.accountNumber.slice(-4)}`,
    account_type: row.accountType,
    individual_id: row.individualId,
    corrections: row.corrections.map((c) => ({
      code: c.code,
      reason: c.reason,
      transfer: c.transferId,
      corrected_data: maskedCorrectedData(c.corrected) as Wire<typeof CorrectedDataWire>,
      received_at: c.receivedAt,
      refused_at: c.refusedAt,
      refusal_code: c.refusalCode,
    })),
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
