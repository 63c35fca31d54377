/**
 * An error of the Stripe dialect, as Stripe answers it (`{"error": {type, code, message, param, …}}`
 * with its HTTP status): what a Stripe client reads, not the native API's error codes. The adapter
 * (src/api/stripe) renders it, and maps the native services' errors onto it.
 */
export type StripeErrorType =
  | 'api_error'
  | 'card_error'
  | 'idempotency_error'
  | 'invalid_request_error'
  | 'authentication_error'
  | 'rate_limit_error';

export interface StripeErrorFields {
  type: StripeErrorType;
  code?: string | undefined;
  message: string;
  param?: string | undefined;
  declineCode?: string | undefined;
  /** The charge (a card payment's `ch_` id) of a declined attempt. */
  charge?: string | undefined;
  /** The PaymentIntent of a declined confirmation, rendered by the adapter. */
  paymentIntentId?: string | undefined;
}

export class StripeError extends Error {
  readonly status: number;
  readonly fields: StripeErrorFields;
  /** The writes made before it stand (a declined card's attempt is kept, as Stripe keeps it). */
  readonly commitWrites: boolean;

  constructor(status: number, fields: StripeErrorFields, commitWrites = false) {
    super(fields.message);
    this.status = status;
    this.fields = fields;
    this.commitWrites = commitWrites;
  }
}

/** `No such payment_intent: 'pi_…'` (404), as Stripe names a missing object. */
export function noSuch(object: string, id: string, param = 'id'): StripeError {
  return new StripeError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${object}: '${id}'`,
    param,
  });
}

/** A parameter's value refused: 400, naming it. */
export function invalidParam(param: string, message: string, code = 'parameter_invalid_string'): StripeError {
  return new StripeError(400, { type: 'invalid_request_error', code, message, param });
}

/** An object that is not in a state the call needs. */
export function unexpectedState(code: string, message: string): StripeError {
  return new StripeError(400, { type: 'invalid_request_error', code, message });
}
