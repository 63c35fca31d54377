import { redactDocument, redactJson, redactQuery, redactText, storable } from './request-log.redact.ts';
import type { requestLogs } from './request-log.table.ts';

/**
 * One request as the HTTP stack captures it (src/request-log-capture.ts), before its bodies are
 * masked: that is done when it is written (rowOf), off the request's path.
 */

/** Who sent a request (docs/guide/request-log.md). */
export const REQUEST_SOURCES = ['api', 'dashboard', 'cli', 'testing'] as const;
export type RequestSource = (typeof REQUEST_SOURCES)[number];

/** The User-Agent prefixes of Sandbank's own clients: the CLI, and sandbank/testing's helpers. */
export const CLI_AGENT_PREFIX = 'sandbank-cli/';
export const TESTING_AGENT_PREFIX = 'sandbank-testing/';

/** The request's body as it came: a parsed JSON (or form) body, a text that did not parse, a GraphQL request. */
export type CapturedBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'graphql'; query: string | null; operationName: string | null; variables: unknown };

export interface CapturedRequest {
  /** The request's Request-Id (req_…). */
  id: string;
  merchantId: string;
  method: string;
  path: string;
  operation: string | null;
  status: number;
  errorCode: string | null;
  idempotencyKey: string | null;
  latencyMs: number;
  source: RequestSource;
  /** The query string as sent, without its `?` (null when there is none). */
  query: string | null;
  requestBody: CapturedBody | null;
  /** The answer's JSON text (null for a file, or an answer that is not JSON). */
  responseBody: string | null;
  /** When the request arrived, real time. */
  createdAt: Date;
}

/**
 * Where a request comes from: the dashboard when it rode a dashboard session (GraphiQL there), the
 * CLI or sandbank/testing by their User-Agent, else the API.
 */
export function sourceOf(userAgent: string | null | undefined, viaSession: boolean): RequestSource {
  if (viaSession) return 'dashboard';
  if (userAgent?.startsWith(CLI_AGENT_PREFIX)) return 'cli';
  if (userAgent?.startsWith(TESTING_AGENT_PREFIX)) return 'testing';
  return 'api';
}

/** The `error.code` of an error answer's JSON text (REST's envelope, or GraphQL's first error), or null. */
export function errorCodeOf(text: string | null): string | null {
  if (text === null) return null;
  const code = /"code":"([A-Za-z0-9_]{1,64})"/.exec(text);
  return code?.[1] ?? null;
}

function bodyText(body: CapturedBody | null): string | null {
  if (body === null) return null;
  if (body.kind === 'text') return redactText(body.text);
  if (body.kind === 'json') return redactJson(JSON.stringify(body.value) ?? 'null');
  const parts = [
    `"operationName":${JSON.stringify(body.operationName)}`,
    `"query":${JSON.stringify(body.query === null ? null : redactDocument(body.query))}`,
    `"variables":${redactJson(JSON.stringify(body.variables ?? null) ?? 'null')}`,
  ];
  return `{${parts.join(',')}}`;
}

const text = (value: string | null, cap?: number) => (value === null ? null : storable(value, cap));

/** The row of a captured request: bodies and query string masked and cut, every text storable. */
export function rowOf(entry: CapturedRequest): typeof requestLogs.$inferInsert {
  return {
    id: entry.id,
    merchantId: entry.merchantId,
    method: storable(entry.method, 16),
    path: storable(entry.path, 2048),
    operation: text(entry.operation, 255),
    status: entry.status,
    errorCode: text(entry.errorCode, 64),
    idempotencyKey: text(entry.idempotencyKey, 255),
    latencyMs: entry.latencyMs,
    source: entry.source,
    query: text(entry.query === null ? null : redactQuery(entry.query)),
    requestBody: text(bodyText(entry.requestBody)),
    responseBody: text(entry.responseBody === null ? null : redactJson(entry.responseBody)),
    createdAt: entry.createdAt,
  };
}
