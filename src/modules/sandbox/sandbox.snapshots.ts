import { and, asc, eq, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.ts';
import { runTransaction } from '../../db/tx.ts';
import { systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { clockChangeRunning, oneClockChange } from '../clock/clock.change.ts';
import {
  type ClockState,
  forget,
  lockClockRow,
  putClockBack,
  REAL_TIME,
  runningElsewhere,
} from '../clock/clock.service.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { flushRequestLog } from '../request-log/request-log.writer.ts';
import { lockBeforeWipe, resetKinds } from './sandbox.reset.ts';
import { keptWindow, restoreRows } from './sandbox.restore.ts';
import { type SnapshotRow, sandboxSnapshots } from './sandbox.snapshots.table.ts';

export type { SnapshotRow };

/**
 * Snapshots of a merchant's sandbox (docs/guide/snapshots.md): its whole state saved under a name
 * and put back in one transaction, so that a test suite seeds once and every test starts from the
 * seeded state. What is saved is what a reset deletes (every kind the modules' manifests declare),
 * plus the merchant's webhook endpoints and its clock. The rows never leave the database: saving is
 * one INSERT … SELECT of them as JSON, restoring one statement that deletes what changed since and
 * reinserts the saved rows that are missing (jsonb_populate_recordset).
 */

/** The merchant's rows of each table a snapshot holds: a reset's tables (their kinds' subsets) and the endpoints. */
export function capturedTables(): Array<{ table: string; where: string | null }> {
  const byTable = new Map<string, string[] | null>();
  for (const kind of resetKinds()) {
    const current = byTable.get(kind.table);
    if (current === null) continue;
    if (!kind.where) byTable.set(kind.table, null);
    else byTable.set(kind.table, [...(current ?? []), kind.where]);
  }
  byTable.set('webhook_endpoints', null);
  return [...byTable].map(([table, wheres]) => ({
    table,
    where: wheres ? wheres.map((w) => `(${w})`).join(' OR ') : null,
  }));
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function checkName(name: string): void {
  if (!NAME.test(name))
    throw new SandbankError('parameter_invalid', {
      message:
        'A snapshot name is 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit (seeded, before-refunds).',
      param: 'name',
    });
}

function notFound(name: string): SandbankError {
  return new SandbankError('resource_not_found', { message: `No snapshot named "${name}".`, param: 'name' });
}

/** 409 while the merchant's clock is being advanced (here, or by another instance on the database). */
function advancing(): SandbankError {
  return new SandbankError('clock_advancing');
}

/** Saves (or replaces) the calling merchant's snapshot `name`; answers it without its rows. */
export async function saveSnapshot(ctx: ServiceContext, name: string): Promise<SnapshotRow> {
  checkName(name);
  const merchantId = ctx.merchant.id;
  if (clockChangeRunning(merchantId)) throw advancing();
  // The requests answered before this one are in the log it saves.
  await flushRequestLog(ctx.db);
  return runTransaction(dbOf(ctx), async (tx) => {
    const realNow = systemClock.now();
    // The clock's row is locked first, as by every change of the merchant's objects' time: no
    // advance or due work runs halfway through the copy.
    const { hold } = await lockClockRow(tx, merchantId, realNow);
    if (runningElsewhere(hold, realNow)) throw advancing();
    const parts = capturedTables().map(({ table, where }) => {
      const also = where ? sql.raw(` AND (${where})`) : sql``;
      return sql`${table}::text, (SELECT coalesce(jsonb_agg(to_jsonb(r)), '[]'::jsonb) FROM ${sql.raw(table)} r WHERE r.merchant_id = ${merchantId}${also})`;
    });
    const [row] = await queryRows<{ id: string; created_at: string | Date }>(
      tx,
      sql`WITH captured AS (SELECT jsonb_build_object(${sql.join(parts, sql`, `)}) AS rows)
        INSERT INTO sandbox_snapshots (id, merchant_id, name, clock, rows, counts, created_at, base_xmin, base_xid)
        SELECT ${newId('snapshot')}, ${merchantId}, ${name},
          (SELECT jsonb_build_object('offset_ms', c.offset_ms, 'frozen_at', c.frozen_at) FROM merchant_clocks c WHERE c.merchant_id = ${merchantId}),
          captured.rows,
          (SELECT jsonb_object_agg(key, jsonb_array_length(value)) FROM jsonb_each(captured.rows)),
          ${realNow.toISOString()}::timestamptz,
          pg_snapshot_xmin(pg_current_snapshot())::text::bigint, pg_current_xact_id()::text::bigint
        FROM captured
        ON CONFLICT (merchant_id, name) DO UPDATE
          SET id = excluded.id, clock = excluded.clock, rows = excluded.rows, counts = excluded.counts, created_at = excluded.created_at,
            base_xmin = excluded.base_xmin, base_xid = excluded.base_xid
        RETURNING id, created_at`,
    );
    if (!row) throw new Error('saving a snapshot answered no row');
    const [saved] = await tx
      .select(snapshotColumns)
      .from(sandboxSnapshots)
      .where(eq(sandboxSnapshots.id, row.id));
    if (!saved) throw new Error('the saved snapshot is gone');
    return saved;
  });
}

const snapshotColumns = {
  id: sandboxSnapshots.id,
  merchantId: sandboxSnapshots.merchantId,
  name: sandboxSnapshots.name,
  clock: sandboxSnapshots.clock,
  counts: sandboxSnapshots.counts,
  createdAt: sandboxSnapshots.createdAt,
};

/** The calling merchant's snapshots, by name. */
export function listSnapshots(ctx: ServiceContext): Promise<SnapshotRow[]> {
  return dbOf(ctx)
    .select(snapshotColumns)
    .from(sandboxSnapshots)
    .where(eq(sandboxSnapshots.merchantId, ctx.merchant.id))
    .orderBy(asc(sandboxSnapshots.name));
}

/** Deletes the calling merchant's snapshot `name` (404 when it has none of that name). */
export async function deleteSnapshot(ctx: ServiceContext, name: string): Promise<SnapshotRow> {
  checkName(name);
  const [row] = await dbOf(ctx)
    .delete(sandboxSnapshots)
    .where(and(eq(sandboxSnapshots.merchantId, ctx.merchant.id), eq(sandboxSnapshots.name, name)))
    .returning(snapshotColumns);
  if (!row) throw notFound(name);
  return row;
}

/**
 * Puts the calling merchant's sandbox back to its snapshot `name`, in one transaction: the clock's
 * row locked, the rows a reset locks locked, then one statement that deletes every row that is not
 * the snapshot's and inserts the snapshot's rows that are missing (sandbox.restore.ts: rows
 * untouched since the snapshot was saved or last restored stay), and the clock set as saved. 404 for
 * a name the merchant has no snapshot of (another merchant's are never found); 409 while its clock
 * is being advanced. Never touches another merchant's rows.
 */
export async function restoreSnapshot(ctx: ServiceContext, name: string): Promise<SnapshotRow> {
  checkName(name);
  const merchantId = ctx.merchant.id;
  if (clockChangeRunning(merchantId)) throw advancing();
  // The requests answered before this one are written first, so that the restore deletes them too.
  await flushRequestLog(ctx.db);
  const restored = await oneClockChange(ctx, () =>
    runTransaction(dbOf(ctx), async (tx) => {
      const realNow = systemClock.now();
      const { hold } = await lockClockRow(tx, merchantId, realNow);
      if (runningElsewhere(hold, realNow)) throw advancing();
      const [found] = await tx
        .select({
          ...snapshotColumns,
          baseXmin: sandboxSnapshots.baseXmin,
          baseXid: sandboxSnapshots.baseXid,
          current: sql<string>`pg_current_xact_id()::text`,
        })
        .from(sandboxSnapshots)
        .where(and(eq(sandboxSnapshots.merchantId, merchantId), eq(sandboxSnapshots.name, name)));
      if (!found) throw notFound(name);
      const { baseXmin, baseXid, current, ...snapshot } = found;
      await lockBeforeWipe(tx, merchantId);
      const window = keptWindow({ xmin: baseXmin, xid: baseXid }, BigInt(current));
      await restoreRows(tx, snapshot.id, merchantId, capturedTables(), snapshot.counts, window).catch(
        (error: unknown) => {
          throw incompatible(error, name);
        },
      );
      await putClockBack(tx, merchantId, clockOf(snapshot.clock), realNow);
      return snapshot;
    }),
  );
  forget(ctx.db, merchantId);
  return restored;
}

/**
 * A snapshot whose rows the tables no longer take (saved by a version whose tables had other
 * columns or rules): 409, nothing changed (the transaction rolls back). Conflicts between
 * transactions (SQLSTATE class 40) are left to the transaction's own retry.
 */
function incompatible(error: unknown, name: string): unknown {
  // The driver's error, or Drizzle's around it (its cause).
  const failed = error as { code?: unknown; cause?: { code?: unknown } };
  const code = failed.code ?? failed.cause?.code;
  const sqlstate = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
  if (!sqlstate || sqlstate.startsWith('40')) return error;
  return new SandbankError('invalid_state', {
    message: `Snapshot "${name}" cannot be restored: its rows no longer fit the tables (${sqlstate}; saved by another version of Sandbank?). Nothing was changed; save it again.`,
  });
}

function clockOf(saved: SnapshotRow['clock']): ClockState {
  if (!saved) return REAL_TIME;
  return {
    offsetMs: Number(saved.offset_ms),
    frozenAt: saved.frozen_at === null ? null : new Date(saved.frozen_at),
  };
}
