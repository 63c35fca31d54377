import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';
import { mccName } from './issuing.controls.ts';
import type { issuingAuthorizations, StoredControls, virtualCards } from './issuing.table.ts';

export type VirtualCardRow = typeof virtualCards.$inferSelect;
export type IssuingAuthorizationRow = typeof issuingAuthorizations.$inferSelect;

const usd = (minor: bigint) => WireDecimal.of(minor, 'USD');

export function controlsResource(controls: StoredControls): Record<string, unknown> {
  return {
    limits: controls.limits.map((limit) => ({ amount: usd(BigInt(limit.amount)), interval: limit.interval })),
    allowed_mccs: controls.allowed_mccs,
    blocked_mccs: controls.blocked_mccs,
  };
}

/** A virtual card as REST bodies and events show it: never its number or CVC. */
export function virtualCardResource(row: VirtualCardRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'virtual_card',
    brand: row.brand,
    last4: row.last4,
    exp_month: row.expMonth,
    exp_year: row.expYear,
    cardholder_name: row.cardholderName,
    currency: 'USD',
    state: row.state,
    spending_controls: controlsResource(row.spendingControls),
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The create response and GET …/details: the card with its full number and CVC. */
export function virtualCardDetailsResource(row: VirtualCardRow): Record<string, unknown> {
  return { ...virtualCardResource(row), number: row.number, cvc: row.cvc };
}

export function issuingAuthorizationResource(row: IssuingAuthorizationRow): Record<string, unknown> {
  const currency = row.currency as CurrencyCode;
  return {
    id: row.id,
    object: 'issuing_authorization',
    virtual_card: row.cardId,
    state: row.state,
    approved: row.state !== 'declined',
    amount: WireDecimal.of(row.amount, currency),
    amount_reversed: WireDecimal.of(row.amountReversed, currency),
    amount_captured: WireDecimal.of(row.amountCaptured, currency),
    amount_refunded: WireDecimal.of(row.amountRefunded, currency),
    currency,
    merchant: {
      name: row.merchantName,
      mcc: row.merchantMcc,
      category: mccName(row.merchantMcc),
      country: row.merchantCountry,
    },
    decline_reason: row.declineReason,
    decline_interval: row.declineInterval,
    network_response_code: row.networkResponseCode,
    network_response_message: networkResponseDescription(row.networkResponseCode),
    card_payment: row.cardPaymentId,
    reference: row.reference,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
