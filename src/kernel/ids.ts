import { encodeTime } from 'ulid';
import { randomBytesPooled } from './random.ts';

/** Prefixes of every object id. */
export const ID_PREFIXES = {
  merchant: 'mch',
  apiKey: 'key',
  collection: 'col',
  paymentAttempt: 'pay',
  cardPayment: 'cp',
  refund: 're',
  dispute: 'dp',
  token: 'tok',
  transfer: 'tr',
  payout: 'po',
  inboundTransfer: 'itr',
  counterparty: 'cpty',
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

/** A random number of `bits` bits (a multiple of 8), from the pooled CSPRNG. */
function randomBits(bits: number): bigint {
  let value = 0n;
  for (const byte of randomBytesPooled(bits / 8)) value = (value << 8n) | BigInt(byte);
  return value;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_LIMIT = 1n << 80n;

function encodeRandom(value: bigint): string {
  let out = '';
  for (let i = 0; i < 16; i++) {
    out = CROCKFORD[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

let lastTime = -1;
let lastRandom = 0n;

/**
 * A ULID whose 80-bit random part is fresh in each new millisecond (79 random bits: the top one
 * stays clear, leaving room above) and, within one millisecond, steps up from the previous id by a
 * random amount between 2^40 and 2^48. Ids stay strictly increasing in the order they are made
 * (event timelines, the job queue and webhook deliveries order by id, often within one
 * millisecond), yet no id is its neighbour plus one, so the next id cannot be found by counting.
 */
function nextUlid(): string {
  const now = Date.now();
  if (now > lastTime) {
    lastTime = now;
    lastRandom = randomBits(80) >> 1n;
  } else {
    lastRandom += (1n << 40n) + randomBits(48);
    // Out of room (2^31 ids in one millisecond): borrow the next millisecond, still in order.
    if (lastRandom >= RANDOM_LIMIT) {
      lastTime++;
      lastRandom = randomBits(80) >> 1n;
    }
  }
  return `${encodeTime(lastTime, 10)}${encodeRandom(lastRandom)}`;
}

/** An opaque, prefixed, time-sortable id: `col_01JD3…` (ULID, increasing, never counted up by one). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${nextUlid()}`;
}

export function hasPrefix(id: string, kind: IdKind): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`);
}
