/**
 * A merchant's rows of every table a snapshot holds, and its clock, each row as JSON text in a
 * stable order: what the snapshot and reset tests compare row for row. The request log is left out:
 * it records the very requests that save, restore and read (test/api/request-log/bounds.test.ts
 * checks what a restore does to it).
 */
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { capturedTables } from '../../src/modules/sandbox/sandbox.snapshots.ts';
import type { TestApp } from './harness.ts';

export async function merchantRows(t: TestApp, merchantId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const { table } of [...capturedTables(), { table: 'merchant_clocks' }]) {
    if (table === 'request_logs') continue;
    const rows = await queryRows<{ row: string }>(
      t.database.db,
      sql.raw(
        `SELECT row_to_json(x)::text AS row FROM "${table}" x WHERE merchant_id = '${merchantId}' ORDER BY row_to_json(x)::text`,
      ),
    );
    out[table] = rows.map((row) => row.row);
  }
  // The clock's row also records when it was last written (real time): not part of the state.
  out.merchant_clocks = (out.merchant_clocks ?? []).map((row) => row.replace(/"updated_at":"[^"]*"/, ''));
  return out;
}
