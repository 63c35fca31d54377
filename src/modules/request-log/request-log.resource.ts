import { defineObject, field } from '../../kernel/declare.ts';
import { REQUEST_SOURCES } from './request-log.entry.ts';
import type { RequestLogRow } from './request-log.table.ts';

export type { RequestLogRow } from './request-log.table.ts';

/**
 * An entry of the request log: one API request of the merchant, answered or refused. Its fields
 * without the bodies (a list's entries) and with them (one entry).
 */

const DESCRIPTION =
  "One API request of the merchant (REST under /v1 or GraphQL at /graphql), answered or refused, as the request log keeps it for its window: what was asked, what was answered and how long it took. Its id is the request's Request-Id. Card data and secrets in its bodies are masked.";

const summaryFields = {
  method: field.text<RequestLogRow>('The HTTP method (GET, POST, DELETE).'),
  path: field.text<RequestLogRow>('The path, without the query string (/v1/card_payments, /graphql).'),
  operation: field.nullableText<RequestLogRow>(
    "REST's operationId (createCardPayment), or the GraphQL operation's name (its first root field when unnamed); null when no operation matched (a path with no route).",
  ),
  // `status` is the envelope's ("success"): the answer's HTTP status is status_code.
  status_code: field.int<RequestLogRow>(
    'The HTTP status of the answer (the status filter matches it).',
    (row) => row.status,
  ),
  error_code: field.nullableText<RequestLogRow>(
    "The error's code (card_declined, parameter_invalid) when the answer was an error; null otherwise.",
  ),
  idempotency_key: field.nullableText<RequestLogRow>('The Idempotency-Key the request carried, if any.'),
  latency_ms: field.int<RequestLogRow>('How long the answer took, in milliseconds.'),
  source: field.enum<RequestLogRow, typeof REQUEST_SOURCES>(
    REQUEST_SOURCES,
    'Who sent it: api (a key), dashboard (GraphiQL with the dashboard session), cli (the sandbank CLI), testing (sandbank/testing).',
  ),
  query: field.nullableText<RequestLogRow>(
    'The query string as sent, without its "?" (masked); null when none.',
  ),
  created_at: field.timestamp<RequestLogRow>('When the request arrived, real time (not the clock).'),
};

const bodyFields = {
  request_body: field.nullableText<RequestLogRow>(
    'The request body as JSON text (a GraphQL request: its query, operation name and variables), card data and secrets masked, cut at 8,192 characters (then ending in "… [cut: N characters in all]"); null without a body.',
  ),
  response_body: field.nullableText<RequestLogRow>(
    'The answer as JSON text, masked and cut the same way; null for a file or an answer that is not JSON.',
  ),
};

export const RequestLog = defineObject<RequestLogRow>()('RequestLog', 'request_log', DESCRIPTION, {
  ...summaryFields,
  ...bodyFields,
});

/** A list's entry: the fields without the bodies (GET /v1/requests/{id} has them). */
export const RequestLogSummary = defineObject<RequestLogRow>()(
  'RequestLogSummary',
  'request_log',
  `${DESCRIPTION} In a list, without its bodies (GET /v1/requests/{id} has them).`,
  summaryFields,
);
