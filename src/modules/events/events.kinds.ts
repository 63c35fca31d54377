import { type IdKind, idPrefix } from '../../kernel/ids.ts';

/** The object kinds of transactionUpdated, by id kind: the one place this mapping lives. */
const KIND_BY_ID = {
  collection: 'collection',
  paymentAttempt: 'payment_attempt',
  cardPayment: 'card_payment',
  refund: 'refund',
  dispute: 'dispute',
  posting: 'balance_transaction',
  transfer: 'transfer',
  payout: 'payout',
  inboundTransfer: 'inbound_transfer',
  issuingAuthorization: 'issuing_authorization',
  fxConversion: 'fx_conversion',
  fxSettlement: 'fx_settlement',
} as const satisfies { [K in IdKind]?: string };

export type ObjectKind = (typeof KIND_BY_ID)[keyof typeof KIND_BY_ID];

export const OBJECT_KINDS: readonly ObjectKind[] = Object.values(KIND_BY_ID);

let byPrefix: Map<string, ObjectKind> | undefined;

/** The kind of a transaction object from its id (`col_…` → collection), or null for other objects. */
export function objectKindOf(id: string): ObjectKind | null {
  const prefix = id.slice(0, id.indexOf('_'));
  // By prefix on first use: the prefixes are the modules' (registered at start-up).
  byPrefix ??= new Map(
    Object.entries(KIND_BY_ID).map(([kind, object]) => [idPrefix(kind as IdKind), object] as const),
  );
  return byPrefix.get(prefix) ?? null;
}
