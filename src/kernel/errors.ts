/**
 * The one error registry shared by REST and GraphQL (house rule: one error registry, docs/internals/house-rules.md).
 * Every expected failure is a SandbankError carrying a registered code.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'card_error'
  | 'rate_limit_error'
  | 'api_error';

interface ErrorSpec {
  status: number;
  type: ErrorType;
  retryable: boolean;
  message: string;
  /** Every status the code may come with, when more than `status` (its usual one). */
  statuses?: readonly number[];
  /** The Retry-After (seconds) the answer carries, for a code that always has one. */
  retryAfter?: number;
}

const spec = (status: number, type: ErrorType, message: string, retryable = false): ErrorSpec => ({
  status,
  type,
  retryable,
  message,
});

export const ERROR_REGISTRY = {
  api_key_missing: spec(
    401,
    'authentication_error',
    'No API key provided. Send "Authorization: Bearer sk_test_..." (or HTTP Basic with the key as the user name: curl -u sk_test_...:).',
  ),
  api_key_invalid: spec(401, 'authentication_error', 'The API key is unknown or has been revoked.'),
  sign_in_link_invalid: spec(
    401,
    'authentication_error',
    'The dashboard sign-in link is unknown, used or expired; sign in with the secret key.',
  ),
  secret_key_required: spec(
    403,
    'permission_error',
    'This operation needs the secret key (sk_test_...), not the public key.',
  ),
  resource_not_found: spec(404, 'not_found_error', 'No such resource.'),
  route_not_found: spec(404, 'not_found_error', 'No such route.'),
  unsupported_media_type: spec(
    415,
    'invalid_request_error',
    'Request bodies must be application/json or application/x-www-form-urlencoded.',
  ),
  invalid_json: spec(400, 'invalid_request_error', 'The request body is not valid JSON.'),
  payload_too_large: spec(413, 'invalid_request_error', 'The request body is larger than 64 KiB.'),
  parameter_unknown: spec(
    400,
    'invalid_request_error',
    'The request has a parameter this operation does not know.',
  ),
  parameter_missing: spec(400, 'invalid_request_error', 'A required parameter is missing.'),
  parameter_invalid: spec(400, 'invalid_request_error', 'A parameter has an invalid value.'),
  override_not_applicable: spec(
    400,
    'invalid_request_error',
    'This override cannot be set on this event type; the message lists the ones it accepts.',
  ),
  amount_invalid: spec(
    400,
    'invalid_request_error',
    'The amount is not a valid amount for this currency and operation.',
  ),
  currency_unsupported: spec(400, 'invalid_request_error', 'This currency is not supported here.'),
  email_invalid: spec(400, 'invalid_request_error', 'The email address is not valid.'),
  reference_invalid: spec(
    400,
    'invalid_request_error',
    'A reference is 1-100 characters of A-Z a-z 0-9 . _ : -.',
  ),
  url_invalid: spec(400, 'invalid_request_error', 'The URL is not a valid http(s) URL.'),
  idempotency_key_invalid: spec(
    400,
    'invalid_request_error',
    'An Idempotency-Key is 1-255 printable characters.',
  ),
  idempotency_key_reused: spec(
    422,
    'invalid_request_error',
    'This Idempotency-Key was used with a different request.',
  ),
  idempotency_key_in_use: spec(
    409,
    'conflict_error',
    'A request with this Idempotency-Key is still being processed.',
    true,
  ),
  conformance_run_in_progress: spec(
    409,
    'conflict_error',
    'A conformance run is already going on this endpoint (or the merchant has as many going as it may); wait for it to end.',
  ),
  duplicate_reference: spec(409, 'conflict_error', 'A collection with this reference already exists.'),
  invalid_state: spec(409, 'conflict_error', 'The object is not in a state that allows this operation.'),
  time_frame_passed: spec(
    409,
    'conflict_error',
    "The Nacha time frame for this step has passed: the message names its last allowed instant, the error's deadline field the first instant it was refused.",
  ),
  collection_not_payable: spec(409, 'conflict_error', 'This collection can no longer be paid.'),
  invalid_card_number: spec(400, 'invalid_request_error', 'The card number is not a valid card number.'),
  card_brand_unsupported: spec(
    400,
    'invalid_request_error',
    'Only Visa, Mastercard and American Express cards are accepted.',
  ),
  invalid_cvc: spec(400, 'invalid_request_error', 'The CVC has the wrong length for this card brand.'),
  invalid_expiry: spec(400, 'invalid_request_error', 'The expiry month or year is not valid.'),
  card_declined: spec(402, 'card_error', 'The card was declined.'),
  token_already_used: spec(400, 'invalid_request_error', 'This card token has already been used.'),
  token_expired: spec(400, 'invalid_request_error', 'This card token has expired (tokens last 15 minutes).'),
  invalid_routing_number: spec(400, 'invalid_request_error', 'The routing number fails the ABA checksum.'),
  invalid_account_number: spec(400, 'invalid_request_error', 'An account number is 4-17 digits.'),
  rail_direction_unsupported: spec(
    400,
    'invalid_request_error',
    'RTP and FedNow only push money: instant transfers are credits.',
  ),
  amount_exceeds_rail_limit: spec(400, 'invalid_request_error', 'The amount is over the limit of this rail.'),
  routing_number_unreachable: spec(
    400,
    'invalid_request_error',
    'The routing number is not reachable on this rail.',
  ),
  return_code_not_allowed: spec(
    400,
    'invalid_request_error',
    "This Nacha code cannot be used here: its category or the entry's direction rules it out (the message says which).",
  ),
  counterparty_verification_failed: spec(
    409,
    'conflict_error',
    'This saved counterparty failed its account verification; verify it again before using it.',
  ),
  counterparty_verification_pending: spec(
    409,
    'conflict_error',
    "This saved counterparty's account verification does not allow this entry yet (a prenote's waiting period, micro-deposits to confirm, or a WEB debit from an unverified account); the message says which.",
  ),
  statement_not_ready: spec(
    409,
    'conflict_error',
    "This banking day has not ended on the merchant's clock: its statement is produced at the end of the day; the error's ready_at says when.",
  ),
  microdeposit_amounts_mismatch: spec(
    400,
    'invalid_request_error',
    "The amounts are not the micro-deposits sent: the attempt counts, and the error's attempts_remaining says how many are left.",
  ),
  dispute_reason_code_invalid: spec(
    400,
    'invalid_request_error',
    "This reason code is not one of the payment's card network, is retired, or does not fit the reason given (the message says which).",
  ),
  dispute_window_closed: spec(
    409,
    'conflict_error',
    "The cardholder's window for this reason code is over; the error's deadline field names the first instant refused.",
  ),
  return_deadline_passed: spec(
    409,
    'conflict_error',
    "The time frame of this return code is over; the error's deadline field names when it ended.",
  ),
  clock_backwards: spec(400, 'invalid_request_error', 'The simulated clock only moves forward.'),
  clock_advancing: spec(
    409,
    'conflict_error',
    "The merchant's clock is being advanced; try again once the advance has answered.",
  ),
  insufficient_balance: spec(
    422,
    'invalid_request_error',
    'The available balance is too low for this operation.',
  ),
  quote_expired: spec(422, 'invalid_request_error', 'The FX quote has expired; ask for a new one.'),
  quote_already_used: spec(409, 'conflict_error', 'The FX quote has already been used.'),
  destination_invalid: spec(
    400,
    'invalid_request_error',
    'The destination account abroad is not valid (IBAN, or Japanese bank, branch and account).',
  ),
  rate_limited: spec(
    429,
    'rate_limit_error',
    'Too many requests; retry after the time in Retry-After.',
    true,
  ),
  query_rejected: spec(400, 'invalid_request_error', 'The GraphQL document was rejected before execution.'),
  limit_exceeded: spec(400, 'invalid_request_error', 'A limit of this sandbox was reached.'),
  transaction_conflict: spec(
    409,
    'conflict_error',
    'Concurrent requests on the same balances kept colliding; nothing was written. Retry the request.',
    true,
  ),
  fixture_step_failed: spec(
    422,
    'invalid_request_error',
    'A step of the fixture failed; the steps before it ran and are kept (error.fixture lists them).',
  ),
  internal_error: spec(500, 'api_error', 'Something went wrong on our side.', true),
  database_unavailable: {
    ...spec(
      503,
      'api_error',
      "The sandbox's database cannot be reached right now. Retry after the time in Retry-After (a POST with the same Idempotency-Key).",
      true,
    ),
    retryAfter: 1,
  },
  conformance_fault: {
    ...spec(
      503,
      'api_error',
      'A webhook conformance run failed this call on purpose, to see how the handler under test recovers; nothing was done. Retry the request.',
      true,
    ),
    retryAfter: 1,
  },
  chaos_injected: {
    ...spec(
      503,
      'api_error',
      "A fault asked for by Sandbank-Chaos or the merchant's chaos setting; nothing was done. Retry the request.",
      true,
    ),
    statuses: [429, 500, 502, 503, 504],
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;
export const ERROR_CODES = Object.keys(ERROR_REGISTRY) as ErrorCode[];

export interface ErrorDetails {
  message?: string;
  param?: string;
  declineCode?: string;
  /** Id of an object the failed operation still created (a declined payment). */
  objectId?: string;
  /** True when the operation's writes must be committed although it failed (a recorded decline). */
  commitWrites?: boolean;
  /** The status, for a code whose registry entry lists several (`statuses`). */
  status?: number;
  /** More fields of the error object, beside code and message (a failed fixture's steps). */
  extra?: Record<string, unknown>;
}

export class SandbankError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly declineCode: string | undefined;
  readonly objectId: string | undefined;
  readonly commitWrites: boolean;
  readonly extra: Record<string, unknown> | undefined;
  readonly #status: number | undefined;

  constructor(code: ErrorCode, details: ErrorDetails = {}) {
    super(details.message ?? ERROR_REGISTRY[code].message);
    this.name = 'SandbankError';
    this.code = code;
    this.param = details.param;
    this.declineCode = details.declineCode;
    this.objectId = details.objectId;
    this.commitWrites = details.commitWrites ?? false;
    this.extra = details.extra;
    this.#status = details.status;
  }

  get status(): number {
    return this.#status ?? ERROR_REGISTRY[this.code].status;
  }

  get type(): ErrorType {
    return ERROR_REGISTRY[this.code].type;
  }
}

export function isSandbankError(value: unknown): value is SandbankError {
  return value instanceof SandbankError;
}
