import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import type { transfers } from './transfers.table.ts';

/** A row of the rail engine: a transfer (`tr_`) or a payout (`po_`), as its `kind` says. */
export type TransferRow = typeof transfers.$inferSelect;
export type PayoutRow = TransferRow & { kind: 'payout' };

const iso = (at: Date | null) => at?.toISOString() ?? null;

const bankAccount = (row: TransferRow) => ({
  name: row.counterpartyName,
  routing_number: row.routingNumber,
  account_number: `••••${row.accountLast4}`,
  account_type: row.accountType,
});

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
    counterparty: bankAccount(row),
    sec_code: row.secCode,
    expected_submission_at: iso(row.expectedSubmissionAt),
    submitted_at: iso(row.submittedAt),
    expected_settlement_at: iso(row.expectedSettlementAt),
    settled_at: iso(row.settledAt),
    returned_at: iso(row.returnedAt),
    return_code: row.returnCode,
    return_reason: row.returnReason,
    failure_reason: row.failureReason,
    collection: row.collectionId,
    reference: row.reference,
    description: row.description,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * The API representation of a payout. `in_transit_at` / `arrival_at` / `paid_at` are
 * the transfer's submission / expected settlement / settlement; `failure_code` is the ACH return
 * code or the RTP rejection reason, whichever ended it.
 */
/** When the payout went in transit: ACH's submission; an RTP payout is never in transit (instant). */
export const payoutInTransitAt = (row: TransferRow): Date | null =>
  row.rail === 'rtp' ? null : row.submittedAt;

/** When the payout arrives (arrived): none for one that never will (failed, canceled). */
export const payoutArrivalAt = (row: TransferRow): Date | null =>
  row.state === 'failed' || row.state === 'canceled' ? null : row.expectedSettlementAt;

export function payoutResource(row: TransferRow): Record<string, unknown> {
  const rtpReason = row.state === 'failed' && row.rail === 'rtp' ? row.outcomeCode : null;
  return {
    id: row.id,
    object: 'payout',
    method: row.rail,
    state: row.state,
    amount: WireDecimal.of(row.amount, row.currency as CurrencyCode),
    currency: row.currency,
    destination: bankAccount(row),
    expected_submission_at: iso(row.expectedSubmissionAt),
    in_transit_at: iso(payoutInTransitAt(row)),
    arrival_at: iso(payoutArrivalAt(row)),
    paid_at: iso(row.settledAt),
    returned_at: iso(row.returnedAt),
    failure_code: row.returnCode ?? rtpReason,
    failure_reason: row.returnReason ?? row.failureReason,
    reference: row.reference,
    description: row.description,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The resource of an engine row, by its kind. */
export function railEntryResource(row: TransferRow): Record<string, unknown> {
  return row.kind === 'payout' ? payoutResource(row) : transferResource(row);
}
