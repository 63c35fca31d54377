import { ERROR_CODES, ERROR_REGISTRY, type ErrorCode, SandbankError } from '../kernel/errors.ts';
import { builder } from './builder.ts';

export const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description: 'The error registry shared with REST: the same codes, statuses and types.',
  values: Object.fromEntries(
    ERROR_CODES.map((code) => [code, { value: code, description: `HTTP ${ERROR_REGISTRY[code].status}` }]),
  ) as Record<ErrorCode, { value: ErrorCode; description: string }>,
});

/** Every expected failure of a mutation, as a typed result (plugin-errors). */
export const SandbankErrorRef = builder.objectType(SandbankError, {
  name: 'SandbankError',
  description: 'An expected failure: the same code, type and message as the REST error envelope.',
  fields: (t) => ({
    code: t.field({ type: ErrorCodeEnum, resolve: (error) => error.code }),
    type: t.string({ resolve: (error) => error.type }),
    message: t.exposeString('message'),
    httpStatus: t.int({ resolve: (error) => error.status }),
    param: t.string({ nullable: true, resolve: (error) => error.param ?? null }),
    declineCode: t.string({ nullable: true, resolve: (error) => error.declineCode ?? null }),
    paymentId: t.string({ nullable: true, resolve: (error) => error.objectId ?? null }),
  }),
});
