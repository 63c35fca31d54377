import { eq } from 'drizzle-orm';
import { SandbankError } from '../../kernel/errors.ts';
import { cardPaymentsByIds } from '../card-payments/card-payments.read.ts';
import type { ServiceContext } from '../context.ts';
import type { DisputeRow } from '../disputes/disputes.resource.ts';
import type { EvidenceField } from '../disputes/disputes.schema.ts';
import { closeDispute, getDispute, updateDispute } from '../disputes/disputes.service.ts';
import { disputes } from '../disputes/disputes.table.ts';
import { balanceTransactionsOf, renderTransaction } from './stripe.balance.ts';
import { cursorOf, type PageOf, pageOf, type StripePage } from './stripe.balance-pages.ts';
import { type DisputeView, renderDispute } from './stripe.disputes-render.ts';
import { noSuch, StripeError } from './stripe.errors.ts';
import { intentRows } from './stripe.payment-intents.read.ts';
import { cardPaymentIdOf } from './stripe.render.ts';

/**
 * Disputes of the Stripe dialect: the native disputes, read and moved by the native services.
 * Evidence (text, by field) is saved and, unless `submit=false`, submitted: the dispute is under
 * review for two days, then decided by its text (`winning_evidence` wins, `losing_evidence` loses,
 * as in Stripe's test mode). Closing one accepts it (a chargeback is lost, an inquiry closed).
 */

const missing = (error: unknown) => error instanceof SandbankError && error.code === 'resource_not_found';

/** Each dispute with its card payment and its balance transactions. */
async function viewsOf(ctx: ServiceContext, rows: readonly DisputeRow[]): Promise<DisputeView[]> {
  const payments = await cardPaymentsByIds(ctx, [...new Set(rows.map((row) => row.cardPaymentId))]);
  const byId = new Map(payments.map((payment) => [payment.id, payment]));
  const transactions = await balanceTransactionsOf(
    ctx,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    row,
    payment: byId.get(row.cardPaymentId) ?? null,
    transactions: transactions.filter((view) => view.row.sourceId === row.id),
  }));
}

async function rendered(ctx: ServiceContext, rows: readonly DisputeRow[]) {
  const now = ctx.clock.now();
  return (await viewsOf(ctx, rows)).map((view) => renderDispute(view, now, renderTransaction));
}

async function disputeOf(ctx: ServiceContext, id: string): Promise<DisputeRow> {
  try {
    return await getDispute(ctx, id);
  } catch (error) {
    throw missing(error) ? noSuch('dispute', id) : error;
  }
}

export async function retrieveStripeDispute(ctx: ServiceContext, id: string) {
  const [dispute] = await rendered(ctx, [await disputeOf(ctx, id)]);
  return dispute as ReturnType<typeof renderDispute>;
}

/** The card payment a list's `charge` or `payment_intent` names (null: none, so no dispute). */
async function paymentFilter(
  ctx: ServiceContext,
  filters: { charge?: string | undefined; paymentIntent?: string | undefined },
): Promise<string | null | undefined> {
  if (filters.charge !== undefined) {
    const payment = cardPaymentIdOf(filters.charge);
    if (!payment) throw noSuch('charge', filters.charge, 'charge');
    return payment;
  }
  if (filters.paymentIntent === undefined) return undefined;
  const [intent] = await intentRows(ctx, [filters.paymentIntent]);
  if (!intent) throw noSuch('payment_intent', filters.paymentIntent, 'payment_intent');
  return intent.cardPaymentId;
}

export async function listStripeDisputes(
  ctx: ServiceContext,
  page: StripePage,
  filters: { charge?: string | undefined; paymentIntent?: string | undefined },
): Promise<PageOf<ReturnType<typeof renderDispute>>> {
  const payment = await paymentFilter(ctx, filters);
  if (payment === null) return { data: [], hasMore: false };
  const found = await pageOf<DisputeRow>(
    ctx,
    disputes,
    { limit: page.limit, ...cursorOf(page, 'dispute', 'dp_') },
    [payment !== undefined ? eq(disputes.cardPaymentId, payment) : undefined],
  );
  return { data: await rendered(ctx, found.data), hasMore: found.hasMore };
}

/** A native step refused for the dispute's state, as Stripe says it. */
function refusedFor(row: DisputeRow, what: string) {
  return (error: unknown) => {
    if (error instanceof SandbankError && error.code === 'invalid_state')
      throw new StripeError(400, {
        type: 'invalid_request_error',
        message: `This dispute is ${row.state}: ${what} only while it needs a response (needs_response or warning_needs_response).`,
      });
    throw error;
  };
}

/** POST /v1/disputes/:id: evidence saved, and submitted unless `submit` is false. */
export async function updateStripeDispute(
  ctx: ServiceContext,
  id: string,
  input: { evidence?: Partial<Record<EvidenceField, string>> | undefined; submit?: boolean | undefined },
) {
  const row = await disputeOf(ctx, id);
  const moved = await updateDispute(ctx, row.id, {
    ...(input.evidence ? { evidence: input.evidence } : {}),
    ...(input.submit !== undefined ? { submit: input.submit } : {}),
  }).catch(refusedFor(row, 'evidence can be saved and submitted'));
  const [dispute] = await rendered(ctx, [moved]);
  return dispute as ReturnType<typeof renderDispute>;
}

/** POST /v1/disputes/:id/close: the merchant accepts it. */
export async function closeStripeDispute(ctx: ServiceContext, id: string) {
  const row = await disputeOf(ctx, id);
  const moved = await closeDispute(ctx, row.id).catch(refusedFor(row, 'it can be closed (accepted)'));
  const [dispute] = await rendered(ctx, [moved]);
  return dispute as ReturnType<typeof renderDispute>;
}
