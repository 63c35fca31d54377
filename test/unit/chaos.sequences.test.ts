import { describe, expect, it } from 'vitest';
import { SeedSequences } from '../../src/modules/chaos/chaos.sequences.ts';

/**
 * The positions of seeded chaos sequences (docs/guide/chaos.md, Seeds): bounded per merchant and in all,
 * and no merchant's seeds ever cost a merchant within its share its place.
 */

describe('seeded sequences in memory', () => {
  it('bound each merchant by its least recently used seeds, never another merchant’s', () => {
    const kept = new SeedSequences(3, 100);
    expect(kept.next('b', 's1')).toBe(0);
    expect(kept.next('b', 's1')).toBe(1);
    expect(kept.next('a', 'x1')).toBe(0);
    expect(kept.next('a', 'x2')).toBe(0);
    expect(kept.next('a', 'x1')).toBe(1); // x1 used again: x2 is now a's oldest
    expect(kept.next('a', 'x3')).toBe(0);
    expect(kept.next('a', 'x4')).toBe(0); // a's fourth: forgets x2, its least recently used
    expect(kept.keptBy('a')).toBe(3);
    expect(kept.next('a', 'x1')).toBe(2);
    expect(kept.next('a', 'x2')).toBe(0); // forgotten, it starts again
    expect(kept.next('b', 's1')).toBe(2); // b untouched
  });

  it('take from merchants over their share when all merchants together hold too many', () => {
    // 4 a merchant, 10 in all: with four merchants each one's share is 2.5.
    const kept = new SeedSequences(4, 10);
    for (const seed of ['s1', 's2']) kept.next('b', seed);
    for (let i = 0; i < 50; i++) kept.next('a', `x${i}`);
    for (let i = 0; i < 4; i++) kept.next('c', `y${i}`);
    const counts = () => ['a', 'b', 'c', 'd'].map((id) => kept.keptBy(id));
    expect([kept.size, ...counts()]).toEqual([10, 4, 2, 4, 0]);
    // One more is one too many: the least recently used merchant over its share (a) gives one up.
    kept.next('d', 'z1');
    expect([kept.size, ...counts()]).toEqual([10, 3, 2, 4, 1]);
    kept.next('d', 'z2');
    expect([kept.size, ...counts()]).toEqual([10, 2, 2, 4, 2]);
    kept.next('d', 'z3'); // a is within its share now; c is not
    expect([kept.size, ...counts()]).toEqual([10, 2, 2, 3, 3]);
    // b, the least recently used merchant but within its share all along, kept its positions.
    expect([kept.next('b', 's1'), kept.next('b', 's2')]).toEqual([1, 1]);
    kept.restart('c');
    expect([kept.size, ...counts()]).toEqual([7, 2, 2, 0, 3]);
  });
});
