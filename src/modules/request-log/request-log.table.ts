import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt } from '../../db/columns.ts';

/**
 * One API request of a merchant (REST or GraphQL, answered or refused), kept for the log's window:
 * what was asked, what was answered and how long it took, with secrets and card data redacted.
 * The id is the request's Request-Id (`req_…`); `created_at` is real time.
 */
export const requestLogs = pgTable(
  'request_logs',
  {
    id: text('id').notNull(),
    merchantId: text('merchant_id').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    /** The REST operation's id (createCollection) or the GraphQL operation's name; null when none matched. */
    operation: text('operation'),
    status: integer('status').notNull(),
    errorCode: text('error_code'),
    idempotencyKey: text('idempotency_key'),
    latencyMs: integer('latency_ms').notNull(),
    /** Who sent it: api (a key), dashboard (a signed-in session), cli, testing (sandbank/testing's helpers). */
    source: text('source').notNull(),
    /** The query string, as sent (redacted). */
    query: text('query'),
    /** The bodies as JSON text, redacted and cut at a cap. */
    requestBody: text('request_body'),
    responseBody: text('response_body'),
    createdAt: createdAt(),
  },
  // One index, the key (merchant, id): every read names the merchant, and an insert pays for one.
  (t) => [primaryKey({ name: 'request_logs_pkey', columns: [t.merchantId, t.id] })],
);

export type RequestLogRow = typeof requestLogs.$inferSelect;
