import { randomFillSync } from 'node:crypto';

/**
 * Cryptographic randomness drawn from a pool refilled 4 KiB at a time: one system call per 4 KiB
 * instead of one per id or secret (a per-call randomBytes showed at the top of request profiles).
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

/** `count` random bytes (at most the pool's size), fresh from the system's CSPRNG. */
export function randomBytesPooled(count: number): Uint8Array {
  if (count > pool.length) throw new RangeError(`randomBytesPooled takes at most ${pool.length} bytes`);
  if (poolAt + count > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const bytes = pool.slice(poolAt, poolAt + count);
  // Each byte is handed out once: the pool forgets what it gave.
  pool.fill(0, poolAt, poolAt + count);
  poolAt += count;
  return bytes;
}
