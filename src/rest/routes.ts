import { createRoute, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import { ERROR_REGISTRY, type ErrorCode } from '../kernel/errors.ts';
import { type FieldCodes, issueToError } from '../kernel/validation.ts';
import { processContextOf, type ServiceContext } from '../modules/context.ts';
import type { RestEnv } from './types.ts';

/** The service context of an authenticated REST request. */
export function serviceContext(c: Context<RestEnv>): ServiceContext {
  const deps = c.get('deps');
  const { merchant } = c.get('principal');
  const tx = c.get('tx');
  return {
    ...processContextOf(deps),
    ...(tx ? { tx } : {}),
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

/** The success body of an operation: `response`'s fields beside "status": "success". */
function successBody(response: z.ZodType) {
  return z
    .object({ status: z.literal('success').meta({ description: 'Every 2xx body says "success".' }) })
    .and(response);
}

/**
 * A page of `item`s as every list operation answers it (registered as the component `<name>List`).
 * `has_more` says whether a next page exists; pass `next_cursor` as `starting_after` to fetch it.
 */
export function listOf<S extends z.ZodType>(item: S, name: string) {
  return z
    .object({
      data: z.array(item).meta({ description: 'The objects of this page, newest first.' }),
      has_more: z.boolean().meta({ description: 'Whether another page follows.' }),
      next_cursor: z
        .string()
        .nullable()
        .meta({ description: 'Pass as starting_after to fetch the next page; null on the last page.' }),
    })
    .meta({ id: `${name}List`, description: `A page of ${name} objects.` });
}

/**
 * The extension that marks a keyed POST taking no Idempotency-Key (`x-idempotent: false`); the
 * document adds the Idempotency-Key parameter to every other keyed POST.
 */
export const IDEMPOTENT_EXTENSION = 'x-idempotent';

/** The codes every operation may answer with, whatever it does. */
const EVERY_OPERATION: readonly ErrorCode[] = [
  'parameter_invalid',
  'parameter_unknown',
  'parameter_missing',
  'internal_error',
  'database_unavailable',
];
/** The codes of an operation that needs a key (the rate limit counts per key). */
const KEYED: readonly ErrorCode[] = ['api_key_missing', 'api_key_invalid', 'rate_limited'];
/** The keyed paths chaos never faults: its own setting, so it can always be cleared. */
export const CHAOS_FREE_PATHS: ReadonlySet<string> = new Set(['/simulate/chaos']);
/** The codes of reading a request body. */
const WITH_BODY: readonly ErrorCode[] = ['invalid_json', 'payload_too_large', 'unsupported_media_type'];
/** The codes of an idempotent write (every keyed POST). */
const IDEMPOTENT: readonly ErrorCode[] = [
  'idempotency_key_invalid',
  'idempotency_key_reused',
  'idempotency_key_in_use',
  'transaction_conflict',
];

export interface OperationConfig extends Omit<RouteConfig, 'responses'> {
  /** The method name a generated client gives this operation (`createCollection`). */
  operationId: string;
  summary: string;
  /** The success body's own fields (a resource schema, or `listOf(…)`); "status" is added. */
  response: z.ZodType;
  /** The codes this operation answers with beyond those every operation of its kind shares. */
  errors?: readonly ErrorCode[];
  successStatus?: number;
  /** The media types of a file it answers with instead of a JSON body (the body is the file's text). */
  file?: readonly string[];
  /** Answered without an API key (no security requirement, no rate limit, no idempotency). */
  keyless?: boolean;
  /** The public key may call it too (no secret_key_required). */
  publicKey?: boolean;
  /**
   * `false` for a keyed POST that is never stored for replay (its handler refuses an
   * Idempotency-Key): the document offers no Idempotency-Key there and marks it `x-idempotent: false`.
   */
  idempotent?: boolean;
  /**
   * The operation commits in several transactions of its own (a clock advance, batch by batch), so
   * a keyed request's answer is stored after it has run instead of in one transaction with its
   * writes (idempotency.service.ts, runIdempotent's `ownTransactions`).
   */
  ownTransactions?: boolean;
  /**
   * Expensive work (a clock advance, a fixture, a trigger recipe, a reset): a merchant runs only a
   * few at once, the others wait in its lane (api/rest/middleware/lanes.ts), so that they queue behind
   * each other instead of in front of every other merchant's requests.
   */
  heavy?: boolean;
}

/** Whether a keyed POST takes an Idempotency-Key (stored and replayed). */
function takesIdempotencyKey(config: OperationConfig): boolean {
  return config.method === 'post' && !config.keyless && config.idempotent !== false;
}

/** The keyed POSTs whose handling differs by what they declare, by path pattern (under /v1). */
const postOperations = new Map<string, { pattern: RegExp; config: OperationConfig }>();

function declaredPost(method: string, path: string): OperationConfig | undefined {
  if (method !== 'POST') return undefined;
  for (const { pattern, config } of postOperations.values()) if (pattern.test(path)) return config;
  return undefined;
}

/** Whether a request is to an operation declared `ownTransactions`. */
export function runsOwnTransactions(method: string, path: string): boolean {
  return declaredPost(method, path)?.ownTransactions === true;
}

/** Whether a request is to an operation declared `heavy` (it waits in its merchant's lane). */
export function isHeavy(method: string, path: string): boolean {
  return declaredPost(method, path)?.heavy === true;
}

/**
 * Whether a request is to a keyed POST declared `idempotent: false`: the idempotency middleware
 * leaves it alone (no stored answer is looked up, reused or locked), and its handler refuses a key.
 */
export function isUnreplayed(method: string, path: string): boolean {
  const config = declaredPost(method, path);
  return config !== undefined && !config.keyless && config.idempotent === false;
}

/** Every code `config` may answer with: its own, and those its method, key and path imply. */
export function errorCodesOf(config: OperationConfig): ErrorCode[] {
  const codes = new Set<ErrorCode>([...EVERY_OPERATION, ...(config.errors ?? [])]);
  const add = (list: readonly ErrorCode[]) => {
    for (const code of list) codes.add(code);
  };
  if (!config.keyless) add(KEYED);
  // Chaos (docs/guide/chaos.md) faults every keyed operation but the one that sets it.
  if (!config.keyless && !CHAOS_FREE_PATHS.has(config.path)) codes.add('chaos_injected');
  if (!config.keyless && !config.publicKey) codes.add('secret_key_required');
  if (config.method === 'post') add(WITH_BODY);
  if (takesIdempotencyKey(config)) add(IDEMPOTENT);
  if (config.path.includes('{')) codes.add('resource_not_found');
  return [...codes];
}

/** Error responses by status, each listing its codes (`x-error-codes`, which the suite checks). */
function errorResponses(codes: readonly ErrorCode[]): Record<number, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const spec: { status: number; statuses?: readonly number[] } = ERROR_REGISTRY[code];
    for (const status of spec.statuses ?? [spec.status])
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: `Error: ${list.join(', ')}.`,
      headers: {
        ...errorHeaders(status),
        ...(list.includes('chaos_injected')
          ? { 'Sandbank-Chaos-Injected': header('Sandbank-Chaos-Injected') }
          : {}),
      },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      'x-error-codes': list,
    };
  }
  return responses;
}

