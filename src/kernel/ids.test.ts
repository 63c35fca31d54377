import { decodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';
import { newId } from './ids.ts';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The 80-bit random part of an id (the 16 characters after the 10 of the timestamp), as a number. */
function randomPart(id: string): bigint {
  const ulid = id.slice(id.indexOf('_') + 1);
  let value = 0n;
  for (const char of ulid.slice(10)) value = value * 32n + BigInt(ALPHABET.indexOf(char));
  return value;
}

describe('newId', () => {
  it('never hands out ids whose random parts are neighbours, even in one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('collection'));
    let sameMillisecond = 0;
    for (let i = 1; i < ids.length; i++) {
      const [before, after] = [ids[i - 1] as string, ids[i] as string];
      if (decodeTime(before.slice(4)) !== decodeTime(after.slice(4))) continue;
      sameMillisecond++;
      // At least 2^32 apart: the next id of a millisecond cannot be found by counting up.
      expect(randomPart(after) - randomPart(before)).toBeGreaterThan(2n ** 32n);
    }
    // The loop is fast enough to make many ids in one millisecond: the check above did run.
    expect(sameMillisecond).toBeGreaterThan(1_000);
  });

  it('keeps ids in the order they were made (timelines and queues order by id)', () => {
    const ids = Array.from({ length: 5_000 }, () => newId('event'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});
