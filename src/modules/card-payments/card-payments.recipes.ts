/** The trigger recipes of card payments and their refunds (docs/guide/trigger.md). */
import { SandbankError } from '../../kernel/errors.ts';
import { parseAmount } from '../../kernel/money.ts';
import { magicBehavior, TEST_CARDS, testCardExpiry } from '../cards/magic-cards.ts';
import {
  checked,
  DAY,
  LABELS,
  labels,
  type Overrides,
  type Recipe,
  type RecipeDriver,
  recipe,
  VISA,
} from '../recipe.ts';
import { createCardPayment } from './card-payments.authorize.ts';
import { voidCardPayment } from './card-payments.capture.ts';
import { refundCardPayment } from './card-payments.refund.ts';
import {
  type CreateCardPaymentInput,
  createCardPaymentFieldCodes,
  createCardPaymentSchema,
  type RefundInput,
} from './card-payments.schema.ts';

const THREE_DS_CARD = '4000002500003155';
const REFUND_PENDING_CARD = '4000000000007726';
const REFUND_FAILS_CARD = '4000000000005126';

/** The magic card that declines with each decline code. */
const DECLINE_CARDS = new Map(
  TEST_CARDS.flatMap((card) => {
    const behavior = magicBehavior(card);
    return behavior.kind === 'decline' ? [[behavior.code as string, card.number] as const] : [];
  }),
);

/** POST /v1/card_payments: the payment's id (a dispute's recipe pays first too). */
export async function createCardPaymentId(d: RecipeDriver, input: CreateCardPaymentInput): Promise<string> {
  return (await createCardPayment(d.context(), input)).id;
}

/** A payment the network declines: committed, then refused with card_declined naming it. */
async function createDeclinedCardPayment(d: RecipeDriver, input: CreateCardPaymentInput): Promise<string> {
  try {
    await createCardPayment(d.context(), input);
  } catch (error) {
    if (error instanceof SandbankError && error.code === 'card_declined' && error.objectId)
      return error.objectId;
    throw error;
  }
  throw new SandbankError('invalid_state', { message: 'The card was not declined.' });
}

/** POST /v1/card_payments/{id}/refunds: the refund's id. */
async function refund(
  d: RecipeDriver,
  id: string,
  input: { amount?: string; reason?: RefundInput['reason'] | undefined },
): Promise<string> {
  const { refund } = await refundCardPayment(d.context(), id, {
    ...(input.amount ? { amount: input.amount } : {}),
    ...(input.reason ? { reason: input.reason } : {}),
  });
  return refund.id;
}

const PAYMENT_KEYS = ['amount', 'currency', ...LABELS] as const;

function paymentInput(set: Overrides, number: string, capture: boolean, now: Date) {
  return checked<CreateCardPaymentInput>(
    createCardPaymentSchema,
    {
      amount: set.amount ?? '25.00',
      currency: set.currency ?? 'USD',
      card: { number, exp_month: testCardExpiry(now).month, exp_year: testCardExpiry(now).year, cvc: '123' },
      capture,
      ...labels(set),
    },
    createCardPaymentFieldCodes,
  );
}

/** A recipe whose payment is made with `number`, then driven by `then` (given the payment's id). */
function paymentRecipe(
  type: string,
  drives: string,
  options: {
    number?: string;
    capture: boolean;
    accepts?: readonly string[];
    movesClock?: boolean;
    /** The amount must be above this many cents (a partial refund takes some of it). */
    above?: bigint;
  },
  then: (d: RecipeDriver, paymentId: string, set: Overrides) => Promise<string | undefined> = async () =>
    undefined,
): Recipe {
  return recipe(
    type,
    drives,
    options.accepts ?? PAYMENT_KEYS,
    (set) => {
      const input = paymentInput(set, options.number ?? VISA, options.capture, new Date());
      if (options.above !== undefined && parseAmount(input.amount, 'USD') <= options.above)
        throw new SandbankError('amount_invalid', {
          param: 'set.amount',
          message: `${type} refunds ${formatCents(options.above)} of the payment: the amount must be above ${formatCents(options.above)}.`,
        });
      if (
        set.refund_reason !== undefined &&
        !['duplicate', 'fraudulent', 'requested_by_customer'].includes(set.refund_reason)
      )
        throw new SandbankError('parameter_invalid', {
          param: 'set.refund_reason',
          message: 'A refund reason is duplicate, fraudulent or requested_by_customer.',
        });
      return async (d) => {
        const payment = await createCardPaymentId(d, {
          ...input,
          card: { ...input.card!, exp_year: testCardExpiry(d.now()).year },
        });
        return (await then(d, payment, set)) ?? payment;
      };
    },
    options.movesClock ?? false,
  );
}