/**
 * A REST operation for the OpenAPI document: its success body, the errors it may answer with (by
 * status, from the registry), its headers, and an id for generated clients.
 */
export function operation<R extends OperationConfig>(config: R) {
  if (config.method === 'post')
    postOperations.set(config.path, {
      pattern: new RegExp(`^/v1${config.path.replace(/\{[^}/]+\}/g, '[^/]+')}$`),
      config,
    });
  const {
    successStatus = 200,
    response,
    errors: _errors,
    keyless,
    publicKey: _publicKey,
    idempotent: _idempotent,
    ownTransactions: _ownTransactions,
    heavy: _heavy,
    file,
    ...route
  } = config;
  // An operation without parameters of its own still takes a body ({} or none): an unknown field in
  // it is parameter_unknown, as on every other operation, never silently ignored.
  const request =
    route.method === 'post' && !route.request?.body
      ? { ...route.request, ...jsonRequestBody(z.strictObject({}), false) }
      : route.request;
  return createRoute({
    ...route,
    ...(request ? { request } : {}),
    security: keyless ? [] : [{ bearer: [] }, { basic: [] }],
    ...(route.method === 'post' && !keyless && !takesIdempotencyKey(config)
      ? { [IDEMPOTENT_EXTENSION]: false }
      : {}),
    responses: {
      [successStatus]: {
        description: config.summary,
        headers: successHeaders(config),
        content: file
          ? Object.fromEntries(
              file.map((type) => [type, { schema: z.string().meta({ description: 'The file, as it is.' }) }]),
            )
          : { 'application/json': { schema: successBody(response) } },
      },
      ...errorResponses(errorCodesOf(config)),
    },
  } as unknown as R & { responses: RouteConfig['responses'] });
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

function successHeaders(config: OperationConfig): Record<string, unknown> {
  return {
    'Request-Id': header('Request-Id'),
    ...(config.keyless ? {} : rateLimitHeaders()),
    ...(config.keyless || CHAOS_FREE_PATHS.has(config.path)
      ? {}
      : { 'Sandbank-Chaos-Injected': header('Sandbank-Chaos-Injected') }),
    ...(takesIdempotencyKey(config) ? { 'Idempotent-Replayed': header('Idempotent-Replayed') } : {}),
  };
}

function rateLimitHeaders(): Record<string, unknown> {
  return {
    'RateLimit-Limit': header('RateLimit-Limit'),
    'RateLimit-Remaining': header('RateLimit-Remaining'),
    'RateLimit-Reset': header('RateLimit-Reset'),
  };
}

function errorHeaders(status: number): Record<string, unknown> {
  return {
    'Request-Id': header('Request-Id'),
    ...(status === 429 ? { 'Retry-After': header('Retry-After'), ...rateLimitHeaders() } : {}),
    ...(status === 503 ? { 'Retry-After': header('Retry-After') } : {}),
  };
}

/** An operation's JSON request body for the OpenAPI document (`required: false` when it may be omitted). */
export function jsonRequestBody<S extends z.ZodType>(schema: S, required = true) {
  return { body: { content: { 'application/json': { schema } }, required } };
}
