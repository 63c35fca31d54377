import { eq, inArray } from 'drizzle-orm';
import { SandbankError } from '../../kernel/errors.ts';
import { formatDecimal } from '../../kernel/money.ts';
import type { ServiceContext } from '../context.ts';
import { createPayout } from '../transfers/transfers.create.ts';
import { getPayout } from '../transfers/transfers.read.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import { payoutSteps } from '../transfers/transfers.steps.ts';
import { transfers } from '../transfers/transfers.table.ts';
import { balanceTransactionsOf } from './stripe.balance.ts';
import { cursorOf, type PageOf, pageOf, type StripePage } from './stripe.balance-pages.ts';
import { txnId } from './stripe.balance-render.ts';
import { invalidParam, noSuch, StripeError } from './stripe.errors.ts';
import { type PayoutView, renderPayout, statesOfStatus } from './stripe.payouts-render.ts';

/**
 * Payouts of the Stripe dialect: the native payouts (`po_`), which take the merchant's available
 * USD to a bank account over a rail. `method: standard` is a standard ACH payout (pending until
 * the next FedACH window, in transit until it settles), `instant` an RTP credit (paid within
 * seconds). Sandbank has no external accounts: a payout goes to Stripe's test bank account
 * (routing 110000000, account 000123456789, which succeeds), or to a saved counterparty named as
 * its `destination` (cpty_…), whose magic account numbers make it fail as Stripe's test ones do.
 */

export interface PayoutFields {
  amount: bigint;
  currency: string;
  description?: string | undefined;
  metadata?: Record<string, string> | null | undefined;
  method?: 'standard' | 'instant' | undefined;
  destination?: string | undefined;
}

/** Stripe's test bank account, the payouts' destination when they name none. */
const TEST_BANK_ACCOUNT = {
  name: 'Stripe test bank account',
  routing_number: '110000000',
  account_number: '000123456789',
  account_type: 'checking',
} as const;

const missing = (error: unknown) => error instanceof SandbankError && error.code === 'resource_not_found';

/** The balance transaction that gave each payout's funds back (a released hold, a return), by payout. */
async function failureTransactions(ctx: ServiceContext, rows: readonly TransferRow[]) {
  const ended = rows.filter((row) =>
    ['failed', 'returned', 'canceled', 'return_contested'].includes(row.state),
  );
  const found = await balanceTransactionsOf(
    ctx,
    ended.map((row) => row.id),
    ['hold_voided', 'payout_return'],
  );
  const latest = new Map(found.map((view) => [view.row.sourceId, txnId(view.row.id)]));
  return rows.map((row): PayoutView => ({ row, failureTransaction: latest.get(row.id) ?? null }));
}

export async function createStripePayout(ctx: ServiceContext, fields: PayoutFields) {
  if (fields.amount < 1n)
    throw invalidParam(
      'amount',
      'Invalid positive integer: amount must be at least 1.',
      'parameter_invalid_integer',
    );
  if (fields.currency !== 'usd')
    throw invalidParam(
      'currency',
      `Sandbank pays out USD only: the currency '${fields.currency}' is not supported by its Stripe dialect.`,
    );
  const destination = fields.destination;
  if (destination !== undefined && !/^cpty_[0-9A-Za-z]{1,60}$/.test(destination))
    throw invalidParam(
      'destination',
      "Sandbank has no external accounts: a payout's destination is a saved counterparty (cpty_…), or none for Stripe's test bank account.",
    );
  const metadata = Object.fromEntries(
    Object.entries(fields.metadata ?? {}).filter(([, value]) => value !== ''),
  );
  if (Object.keys(metadata).length > 50)
    throw invalidParam('metadata', 'You can have at most 50 metadata keys.', 'parameter_invalid_empty');
  try {
    const row = await createPayout(ctx, {
      amount: formatDecimal(fields.amount, 'USD'),
      currency: 'USD',
      method: fields.method === 'instant' ? 'rtp' : 'ach',
      destination: destination ?? { ...TEST_BANK_ACCOUNT },
      ...(fields.description !== undefined ? { description: fields.description } : {}),
      metadata,
    });
    return renderPayout({ row, failureTransaction: null });
  } catch (error) {
    if (error instanceof SandbankError && error.code === 'insufficient_balance')
      throw new StripeError(400, {
        type: 'invalid_request_error',
        code: 'balance_insufficient',
        message:
          'You have insufficient funds in your Stripe account for this transfer. Your available USD balance is too low (GET /v1/balance shows it).',
      });
    throw error;
  }
}

async function payoutOf(ctx: ServiceContext, id: string): Promise<TransferRow> {
  try {
    return await getPayout(ctx, id);
  } catch (error) {
    throw missing(error) ? noSuch('payout', id) : error;
  }
}

export async function retrieveStripePayout(ctx: ServiceContext, id: string) {
  const [view] = await failureTransactions(ctx, [await payoutOf(ctx, id)]);
  return renderPayout(view as PayoutView);
}

export async function listStripePayouts(
  ctx: ServiceContext,
  page: StripePage,
  filters: { status?: string | undefined },
): Promise<PageOf<ReturnType<typeof renderPayout>>> {
  const found = await pageOf<TransferRow>(
    ctx,
    transfers,
    { limit: page.limit, ...cursorOf(page, 'payout', 'po_') },
    [
      eq(transfers.kind, 'payout'),
      filters.status !== undefined
        ? inArray(transfers.state, statesOfStatus(filters.status) as never[])
        : undefined,
    ],
  );
  return { data: (await failureTransactions(ctx, found.data)).map(renderPayout), hasMore: found.hasMore };
}

/** POST /v1/payouts/:id/cancel: a pending standard payout, before its ACH window (its hold is released). */
export async function cancelStripePayout(ctx: ServiceContext, id: string) {
  const row = await payoutOf(ctx, id);
  try {
    await payoutSteps.cancel(ctx, row.id);
  } catch (error) {
    if (error instanceof SandbankError && error.code === 'invalid_state')
      throw new StripeError(400, {
        type: 'invalid_request_error',
        message: `Payouts can only be canceled while they are pending and standard (ACH); this one is ${renderPayout({ row, failureTransaction: null }).status}${row.state === 'pending' ? ' and instant' : ''}.`,
      });
    throw error;
  }
  return retrieveStripePayout(ctx, id);
}
