import {
  ERROR_CODES,
  ERROR_REGISTRY,
  type ErrorCode,
  type ErrorType,
  SandbankError,
} from '../kernel/errors.ts';
import { builder } from './builder.ts';
import { describedEnum } from './enums.ts';

/** The status(es) REST answers a code with ("429, 500, 502, 503 or 504" for chaos_injected). */
function httpStatuses(code: ErrorCode): string {
  const spec: { status: number; statuses?: readonly number[] } = ERROR_REGISTRY[code];
  const all = (spec.statuses ?? [spec.status]).map(String);
  return all.length === 1 ? (all[0] ?? '') : `${all.slice(0, -1).join(', ')} or ${all.at(-1)}`;
}

export const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description: 'The error registry shared with REST: the same codes, statuses and types.',
  values: Object.fromEntries(
    ERROR_CODES.map((code) => [
      code,
      { value: code, description: `HTTP ${httpStatuses(code)}: ${ERROR_REGISTRY[code].message}` },
    ]),
  ) as Record<ErrorCode, { value: ErrorCode; description: string }>,
});

export const ErrorTypeEnum = describedEnum(
  'ErrorType',
  "The family of an error code, as REST's error.type names it.",
  {
    invalid_request_error: 'The request is wrong: a parameter, a body, a limit (HTTP 400, 413, 415, 422).',
    authentication_error: 'The API key is missing, unknown or revoked (HTTP 401).',
    permission_error: 'The key may not do this (the public key) (HTTP 403).',
    not_found_error: 'No such object or route (HTTP 404).',
    conflict_error: "The object's state or another request is in the way (HTTP 409).",
    card_error: 'The card was declined (HTTP 402).',
    rate_limit_error: 'Too many requests (HTTP 429).',
    api_error:
      'Something went wrong on the server (HTTP 500), or its database cannot be reached (HTTP 503, database_unavailable).',
  } satisfies Record<ErrorType, string>,
);

/** Every expected failure of a mutation, as a typed result (plugin-errors). */
export const SandbankErrorRef = builder.objectType(SandbankError, {
  name: 'SandbankError',
  description: 'An expected failure: the same code, type and message as the REST error envelope.',
  fields: (t) => ({
    code: t.expose('code', { type: ErrorCodeEnum, description: "The error's code, as REST's error.code." }),
    type: t.expose('type', { type: ErrorTypeEnum, description: "The code's family, as REST's error.type." }),
    message: t.exposeString('message', { description: 'What went wrong, for a person.' }),
    httpStatus: t.exposeInt('status', { description: 'The HTTP status REST answers this error with.' }),
    param: t.string({
      nullable: true,
      description: 'The parameter at fault, named as REST names it (snake_case), when there is one.',
      resolve: (error) => error.param ?? null,
    }),
    declineCode: t.string({
      nullable: true,
      description: 'Why the card was declined (card_declined).',
      resolve: (error) => error.declineCode ?? null,
    }),
    paymentId: t.string({
      nullable: true,
      description: 'The id of the declined card payment (card_declined): the decline is recorded.',
      resolve: (error) => error.objectId ?? null,
    }),
  }),
});
