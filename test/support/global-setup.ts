import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openDatabase } from '../../src/db/client.ts';

/**
 * Once per run: a migrated PGlite snapshot that every test file loads instead of running initdb
 * (seconds saved per file), and, with TEST_DATABASE_URL, a freshly reset and migrated Postgres.
 */
export default async function setup(): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbank-test-'));
  const snapshot = join(dir, 'migrated.tar.gz');
  const database = await openDatabase({ driver: 'pglite' });
  const dump = await database.pglite?.dumpDataDir('gzip');
  if (!dump) throw new Error('PGlite did not dump its data directory');
  writeFileSync(snapshot, Buffer.from(await dump.arrayBuffer()));
  await database.close();
  process.env.SANDBANK_TEST_SNAPSHOT = snapshot;

  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    await sql.unsafe(
      'DROP SCHEMA IF EXISTS public CASCADE; DROP SCHEMA IF EXISTS drizzle CASCADE; CREATE SCHEMA public;',
    );
    await sql.end();
    const pg = await openDatabase({ driver: 'postgres', url, maxConnections: 1 });
    await pg.close();
  }
  return () => rmSync(dir, { recursive: true, force: true });
}
