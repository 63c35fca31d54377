import { z } from 'zod';
import { defineObject, field } from '../../kernel/declare.ts';
import { timestamp, type Wire } from '../../kernel/wire-resources.ts';
import {
  CHANGE_CODES,
  CorrectedDataWire,
  maskedCorrectedData,
  REFUSAL_CODES,
} from '../bank-accounts/bank-accounts.corrections.ts';
import type { CounterpartyRow } from './counterparties.table.ts';
import { VERIFICATION_STATES } from './counterparties.verification-rules.ts';

/** An account number as every answer shows it: masked to its last 4 digits. */
export const maskedAccountNumber = (accountNumber: string) => `••••${accountNumber.slice(-4)}`;

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
    description: 'A correction a saved counterparty received from a notification of change (NOC).',
  });

export const CORRECTIONS = 'The corrections it received, oldest first.';

export const Counterparty = defineObject<CounterpartyRow>()(
  'Counterparty',
  'counterparty',
  'A saved US bank account transfers can name instead of an inline one. A notification of change on an entry to it corrects it, so the next entry uses the corrected data.',
  {
    name: field.text("The account holder's name (as corrected by C04)."),
    routing_number: field.text('The ABA routing number (9 digits).'),
    // GraphQL answers the last 4 digits alone (accountNumberLast4, counterparties.graphql.ts).
    account_number: field.custom<CounterpartyRow>(
      z.string().meta({ description: 'The account number masked to its last 4 digits (••••6789).' }),
      (row) => maskedAccountNumber(row.accountNumber),
    ),
    account_type: field.enum(['checking', 'savings'], 'checking or savings.'),
    individual_id: field.nullableText(
      "The receiver's identification number entries carry; null when none was given.",
    ),
    // GraphQL answers each correction as an object of its own (counterparties.graphql.ts).
    corrections: field.custom<CounterpartyRow>(
      z.array(CounterpartyCorrectionWire).meta({ description: CORRECTIONS }),
      (row) =>
        row.corrections.map((c) => ({
          code: c.code,
          reason: c.reason,
          transfer: c.transferId,
          corrected_data: maskedCorrectedData(c.corrected) as Wire<typeof CorrectedDataWire>,
          received_at: c.receivedAt,
          refused_at: c.refusedAt,
          refusal_code: c.refusalCode,
        })),
    ),
    verification_status: field.enum(
      VERIFICATION_STATES,
      'Its account verification: unverified, verification_pending (micro-deposits to confirm, or a prenote in its waiting period), verified, verification_failed.',
      (row: CounterpartyRow) => row.verificationState,
    ),
    verification_method: field.nullableEnum(
      ['microdeposits', 'prenote'],
      'How it was last verified (or is being verified); null if never.',
      (row: CounterpartyRow) => row.verification?.method ?? null,
    ),
    verification_available_at: field.nullableTimestamp(
      'Micro-deposits: when they arrive and can be confirmed; a prenote: when live ACH entries may start (the third banking day after it settles); null if never verified.',
      (row: CounterpartyRow) => (row.verification ? new Date(row.verification.available_at) : null),
    ),
    verification_attempts_remaining: field.nullableInt(
      'Micro-deposits: how many wrong confirmations remain; null otherwise.',
      (row: CounterpartyRow) => row.verification?.attempts_remaining ?? null,
    ),
    verification_failure_code: field.nullableText(
      'Why the verification failed: the return code of its entries (R02, R03) or attempts_exhausted; null otherwise.',
      (row: CounterpartyRow) => row.verification?.failure_code ?? null,
    ),
    verified_at: field.nullableTimestamp('When it was verified; null otherwise.', (row: CounterpartyRow) =>
      row.verification?.verified_at ? new Date(row.verification.verified_at) : null,
    ),
    metadata: field.metadata(),
    created_at: field.timestamp('When it was saved, clock time.'),
    updated_at: field.updatedAt(),
  },
);

export const CounterpartyWire = Counterparty.wire;

/** The API representation of a counterparty: REST bodies and event payloads. */
export function counterpartyResource(row: CounterpartyRow): Wire<typeof CounterpartyWire> {
  return Counterparty.render(row, { publicUrl: '' });
}
