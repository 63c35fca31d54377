import { monotonicFactory } from 'ulid';

/** Prefixes of every object id (API.md §1). */
export const ID_PREFIXES = {
  merchant: 'mch',
  apiKey: 'key',
  collection: 'col',
  paymentAttempt: 'pay',
  cardPayment: 'cp',
  refund: 're',
  token: 'tok',
  transfer: 'tr',
  payout: 'po',
  virtualCard: 'vc',
  issuingAuthorization: 'iauth',
  fxQuote: 'fxq',
  fxConversion: 'fxc',
  event: 'evt',
  webhookEndpoint: 'we',
  webhookDelivery: 'wd',
  webhookAttempt: 'wa',
  request: 'req',
  job: 'job',
  posting: 'btx',
  ledgerEntry: 'le',
  ledgerAccount: 'la',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const nextUlid = monotonicFactory();

/** An opaque, prefixed, time-sortable id: `col_01JD3…` (ULID, monotonic within a millisecond). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${nextUlid()}`;
}

export function hasPrefix(id: string, kind: IdKind): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`);
}
