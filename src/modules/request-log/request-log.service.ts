import { and, asc, eq, gt, gte, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { Page } from '../../kernel/pagination.ts';
import { parseInput } from '../../kernel/validation.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import {
  type ListRequestLogsQuery,
  listRequestLogsQuery,
  type RequestLogsInput,
  statusFilter,
} from './request-log.schema.ts';
import { type RequestLogRow, requestLogs } from './request-log.table.ts';
import { flushRequestLog, requestLogSettings } from './request-log.writer.ts';

/**
 * Reading the request log: a page of the merchant's requests, newest first, narrowed by filters, and
 * one request with its bodies. Every read first writes what this process has buffered, so a request
 * answered just before is there.
 */

const iso = (value: string | Date | undefined) => (value instanceof Date ? value.toISOString() : value);

/** The filters as conditions on the merchant's rows. */
function conditions(query: ListRequestLogsQuery): (SQL | undefined)[] {
  const t = requestLogs;
  const status = query.status ? statusFilter(query.status) : null;
  const path = query.path;
  return [
    status
      ? or(
          ...(status.statuses.length > 0 ? [inArray(t.status, status.statuses)] : []),
          ...status.classes.map((k) => and(gte(t.status, k * 100), lt(t.status, k * 100 + 100))),
        )
      : undefined,
    query.method ? eq(t.method, query.method.toUpperCase()) : undefined,
    path === undefined
      ? undefined
      : path.endsWith('*')
        ? sql`starts_with(${t.path}, ${path.slice(0, -1)})`
        : eq(t.path, path),
    query.operation ? eq(t.operation, query.operation) : undefined,
    query.source ? inArray(t.source, query.source.split(',')) : undefined,
    query.idempotency_key ? eq(t.idempotencyKey, query.idempotency_key) : undefined,
    query.created_from ? gte(t.createdAt, new Date(query.created_from)) : undefined,
    query.created_to ? lt(t.createdAt, new Date(query.created_to)) : undefined,
  ];
}

/**
 * GET /v1/requests (and GraphQL's requestLogs): newest first, after `starting_after`; or, with
 * `ending_before`, the oldest page of the requests newer than it (still newest first).
 */
export async function listRequestLogs(
  ctx: ServiceContext,
  input: RequestLogsInput,
): Promise<Page<RequestLogRow>> {
  // GraphQL's arguments are checked here as REST's query is by its route (instants as text).
  const query = parseInput(listRequestLogsQuery, {
    ...input,
    created_from: iso(input.created_from),
    created_to: iso(input.created_to),
  });
  if (query.starting_after && query.ending_before)
    throw new SandbankError('parameter_invalid', {
      param: 'ending_before',
      message: 'Give starting_after (older requests) or ending_before (newer ones), not both.',
    });
  await flushRequestLog(ctx.db);
  // The newest `cap` only: a merchant may hold more until its next trim (request-log.batch.ts).
  const cap = requestLogSettings(ctx.db).maxPerMerchant;
  const filters = [
    ...conditions(query),
    sql`${requestLogs.id} >= COALESCE((SELECT r.id FROM request_logs r WHERE r.merchant_id = ${ctx.merchant.id}
      ORDER BY r.id DESC OFFSET ${cap - 1} LIMIT 1), '')`,
  ];
  if (!query.ending_before) return merchantPage(ctx, requestLogs, query, filters);
  const rows = await dbOf(ctx)
    .select()
    .from(requestLogs)
    .where(
      and(eq(requestLogs.merchantId, ctx.merchant.id), gt(requestLogs.id, query.ending_before), ...filters),
    )
    .orderBy(asc(requestLogs.id))
    .limit(query.limit + 1);
  return {
    data: rows.slice(0, query.limit).reverse(),
    hasMore: rows.length > query.limit,
    nextCursor: null,
  };
}

/** GET /v1/requests/{id}: one request of the merchant, with its bodies (404 when it has none of that id). */
export async function getRequestLog(ctx: ServiceContext, id: string): Promise<RequestLogRow> {
  await flushRequestLog(ctx.db);
  const [row] = await dbOf(ctx)
    .select()
    .from(requestLogs)
    .where(and(eq(requestLogs.id, id), eq(requestLogs.merchantId, ctx.merchant.id)));
  if (!row) throw new SandbankError('resource_not_found', { message: `No request ${id}.`, param: 'id' });
  return row;
}

/** The merchant's requests among `ids` (GraphQL's node and nodes). */
export async function requestLogsByIds(ctx: ServiceContext, ids: string[]): Promise<RequestLogRow[]> {
  await flushRequestLog(ctx.db);
  return merchantRowsByIds(ctx, requestLogs, ids);
}
