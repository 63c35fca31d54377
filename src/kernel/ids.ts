import { randomFillSync } from 'node:crypto';
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
  fxSettlement: 'fxs',
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

/**
 * Cryptographic randomness drawn from a pool refilled 4 KiB at a time (ulid's default asks the
 * system for one byte per character). A byte / 256 picks each of the 32 characters equally often.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;
function pooledRandom(): number {
  if (poolAt >= pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return (pool[poolAt++] as number) / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

/** An opaque, prefixed, time-sortable id: `col_01JD3…` (ULID, monotonic within a millisecond). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${nextUlid()}`;
}

export function hasPrefix(id: string, kind: IdKind): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`);
}
