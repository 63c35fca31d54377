/**
 * The trigger recipes of requests for payment (docs/guide/trigger.md): an outbound request to a
 * payer whose bank pays, rejects, accepts only or ignores it, driven by the clock, or withdrawn.
 */
import {
  checked,
  GOOD_ACCOUNT,
  LABELS,
  labels,
  type Overrides,
  type Recipe,
  ROUTING,
  recipe,
} from '../recipe.ts';
import { RFP_ANSWER_SECONDS, RFP_PAY_SECONDS } from './payment-requests.rules.ts';
import {
  type CreatePaymentRequestInput,
  createPaymentRequestFieldCodes,
  createPaymentRequestSchema,
} from './payment-requests.schema.ts';
import { cancelPaymentRequest, createPaymentRequest } from './payment-requests.service.ts';

const KEYS = ['amount', 'rail', ...LABELS] as const;
const HOUR = 3600;

function requestInput(set: Overrides, accountNumber: string, expiresInSeconds?: number, now = new Date()) {
  return checked<CreatePaymentRequestInput>(
    createPaymentRequestSchema,
    {
      rail: set.rail ?? 'rtp',
      amount: set.amount ?? '25.00',
      currency: 'USD',
      payer: { name: 'Trigger payer', routing_number: ROUTING, account_number: accountNumber },
      ...(expiresInSeconds
        ? { expires_at: new Date(now.getTime() + expiresInSeconds * 1000).toISOString() }
        : {}),
      ...labels(set),
    },
    createPaymentRequestFieldCodes,
  );
}

/** An outbound request to `account`, then the clock advanced `seconds` (0: not moved). */
function outbound(type: string, drives: string, account: string, seconds: number, cancel = false): Recipe {
  return recipe(
    type,
    drives,
    KEYS,
    (set) => {
      requestInput(set, account); // checks the overrides before anything runs
      return async (d) => {
        const row = await createPaymentRequest(
          d.context(),
          requestInput(set, account, seconds ? HOUR : undefined, d.now()),
        );
        if (cancel) await cancelPaymentRequest(d.context(), row.id);
        if (seconds) await d.advance(seconds);
        return row.id;
      };
    },
    seconds > 0,
  );
}

export const paymentRequestRecipes: Recipe[] = [
  outbound(
    'payment_request.created',
    'Sends a request for payment (RTP by default) to a payer.',
    GOOD_ACCOUNT,
    0,
  ),
  outbound(
    'payment_request.accepted',
    "Sends a request for payment to 000888888885, whose bank accepts it, and advances the merchant's clock past the answer.",
    '000888888885',
    RFP_ANSWER_SECONDS + 1,
  ),
  outbound(
    'payment_request.paid',
    "Sends a request for payment to a payer who pays it, and advances the merchant's clock past the answer and the payment.",
    GOOD_ACCOUNT,
    RFP_ANSWER_SECONDS + RFP_PAY_SECONDS + 1,
  ),
  outbound(
    'payment_request.rejected',
    "Sends a request for payment to 000444444440 (closed: rejected AC04) and advances the merchant's clock past the answer.",
    '000444444440',
    RFP_ANSWER_SECONDS + 1,
  ),
  outbound(
    'payment_request.expired',
    "Sends a request for payment expiring in an hour to 000000000009 (never answered) and advances the merchant's clock past the expiry.",
    '000000000009',
    HOUR + 1,
  ),
  outbound('payment_request.canceled', 'Sends a request for payment and cancels it.', GOOD_ACCOUNT, 0, true),
];
