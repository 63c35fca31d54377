import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { newId } from '../../kernel/ids.ts';
import { toWireJson } from '../../kernel/wire-json.ts';
import { fanOutSql } from '../events/events.service.ts';
import type { CollectionRow } from './collections.resource.ts';

interface Pending {
  row: CollectionRow;
  eventData: Record<string, unknown>;
  resolve: (inserted: boolean) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 256;

/** Due work that expires a pending collection at its `expires_at`. */
export const COLLECTION_EXPIRY_JOB = 'collection.expire';

/**
 * Group commit for new collections. Requests that arrive together are written by one statement:
 * `INSERT … ON CONFLICT (merchant_id, reference) DO NOTHING` plus their `collection.created` events
 * and expiry jobs in data-modifying CTEs, so the rows, events and jobs commit atomically (a single statement is
 * its own transaction) and N concurrent requests cost one round trip instead of N transactions.
 * Every caller's promise settles only after that statement has committed, so nothing is
 * acknowledged before it is durable. A reference already taken (even by an earlier row of the same
 * batch) resolves `false` for that caller only.
 */
class CollectionWriter {
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(private readonly db: Db) {}

  insert(row: CollectionRow, eventData: Record<string, unknown>): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ row, eventData, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_BATCH);
      this.#write(batch).catch((error: unknown) => {
        for (const pending of batch) pending.reject(error);
      });
    }
  }

  async #write(batch: Pending[]): Promise<void> {
    const inserted = await queryRows<{ id: string }>(this.db, batchStatement(batch));
    const ids = new Set(inserted.map((r) => r.id));
    for (const pending of batch) pending.resolve(ids.has(pending.row.id));
  }
}

function collectionValues({ row }: Pending): SQL {
  return sql`(${row.id}, ${row.merchantId}, ${row.reference}, ${row.amount.toString()}::bigint, ${row.currency},
    ${row.email}, ${row.description}, ${row.redirectUrl}, ${JSON.stringify(row.metadata)}::jsonb, ${row.state},
    ${row.expiresAt.toISOString()}::timestamptz, ${row.checkoutSecret}, ${row.createdAt.toISOString()}::timestamptz, ${row.updatedAt.toISOString()}::timestamptz)`;
}

function eventValues({ row, eventData }: Pending): SQL {
  return sql`(${newId('event')}::text, ${row.merchantId}::text, ${row.id}::text,
    ${toWireJson(eventData)}::jsonb, ${row.updatedAt.toISOString()}::timestamptz)`;
}

function jobValues({ row }: Pending): SQL {
  return sql`(${newId('job')}::text, ${row.merchantId}::text, ${row.id}::text,
    ${row.expiresAt.toISOString()}::timestamptz, ${row.createdAt.toISOString()}::timestamptz)`;
}

function batchStatement(batch: Pending[]): SQL {
  return sql`WITH inserted AS (
    INSERT INTO collections (id, merchant_id, reference, amount, currency, email, description, redirect_url,
      metadata, state, expires_at, checkout_secret, created_at, updated_at)
    VALUES ${sql.join(batch.map(collectionValues), sql`, `)}
    ON CONFLICT (merchant_id, reference) DO NOTHING
    RETURNING id
  ), created_events AS (
    INSERT INTO events (id, merchant_id, type, object_id, data, created_at)
    SELECT v.id, v.merchant_id, 'collection.created', v.object_id, v.data, v.created_at
    FROM (VALUES ${sql.join(batch.map(eventValues), sql`, `)}) AS v(id, merchant_id, object_id, data, created_at)
    JOIN inserted ON inserted.id = v.object_id
    RETURNING id, merchant_id, type, object_id, created_at
  ), expiry_jobs AS (
    INSERT INTO scheduled_jobs (id, merchant_id, kind, object_id, payload, due_at, state, attempts, created_at)
    SELECT v.id, v.merchant_id, ${COLLECTION_EXPIRY_JOB}, v.object_id, '{}'::jsonb, v.due_at, 'pending', 0, v.created_at
    FROM (VALUES ${sql.join(batch.map(jobValues), sql`, `)}) AS v(id, merchant_id, object_id, due_at, created_at)
    JOIN inserted ON inserted.id = v.object_id
  ), ${fanOutSql(sql.raw('created_events'))}`;
}

const writers = new WeakMap<Db, CollectionWriter>();

/** Inserts a new collection and its created event through the database's group-commit writer. */
export function insertCollection(
  db: Db,
  row: CollectionRow,
  eventData: Record<string, unknown>,
): Promise<boolean> {
  let writer = writers.get(db);
  if (!writer) {
    writer = new CollectionWriter(db);
    writers.set(db, writer);
  }
  return writer.insert(row, eventData);
}
