import { createRoute, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import { processContextOf } from '../deps.ts';
import { type FieldCodes, issueToError } from '../kernel/validation.ts';
import type { ServiceContext } from '../modules/context.ts';
import type { RestEnv } from './types.ts';

/** The service context of an authenticated REST request. */
export function serviceContext(c: Context<RestEnv>): ServiceContext {
  const deps = c.get('deps');
  const { merchant } = c.get('principal');
  const tx = c.get('tx');
  const afterCommit = c.get('afterCommit');
  return {
    ...processContextOf(deps),
    ...(tx ? { tx } : {}),
    ...(tx && afterCommit ? { afterCommit } : {}),
    clock: c.get('clock'),
    merchant,
  };
}

/** Validation failures as the registry's errors; `fieldCodes` names the codes of special fields. */
export function validationHook(fieldCodes: FieldCodes = {}) {
  return (
    result: { success: boolean; error?: z.ZodError; target: string },
    c: Context<RestEnv>,
  ): undefined => {
    if (result.success || !result.error) return undefined;
    const input =
      result.target === 'json' ? c.get('body') : result.target === 'query' ? c.req.query() : c.req.param();
    throw issueToError(result.error.issues, fieldCodes, input);
  };
}

const successResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object' as const } } },
});

const errorResponse = {
  description: 'Error envelope: {status: "error", error: {type, code, message, param?}, request_id}',
};

/** A REST operation for the OpenAPI document, with the error responses every operation shares. */
export function operation<R extends Omit<RouteConfig, 'responses'>>(
  config: R & { summary: string; successStatus?: number },
) {
  const { successStatus = 200, ...route } = config;
  // An operation without parameters of its own still takes a body ({} or none): an unknown field in
  // it is parameter_unknown, as on every other operation, never silently ignored.
  const request =
    route.method === 'post' && !route.request?.body
      ? { ...route.request, ...jsonRequestBody(z.strictObject({}), false) }
      : route.request;
  return createRoute({
    ...route,
    ...(request ? { request } : {}),
    security: [{ bearer: [] }, { basic: [] }],
    responses: {
      [successStatus]: successResponse(config.summary),
      400: errorResponse,
      401: errorResponse,
      403: errorResponse,
      404: errorResponse,
      409: errorResponse,
    },
  } as R & { responses: RouteConfig['responses'] });
}

/** An operation's JSON request body for the OpenAPI document (`required: false` when it may be omitted). */
export function jsonRequestBody<S extends z.ZodType>(schema: S, required = true) {
  return { body: { content: { 'application/json': { schema } }, required } };
}
