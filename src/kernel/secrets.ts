import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBytesPooled } from './random.ts';

/**
 * The secret of a capability link (a checkout page, a 3-D Secure challenge): 256 random bits,
 * base64url (43 characters), so it travels in a URL unescaped. The id in such a link names the
 * object; only the secret lets a browser act on it.
 */
export function newLinkSecret(): string {
  return Buffer.from(randomBytesPooled(32)).toString('base64url');
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Whether `given` is the stored secret, in constant time: both sides are hashed to 32 bytes first,
 * so neither the position of the first wrong character nor the length of the right one shows in
 * the time it takes. A missing secret never matches.
 */
export function linkSecretMatches(given: string | undefined | null, stored: string): boolean {
  if (!given) return false;
  return timingSafeEqual(digest(given), digest(stored));
}

/** Whether two secrets are equal, in time that does not depend on where they first differ. */
export function secretsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
