import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { isStateOf } from '../../kernel/state-machine.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { paymentRequestMachine } from './payment-requests.machine.ts';
import { type PaymentRequestRow, paymentRequests } from './payment-requests.table.ts';

/** Reading requests for payment: one (404 when the merchant has none by this id), by ids, a page. */

export async function loadRequest(
  exec: Executor,
  merchantId: string,
  id: string,
  lock = false,
): Promise<PaymentRequestRow> {
  const query = exec
    .select()
    .from(paymentRequests)
    .where(and(eq(paymentRequests.id, id), eq(paymentRequests.merchantId, merchantId)));
  const [row] = id.includes('\u0000') ? [] : lock ? await query.for('update') : await query;
  if (!row)
    throw new SandbankError('resource_not_found', { message: `No payment request ${id.slice(0, 60)}.` });
  return row;
}

export function getPaymentRequest(ctx: ServiceContext, id: string): Promise<PaymentRequestRow> {
  return loadRequest(dbOf(ctx), ctx.merchant.id, id);
}

export function paymentRequestsByIds(ctx: ServiceContext, ids: string[]): Promise<PaymentRequestRow[]> {
  return merchantRowsByIds<PaymentRequestRow>(ctx, paymentRequests, ids);
}

export function listPaymentRequests(
  ctx: ServiceContext,
  query: ListQuery & { direction?: 'outbound' | 'inbound' | undefined; state?: string | undefined },
): Promise<Page<PaymentRequestRow>> {
  const state = query.state || undefined;
  if (state !== undefined && !isStateOf(paymentRequestMachine.states, state))
    return Promise.resolve(toPage([], query.limit));
  return merchantPage(ctx, paymentRequests, query, [
    query.direction ? eq(paymentRequests.direction, query.direction) : undefined,
    state === undefined ? undefined : eq(paymentRequests.state, state),
  ]);
}
