import { SandbankError } from '../../kernel/errors.ts';
import { parseAmount } from '../../kernel/money.ts';
import { parseInput } from '../../kernel/validation.ts';
import { MAGIC_DISPUTE_DELAY_SECONDS } from '../card-payments/card-payments.disputes.ts';
import { createCardPaymentId } from '../card-payments/card-payments.recipes.ts';
import {
  createCardPaymentFieldCodes,
  createCardPaymentSchema,
} from '../card-payments/card-payments.schema.ts';
import { testCardExpiry } from '../cards/magic-cards.ts';
import type { Overrides, Recipe, RecipeDriver } from '../recipe.ts';
import { DISPUTE_REASONS, type DisputeReason, type UpdateDisputeInput } from './disputes.schema.ts';
import {
  closeDispute,
  REVIEW_SECONDS,
  simulateDispute,
  updateDispute,
  WINNING_EVIDENCE,
} from './disputes.service.ts';

/**
 * The recipes of disputes and of the early fraud warning: a card payment captured at once (Visa
 * 4242…, or the warning's magic card), disputed with the simulate step, then driven through the
 * dispute's own operations (evidence, close, the clock for the review).
 */

const VISA = '4242424242424242';
const EARLY_FRAUD_WARNING_CARD = '4000000000005423';
const PAYMENT_KEYS = ['amount', 'currency', 'reference', 'description', 'metadata.*'] as const;
const DISPUTE_KEYS = [...PAYMENT_KEYS, 'reason'] as const;

/** The payment's body from the overrides, checked with POST /v1/card_payments's own schema. */
function paymentInput(set: Overrides, number: string) {
  const now = new Date();
  const metadata = Object.entries(set).filter(([key]) => key.startsWith('metadata.'));
  const body = {
    amount: set.amount ?? '25.00',
    currency: set.currency ?? 'USD',
    card: { number, exp_month: testCardExpiry(now).month, exp_year: testCardExpiry(now).year, cvc: '123' },
    capture: true,
    ...(set.reference !== undefined ? { reference: set.reference } : {}),
    ...(set.description !== undefined ? { description: set.description } : {}),
    ...(metadata.length ? { metadata: Object.fromEntries(metadata.map(([k, v]) => [k.slice(9), v])) } : {}),
  };
  try {
    const input = parseInput(createCardPaymentSchema, body, createCardPaymentFieldCodes);
    parseAmount(input.amount, input.currency);
    return input;
  } catch (error) {
    if (error instanceof SandbankError && error.param && !error.param.startsWith('set.'))
      throw new SandbankError(error.code, { param: `set.${error.param}`, message: error.message });
    throw error;
  }
}

function reasonOf(set: Overrides, fallback: DisputeReason): DisputeReason {
  const reason = set.reason ?? fallback;
  if (!(DISPUTE_REASONS as readonly string[]).includes(reason))
    throw new SandbankError('parameter_invalid', {
      param: 'set.reason',
      message: `A dispute reason is one of ${DISPUTE_REASONS.join(', ')}.`,
    });
  return reason as DisputeReason;
}

/** A captured payment disputed (an inquiry with `inquiry`), then `then` drives the dispute. */
function disputeRecipe(
  type: string,
  drives: string,
  options: { inquiry: boolean; movesClock?: boolean },
  then: (d: RecipeDriver, disputeId: string) => Promise<void> = async () => {},
): Recipe {
  return {
    type,
    drives,
    accepts: DISPUTE_KEYS,
    movesClock: options.movesClock ?? false,
    prepare(set) {
      const input = paymentInput(set, VISA);
      const reason = reasonOf(set, options.inquiry ? 'general' : 'fraudulent');
      return async (d) => {
        const payment = await createCardPaymentId(d, {
          ...input,
          card: { ...input.card!, exp_year: testCardExpiry(d.now()).year },
        });
        const dispute = (await simulateDispute(d.context(), payment, { reason, inquiry: options.inquiry }))
          .id;
        await then(d, dispute);
        return dispute;
      };
    },
  };
}

const evidence = (text: string) => ({ evidence: { uncategorized_text: text }, submit: true });

/** POST /v1/disputes/{id} (evidence, submitted unless submit is false). */
async function update(d: RecipeDriver, id: string, input: UpdateDisputeInput): Promise<void> {
  await updateDispute(d.context(), id, input);
}

/** POST /v1/disputes/{id}/close. */
async function close(d: RecipeDriver, id: string): Promise<void> {
  await closeDispute(d.context(), id);
}

export const disputeRecipes: Recipe[] = [
  {
    type: 'card_payment.early_fraud_warning',
    drives:
      "Makes a card payment with 4000 0000 0000 5423 and advances the merchant's clock a day, when the issuer's early fraud warning arrives.",
    accepts: PAYMENT_KEYS,
    movesClock: true,
    prepare(set) {
      const input = paymentInput(set, EARLY_FRAUD_WARNING_CARD);
      return async (d) => {
        const payment = await createCardPaymentId(d, {
          ...input,
          card: { ...input.card!, exp_year: testCardExpiry(d.now()).year },
        });
        await d.advance(MAGIC_DISPUTE_DELAY_SECONDS + 1);
        return payment;
      };
    },
  },
  disputeRecipe(
    'dispute.warning_needs_response',
    'Makes a card payment and opens an inquiry on it (simulate dispute, inquiry: true).',
    { inquiry: true },
  ),
  disputeRecipe(
    'dispute.warning_under_review',
    'Makes a card payment, opens an inquiry and submits evidence.',
    { inquiry: true },
    (d, id) => update(d, id, evidence('Receipt and delivery confirmation')),
  ),
  disputeRecipe(
    'dispute.warning_closed',
    'Makes a card payment, opens an inquiry and closes (accepts) it.',
    { inquiry: true },
    (d, id) => close(d, id),
  ),
  disputeRecipe(
    'dispute.needs_response',
    'Makes a card payment and disputes it (simulate dispute; reason, default fraudulent): the amount and the 15.00 fee are debited.',
    { inquiry: false },
  ),
  disputeRecipe(
    'dispute.under_review',
    'Makes a card payment, disputes it and submits evidence.',
    { inquiry: false },
    (d, id) => update(d, id, evidence('Receipt and delivery confirmation')),
  ),
  disputeRecipe(
    'dispute.won',
    "Makes a card payment, disputes it, submits the evidence winning_evidence and advances the merchant's clock past the 2-day review.",
    { inquiry: false, movesClock: true },
    async (d, id) => {
      await update(d, id, evidence(WINNING_EVIDENCE));
      await d.advance(REVIEW_SECONDS + 1);
    },
  ),
  disputeRecipe(
    'dispute.lost',
    'Makes a card payment, disputes it and closes (accepts) the dispute.',
    { inquiry: false },
    (d, id) => close(d, id),
  ),
];
