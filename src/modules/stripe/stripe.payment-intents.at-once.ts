import { change, commit, commitUnlessStale } from '../../db/commit.ts';
import { formatDecimal } from '../../kernel/money.ts';
import { decidedCardPayment } from '../card-payments/card-payments.authorize.ts';
import type { CardPaymentRow } from '../card-payments/card-payments.resource.ts';
import type { ServiceContext } from '../context.ts';
import { withIntentCreated } from './stripe.events.ts';
import {
  type ConfirmFields,
  type IntentView,
  intentStatus,
  load,
  paymentOf,
  pendingPaymentMethod,
} from './stripe.payment-intents.read.ts';
import { isTestPaymentMethod, testPaymentMethod } from './stripe.payment-methods.ts';
import { type StripePaymentIntentRow, stripePaymentIntents } from './stripe.table.ts';

/**
 * The common confirmation — a test payment method, no customer, nothing saved for later — as one
 * change: the card payment the network decides now and the intent's row, committed together (with
 * other requests' writes, by the group commit), instead of a transaction that locks the intent.
 * Null when the confirmation needs the transaction (a saved card, a customer, setup_future_usage,
 * off_session, a card this sandbox issued), or when the intent moved since it was read.
 */

/** Whether a confirmation can be decided without a transaction of its own. */
function simple(row: StripePaymentIntentRow, fields: ConfirmFields, method: string | null): method is string {
  return (
    method !== null &&
    isTestPaymentMethod(method) &&
    row.customerId === null &&
    fields.setupFutureUsage === undefined &&
    !fields.offSession
  );
}

/** The card payment of a confirmation with `method`, decided now (null: a card this sandbox issued). */
function decide(ctx: ServiceContext, row: StripePaymentIntentRow, method: string, automatic: boolean) {
  const card = testPaymentMethod(method, ctx.clock.now());
  return decidedCardPayment(ctx, {
    amount: formatDecimal(row.amount, 'USD'),
    currency: 'USD',
    card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc },
    capture: automatic,
    reference: row.id,
    ...(row.description ? { description: row.description.slice(0, 1000) } : {}),
    metadata: row.metadata,
  });
}

const withRefunds = (payment: CardPaymentRow) => ({ ...payment, refunds: [] });

/**
 * A new intent not confirmed: its row and its payment_intent.created event as one change. Null when
 * it names a customer or a saved payment method, which are checked in a transaction.
 */
export async function createAtOnce(
  ctx: ServiceContext,
  row: StripePaymentIntentRow,
): Promise<IntentView | null> {
  if (row.customerId !== null) return null;
  if (row.paymentMethod !== null && !isTestPaymentMethod(row.paymentMethod)) return null;
  await commit(ctx, withIntentCreated(change().insert(stripePaymentIntents, row), row));
  return { row, payment: null };
}

/** A new intent confirmed in the same request: its row and its first attempt, written together. */
export async function createConfirmedAtOnce(
  ctx: ServiceContext,
  row: StripePaymentIntentRow,
  fields: ConfirmFields,
): Promise<IntentView | null> {
  const method = fields.paymentMethod ?? row.paymentMethod;
  if (!simple(row, fields, method)) return null;
  const captureMethod = fields.captureMethod ?? row.captureMethod;
  const decided = decide(ctx, row, method, captureMethod === 'automatic');
  if (!decided) return null;
  const confirmed: StripePaymentIntentRow = {
    ...row,
    captureMethod,
    cardPaymentId: decided.row.id,
    paymentMethod: method,
    attemptPaymentMethod: method,
    ...(fields.returnUrl !== undefined ? { returnUrl: fields.returnUrl } : {}),
  };
  await commit(ctx, withIntentCreated(decided.change.insert(stripePaymentIntents, confirmed), row));
  return { row: confirmed, payment: withRefunds(decided.row) };
}

/** An existing intent confirmed: the attempt and the intent's new columns, if the intent has not moved. */
export async function confirmAtOnce(
  ctx: ServiceContext,
  id: string,
  fields: ConfirmFields,
): Promise<IntentView | null> {
  // In a caller's transaction (an idempotency key) the locking path costs no more.
  if (ctx.tx) return null;
  const row = await load(ctx, id);
  const view = { row, payment: await paymentOf(ctx, row) };
  const status = intentStatus(view);
  // Anything but a confirmable intent is refused by the locking path, as the intent then stands.
  if (status !== 'requires_payment_method' && status !== 'requires_confirmation') return null;
  const method = fields.paymentMethod ?? pendingPaymentMethod(view);
  if (!simple(row, fields, method)) return null;
  const captureMethod = fields.captureMethod ?? row.captureMethod;
  const decided = decide(ctx, row, method, captureMethod === 'automatic');
  if (!decided) return null;
  const set = {
    cardPaymentId: decided.row.id,
    paymentMethod: method,
    attemptPaymentMethod: method,
    captureMethod,
    ...(fields.returnUrl !== undefined ? { returnUrl: fields.returnUrl } : {}),
    updatedAt: ctx.clock.now(),
  };
  const written = await commitUnlessStale(
    ctx,
    decided.change.update({
      table: stripePaymentIntents,
      id: row.id,
      // Everything the attempt was decided from (a frozen clock leaves updatedAt as it was).
      expect: {
        updatedAt: row.updatedAt,
        cardPaymentId: row.cardPaymentId,
        canceledAt: null,
        amount: row.amount,
        currency: row.currency,
        captureMethod: row.captureMethod,
        paymentMethod: row.paymentMethod,
        customerId: null,
        description: row.description,
        metadata: row.metadata,
      },
      set,
    }),
  );
  return written ? { row: { ...row, ...set }, payment: withRefunds(decided.row) } : null;
}
