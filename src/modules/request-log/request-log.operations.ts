import { z } from 'zod';
import { defineOperation } from '../operation.ts';
import { RequestLog, RequestLogSummary } from './request-log.resource.ts';
import { listRequestLogsQuery } from './request-log.schema.ts';
import { getRequestLog, listRequestLogs } from './request-log.service.ts';

/**
 * The request log's reads, each declared once: its REST route and its GraphQL field. They are not
 * logged themselves (src/request-log-capture.ts), so a tail never sees its own polling.
 */

const TAGS = ['Request log'];
const idParam = z.object({
  id: z.string().min(1).max(255).describe("The request's id (its Request-Id, req_…)."),
});

/** The operations whose requests the log leaves out: its own reads. */
export const UNLOGGED_OPERATIONS: ReadonlySet<string> = new Set([
  'listRequestLogs',
  'getRequestLog',
  'requestLogs',
  'requestLog',
]);

export const requestLogOperations = [
  defineOperation({
    name: 'listRequestLogs',
    method: 'get',
    path: '/requests',
    tags: TAGS,
    summary:
      "The merchant's API requests, newest first; filter by status, method, path, operation, source, key, time",
    description:
      "Every REST and GraphQL request of the merchant (refused ones too: 4xx and 5xx) kept for the log's window (REQUEST_LOG_RETENTION_HOURS, default 24 hours) and up to its cap (REQUEST_LOG_MAX_PER_MERCHANT, default 1000). Entries come without their bodies: GET /v1/requests/{id} has them. Reads of the log are not logged.",
    query: listRequestLogsQuery,
    output: RequestLogSummary,
    list: true,
    run: (ctx, { query }) => listRequestLogs(ctx, query),
    graphql: {
      name: 'requestLogs',
      returns: 'RequestLog',
      filters: {
        status: 'status',
        method: 'method',
        path: 'path',
        operation: 'operation',
        source: 'source',
        idempotencyKey: 'idempotency_key',
        createdFrom: 'created_from',
        createdTo: 'created_to',
        endingBefore: 'ending_before',
      },
    },
  }),
  defineOperation({
    name: 'getRequestLog',
    method: 'get',
    path: '/requests/{id}',
    tags: TAGS,
    summary: 'Retrieve a request of the log, with its bodies (masked)',
    params: idParam,
    output: RequestLog,
    run: (ctx, { params }) => getRequestLog(ctx, params.id),
    graphql: { name: 'requestLog' },
  }),
];
