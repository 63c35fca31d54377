import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_REGISTRY, type ErrorCode, SandbankError } from '../kernel/errors.ts';
import type { Page } from '../kernel/pagination.ts';
import { toWireJson } from '../kernel/wire-json.ts';
import { isDatabaseUnavailable } from '../modules/context.ts';
import type { RestEnv } from './types.ts';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

export function sendJson(c: Context<RestEnv>, status: number, body: unknown): Response {
  const text = toWireJson(body);
  c.set('responseText', text);
  return c.body(text, status as ContentfulStatusCode, JSON_HEADERS);
}

/** A single object: its fields beside "status": "success". */
export function sendObject(c: Context<RestEnv>, resource: Record<string, unknown>, status = 200): Response {
  return sendJson(c, status, { status: 'success', ...resource });
}

export function sendList<T>(
  c: Context<RestEnv>,
  page: Page<T>,
  render: (item: T) => Record<string, unknown>,
): Response {
  return sendJson(c, 200, {
    status: 'success',
    data: page.data.map(render),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  });
}

export function errorEnvelope(error: SandbankError, requestId: string): Record<string, unknown> {
  const spec = ERROR_REGISTRY[error.code];
  return {
    status: 'error',
    error: {
      type: spec.type,
      code: error.code,
      message: error.message,
      ...(error.param ? { param: error.param } : {}),
      ...(error.declineCode ? { decline_code: error.declineCode } : {}),
      ...(error.objectId ? { payment_id: error.objectId } : {}),
      ...error.extra,
    },
    request_id: requestId,
  };
}

/** The Retry-After (seconds) an error's answer carries, if its code always has one. */
export function retryAfterOf(error: SandbankError): number | undefined {
  const spec: { retryAfter?: number } = ERROR_REGISTRY[error.code];
  return spec.retryAfter;
}

export function sendError(c: Context<RestEnv>, error: SandbankError): Response {
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
  return sendJson(c, error.status, errorEnvelope(error, c.get('requestId')));
}

/**
 * The registry's code for a request the framework refused while parsing it (its validators and
 * body readers throw HTTPException with a 4xx): the client's mistake, never a 500.
 */
function refusedRequestCode(status: number): ErrorCode {
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 404) return 'route_not_found';
  return 'parameter_invalid';
}

/**
 * Any thrown value as an API error: registered errors as they are, a request the framework refused
 * as the matching 4xx, a database that cannot be reached 503 database_unavailable, everything else
 * a masked 500.
 */
export function toSandbankError(error: unknown): SandbankError {
  if (error instanceof SandbankError) return error;
  if (isDatabaseUnavailable(error)) return new SandbankError('database_unavailable');
  if (error instanceof HTTPException && error.status >= 400 && error.status < 500)
    return new SandbankError(refusedRequestCode(error.status));
  return new SandbankError('internal_error');
}
