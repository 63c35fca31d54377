import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import type { transfers } from './transfers.table.ts';

export type TransferRow = typeof transfers.$inferSelect;

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** The API representation of a transfer: REST bodies and event payloads. */
export function transferResource(row: TransferRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'transfer',
    rail: row.rail,
    direction: row.direction,
    state: row.state,
    amount: WireDecimal.of(row.amount, row.currency as CurrencyCode),
    currency: row.currency,
    counterparty: {
      name: row.counterpartyName,
      routing_number: row.routingNumber,
      account_number: `••••${row.accountLast4}`,
      account_type: row.accountType,
    },
    sec_code: row.secCode,
    expected_submission_at: iso(row.expectedSubmissionAt),
    submitted_at: iso(row.submittedAt),
    expected_settlement_at: iso(row.expectedSettlementAt),
    settled_at: iso(row.settledAt),
    returned_at: iso(row.returnedAt),
    return_code: row.returnCode,
    return_reason: row.returnReason,
    failure_reason: row.failureReason,
    reference: row.reference,
    description: row.description,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
