import { SandbankError } from '../../kernel/errors.ts';
import { StripeError, type StripeErrorType } from '../../modules/stripe/stripe.errors.ts';

/**
 * The native API's errors as Stripe says them: its type, its status, its code where Stripe has one
 * (an unknown native code is passed through as the code, with the native message).
 */

const BY_CODE: Partial<Record<string, { status: number; type: StripeErrorType; code?: string }>> = {
  api_key_missing: { status: 401, type: 'invalid_request_error' },
  api_key_invalid: { status: 401, type: 'invalid_request_error', code: 'api_key_expired' },
  secret_key_required: { status: 401, type: 'invalid_request_error', code: 'secret_key_required' },
  rate_limited: { status: 429, type: 'rate_limit_error', code: 'rate_limit' },
  idempotency_key_reused: { status: 400, type: 'idempotency_error', code: 'idempotency_key_in_use' },
  idempotency_key_in_use: { status: 409, type: 'idempotency_error', code: 'idempotency_key_in_use' },
  idempotency_key_invalid: { status: 400, type: 'invalid_request_error', code: 'idempotency_key_invalid' },
  resource_not_found: { status: 404, type: 'invalid_request_error', code: 'resource_missing' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  card_declined: { status: 402, type: 'card_error', code: 'card_declined' },
  invalid_card_number: { status: 402, type: 'card_error', code: 'incorrect_number' },
  invalid_cvc: { status: 402, type: 'card_error', code: 'invalid_cvc' },
  invalid_expiry: { status: 402, type: 'card_error', code: 'invalid_expiry_year' },
  amount_invalid: { status: 400, type: 'invalid_request_error', code: 'amount_too_large' },
  invalid_state: { status: 400, type: 'invalid_request_error' },
  database_unavailable: { status: 503, type: 'api_error' },
  internal_error: { status: 500, type: 'api_error' },
};

const MESSAGES: Partial<Record<string, string>> = {
  api_key_missing:
    "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
  api_key_invalid: 'Invalid API Key provided.',
  secret_key_required:
    'This API call cannot be made with a publishable API key. Please use a secret API key.',
  idempotency_key_reused:
    'Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than this one if you meant to execute a different request.',
  idempotency_key_in_use:
    'There is currently another in-progress request using this idempotency key. Try again later.',
};

export function toStripeError(error: unknown): StripeError {
  if (error instanceof StripeError) return error;
  if (error instanceof SandbankError) {
    const known = BY_CODE[error.code] ?? { status: error.status, type: 'invalid_request_error' as const };
    return new StripeError(known.status, {
      type: known.type,
      code: known.code ?? (known.status >= 500 || known.status === 401 ? undefined : error.code),
      message: MESSAGES[error.code] ?? error.message,
      param: error.param,
      declineCode: error.declineCode,
    });
  }
  return new StripeError(500, { type: 'api_error', message: 'An unexpected error occurred in Sandbank.' });
}

/** The body of an error answer: `{"error": {…}}`, absent fields left out as Stripe does. */
export function stripeErrorBody(error: StripeError, paymentIntent?: Record<string, unknown>) {
  const { type, code, message, param, declineCode, charge } = error.fields;
  return {
    error: {
      type,
      message,
      ...(code ? { code } : {}),
      ...(declineCode ? { decline_code: declineCode } : {}),
      ...(param ? { param } : {}),
      ...(charge ? { charge } : {}),
      ...(paymentIntent ? { payment_intent: paymentIntent } : {}),
      doc_url: code ? `https://docs.stripe.com/error-codes/${code.replaceAll('_', '-')}` : undefined,
    },
  };
}
