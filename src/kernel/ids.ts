import { encodeTime } from 'ulid';
import { randomBytesPooled } from './random.ts';

/**
 * The prefix of every kind of id. The infrastructure's kinds are listed here; each module declares
 * the prefixes of its own kinds in its manifest (`ids`) and adds them to this interface (a
 * `declare module` beside the manifest), so that an unknown kind is still a type error. The
 * prefixes themselves reach newId when the modules are registered at start-up (registerIdPrefixes).
 */
export interface IdPrefixes {
  event: 'evt';
  job: 'job';
  request: 'req';
}

export type IdKind = keyof IdPrefixes;

/** Some id kinds with their prefixes, as a module declares them. */
export type IdPrefixClaims = { readonly [K in IdKind]?: IdPrefixes[K] };

/** The infrastructure's kinds: events and jobs (src/db), request ids (the wiring). */
export const INFRASTRUCTURE_ID_PREFIXES = {
  event: 'evt',
  job: 'job',
  request: 'req',
} as const satisfies IdPrefixClaims;

const prefixes = new Map<string, string>(Object.entries(INFRASTRUCTURE_ID_PREFIXES));

/**
 * Registers id kinds' prefixes (a module's `ids`, at start-up). A kind registered again keeps its
 * prefix; two kinds never share one.
 */
export function registerIdPrefixes(claims: IdPrefixClaims): void {
  for (const [kind, prefix] of Object.entries(claims)) {
    if (prefix === undefined || prefixes.get(kind) === prefix) continue;
    const taken = [...prefixes].find(([other, mine]) => other === kind || mine === prefix);
    if (taken) throw new Error(`id kind ${kind} (${prefix}_) clashes with ${taken[0]} (${taken[1]}_)`);
    prefixes.set(kind, prefix);
  }
}

/** Every registered id kind's prefix, by kind. */
export function idPrefixes(): ReadonlyMap<string, string> {
  return prefixes;
}

/** The prefix of an id kind (`col` for a collection). */
export function idPrefix(kind: IdKind): string {
  const prefix = prefixes.get(kind);
  if (prefix === undefined) throw new Error(`id kind ${kind} has no prefix: are the modules registered?`);
  return prefix;
}

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
  return `${idPrefix(kind)}_${nextUlid()}`;
}

export function hasPrefix(id: string, kind: IdKind): boolean {
  return id.startsWith(`${idPrefix(kind)}_`);
}
