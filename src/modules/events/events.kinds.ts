import { ID_PREFIXES } from '../../kernel/ids.ts';

/** The object kinds of transactionUpdated, by id prefix: the one place this mapping lives. */
const KIND_BY_PREFIX = {
  [ID_PREFIXES.collection]: 'collection',
  [ID_PREFIXES.paymentAttempt]: 'payment_attempt',
  [ID_PREFIXES.cardPayment]: 'card_payment',
  [ID_PREFIXES.refund]: 'refund',
  [ID_PREFIXES.dispute]: 'dispute',
  [ID_PREFIXES.posting]: 'balance_transaction',
  [ID_PREFIXES.transfer]: 'transfer',
  [ID_PREFIXES.payout]: 'payout',
  [ID_PREFIXES.inboundTransfer]: 'inbound_transfer',
  [ID_PREFIXES.issuingAuthorization]: 'issuing_authorization',
  [ID_PREFIXES.fxConversion]: 'fx_conversion',
  [ID_PREFIXES.fxSettlement]: 'fx_settlement',
} as const satisfies Record<string, string>;

export type ObjectKind = (typeof KIND_BY_PREFIX)[keyof typeof KIND_BY_PREFIX];

export const OBJECT_KINDS: readonly ObjectKind[] = Object.values(KIND_BY_PREFIX);

/** The kind of a transaction object from its id (`col_…` → collection), or null for other objects. */
export function objectKindOf(id: string): ObjectKind | null {
  const prefix = id.slice(0, id.indexOf('_'));
  return Object.hasOwn(KIND_BY_PREFIX, prefix) ? KIND_BY_PREFIX[prefix as keyof typeof KIND_BY_PREFIX] : null;
}
