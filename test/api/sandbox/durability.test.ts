/**
 * SANDBANK_DURABILITY: full unless asked for, relaxed commits on both databases when asked for,
 * and the banner saying which is in force.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { type Database, openDatabase } from '../../../src/db/client.ts';
import { banner } from '../../../src/start.ts';
import { durabilityLabel } from '../../../src/storage.ts';

async function synchronousCommit(database: Database): Promise<string> {
  const rows = (await database.db.execute(sql`SHOW synchronous_commit`)) as unknown as
    | Array<{ synchronous_commit: string }>
    | { rows: Array<{ synchronous_commit: string }> };
  const list = Array.isArray(rows) ? rows : rows.rows;
  return list[0]?.synchronous_commit ?? 'unknown';
}

function open(relaxedDurability: boolean | undefined): Promise<Database> {
  const url = process.env.TEST_DATABASE_URL;
  const relaxed = relaxedDurability === undefined ? {} : { relaxedDurability };
  return url
    ? openDatabase({ driver: 'postgres', url, maxConnections: 1, ...relaxed })
    : openDatabase({ driver: 'pglite', ...relaxed });
}

describe('durability', () => {
  it('is full unless SANDBANK_DURABILITY=relaxed, and refuses other values', () => {
    expect(loadConfig({}, []).durability).toBe('full');
    expect(loadConfig({ SANDBANK_DURABILITY: 'full' }, []).durability).toBe('full');
    expect(loadConfig({ SANDBANK_DURABILITY: 'relaxed' }, []).durability).toBe('relaxed');
    expect(() => loadConfig({ SANDBANK_DURABILITY: 'fast' }, [])).toThrow(/SANDBANK_DURABILITY/);
  });

  it('commits are waited onto the disk by default, and not when relaxed', async () => {
    for (const [relaxed, expected] of [
      [undefined, 'on'],
      [false, 'on'],
      [true, 'off'],
    ] as const) {
      const database = await open(relaxed);
      try {
        expect(await synchronousCommit(database)).toBe(expected);
        // Every connection of the pool, not only the first.
        const all = await Promise.all(Array.from({ length: 3 }, () => synchronousCommit(database)));
        expect(new Set(all)).toEqual(new Set([expected]));
      } finally {
        await database.close();
      }
    }
  });

  it('the banner says which durability is in force', () => {
    const server = {
      dashboardSignInUrl: 'http://127.0.0.1:4242/dashboard/login/x',
      defaultMerchant: {
        merchant: { id: 'mch_1', name: 'Demo' },
        secretKey: 'sk_test_secret000000abcd',
        publicKey: 'pk_test_public0000001234',
        secretKeyLast4: 'abcd',
        publicKeyLast4: '1234',
        created: false,
      },
    };
    const relaxed = banner(server, 'http://127.0.0.1:4242', 'PGlite', durabilityLabel('relaxed'));
    expect(relaxed).toMatch(/ {2}Durability relaxed \(SANDBANK_DURABILITY: a crash may lose/);
    expect(banner(server, 'http://127.0.0.1:4242', 'PGlite')).toMatch(/ {2}Durability full \(/);
  });
});
