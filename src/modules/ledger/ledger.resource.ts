import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import type { Balance } from './ledger.queries.ts';
import type { PostingRow } from './ledger.rows.ts';

export function balanceResource(balance: Balance): Record<string, unknown> {
  return {
    object: 'balance',
    currency: balance.currency,
    available: WireDecimal.of(balance.available, balance.currency),
    pending: WireDecimal.of(balance.pending, balance.currency),
    reserved: WireDecimal.of(balance.reserved, balance.currency),
  };
}

/** A posting as the merchant sees it: its effect on available, pending and reserved, and its source. */
export function balanceTransactionResource(row: PostingRow): Record<string, unknown> {
  const currency = row.currency as CurrencyCode;
  return {
    id: row.id,
    object: 'balance_transaction',
    type: row.type,
    state: row.state,
    currency,
    available: WireDecimal.of(row.availableDelta, currency),
    pending: WireDecimal.of(row.pendingDelta, currency),
    reserved: WireDecimal.of(row.reservedDelta, currency),
    source: { type: row.sourceType, id: row.sourceId },
    related: row.relatedId,
    description: row.description,
    created_at: row.createdAt.toISOString(),
  };
}