const REFUND_KEYS = [...PAYMENT_KEYS, 'refund_reason'] as const;
/** What card_payment.partially_refunded refunds, in cents. */
const PARTIAL_REFUND_CENTS = 100n;
const formatCents = (cents: bigint) => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
const refundReason = (set: Overrides) =>
  set.refund_reason as 'duplicate' | 'fraudulent' | 'requested_by_customer' | undefined;

export const cardPaymentRecipes: Recipe[] = [
  paymentRecipe(
    'card_payment.requires_action',
    'Makes a card payment with the 3-D Secure card 4000 0025 0000 3155 (a challenge is left open).',
    { number: THREE_DS_CARD, capture: true },
  ),
  paymentRecipe('card_payment.authorized', 'Authorizes a card payment (capture: false).', { capture: false }),
  paymentRecipe('card_payment.captured', 'Makes a card payment, captured at once.', { capture: true }),
  paymentRecipe(
    'card_payment.partially_refunded',
    'Makes a card payment and refunds 1.00 of it (amount must be above 1.00).',
    { capture: true, accepts: REFUND_KEYS, above: PARTIAL_REFUND_CENTS },
    async (d, id, set) => {
      await refund(d, id, { amount: formatCents(PARTIAL_REFUND_CENTS), reason: refundReason(set) });
      return undefined;
    },
  ),
  paymentRecipe(
    'card_payment.refunded',
    'Makes a card payment and refunds all of it.',
    { capture: true, accepts: REFUND_KEYS },
    async (d, id, set) => {
      await refund(d, id, { reason: refundReason(set) });
      return undefined;
    },
  ),
  recipe(
    'card_payment.declined',
    'Makes a card payment with a magic card that declines (decline_code, default generic_decline).',
    [...PAYMENT_KEYS, 'decline_code'],
    (set) => {
      const code = set.decline_code ?? 'generic_decline';
      const number = DECLINE_CARDS.get(code);
      if (!number)
        throw new SandbankError('parameter_invalid', {
          param: 'set.decline_code',
          message: `A decline code is one of ${[...DECLINE_CARDS.keys()].join(', ')}.`,
        });
      const input = paymentInput(set, number, true, new Date());
      return async (d) => createDeclinedCardPayment(d, input);
    },
  ),
  paymentRecipe(
    'card_payment.voided',
    'Authorizes a card payment and voids it.',
    { capture: false },
    async (d, id) => {
      await voidCardPayment(d.context(), id);
      return undefined;
    },
  ),
  paymentRecipe(
    'card_payment.expired',
    "Authorizes a card payment and advances the merchant's clock 7 days, past the authorization's expiry.",
    { capture: false, movesClock: true },
    async (d) => {
      await d.advance(7 * DAY + 1);
      return undefined;
    },
  ),

  paymentRecipe(
    'refund.pending',
    'Makes a card payment with 4000 0000 0000 7726 (its refunds stay pending a banking day) and refunds it.',
    { number: REFUND_PENDING_CARD, capture: true, accepts: REFUND_KEYS },
    (d, id, set) => refund(d, id, { reason: refundReason(set) }),
  ),
  paymentRecipe(
    'refund.succeeded',
    'Makes a card payment and refunds it.',
    { capture: true, accepts: REFUND_KEYS },
    (d, id, set) => refund(d, id, { reason: refundReason(set) }),
  ),
  paymentRecipe(
    'refund.failed',
    'Makes a card payment with 4000 0000 0000 5126 (its refunds fail) and refunds it.',
    { number: REFUND_FAILS_CARD, capture: true, accepts: REFUND_KEYS },
    (d, id, set) => refund(d, id, { reason: refundReason(set) }),
  ),
];
