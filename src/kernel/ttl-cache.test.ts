import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.ts';

/** A load the test finishes by hand, counting how often it was started. */
function gate<V>() {
  let loads = 0;
  const pending: ((value: V) => void)[] = [];
  return {
    load: () => {
      loads += 1;
      return new Promise<V>((resolve) => pending.push(resolve));
    },
    finish: (value: V) => pending.shift()?.(value),
    get loads() {
      return loads;
    },
  };
}

describe('TtlCache', () => {
  it('concurrent misses of one key share one load, and the value is then served from the cache', async () => {
    const cache = new TtlCache<string>(60_000, 10);
    const g = gate<string>();
    const first = cache.get('k', g.load);
    const second = cache.get('k', g.load);
    expect(g.loads).toBe(1);
    g.finish('v');
    expect(await Promise.all([first, second])).toEqual(['v', 'v']);
    expect(await cache.get('k', g.load)).toBe('v');
    expect(g.loads).toBe(1);
  });

  it('keeps only what keep() accepts: an unknown key is read again each time', async () => {
    const cache = new TtlCache<string | null>(60_000, 10, (value) => value !== null);
    let loads = 0;
    const load = async () => {
      loads += 1;
      return null;
    };
    expect(await cache.get('k', load)).toBeNull();
    expect(await cache.get('k', load)).toBeNull();
    expect(loads).toBe(2);
  });

  it('forget() during a load: the waiting callers get its answer, the next caller reads again', async () => {
    const cache = new TtlCache<string>(60_000, 10);
    const g = gate<string>();
    const before = cache.get('k', g.load);
    cache.forget('k');
    const after = cache.get('k', g.load);
    expect(g.loads).toBe(2);
    g.finish('old');
    g.finish('new');
    expect(await before).toBe('old');
    expect(await after).toBe('new');
    expect(await cache.get('k', g.load)).toBe('new');
    expect(g.loads).toBe(2);
  });

  it('a failed load is not kept and does not block the next one', async () => {
    const cache = new TtlCache<string>(60_000, 10);
    await expect(cache.get('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('k', async () => 'up')).toBe('up');
  });

  it('an entry past its time is read again (a zero lifetime keeps nothing)', async () => {
    const cache = new TtlCache<string>(0, 10);
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.get('k', load)).toBe('v1');
    expect(await cache.get('k', load)).toBe('v2');
  });
});
