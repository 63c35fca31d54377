import type { Context, Hono } from 'hono';
import { SandbankError } from '../../kernel/errors.ts';
import { formatDecimal } from '../../kernel/money.ts';
import {
  getCardPayment,
  getRefund,
  listCardPayments,
} from '../../modules/card-payments/card-payments.read.ts';
import { refundCardPayment } from '../../modules/card-payments/card-payments.refund.ts';
import type { CardPaymentDetail } from '../../modules/card-payments/card-payments.rows.ts';
import { captureLegacyCharge, createLegacyCharge } from '../../modules/stripe/stripe.charges.ts';
import { mergedMetadata } from '../../modules/stripe/stripe.customers.rows.ts';
import { invalidParam, noSuch } from '../../modules/stripe/stripe.errors.ts';
import { intentRows, retrieveIntent } from '../../modules/stripe/stripe.payment-intents.read.ts';
import {
  cardPaymentIdOf,
  intentIdOf,
  renderCharge,
  renderRefund,
} from '../../modules/stripe/stripe.render.ts';
import { contextOf, type StripeEnv } from './app.ts';
import type { Params } from './params.ts';
import { amountOf, currencyOf, expansions, paging } from './routes-payment-intents.ts';

/**
 * Charges (every card payment, the dialect's and the native API's), refunds and payment methods.
 * A charge is a card payment under another prefix (`ch_X` is `cp_X`).
 */

const missing = (error: unknown) => error instanceof SandbankError && error.code === 'resource_not_found';

/** The payment method of each charge: its intent's, for the intent's latest attempt (else null). */
async function methodsOf(c: Context<StripeEnv>, payments: readonly CardPaymentDetail[]) {
  const intents = payments.flatMap((payment) => intentIdOf(payment) ?? []);
  const rows = await intentRows(contextOf(c), intents);
  const methods = new Map<string, string | null>();
  for (const row of rows) if (row.cardPaymentId) methods.set(row.cardPaymentId, row.attemptPaymentMethod);
  return (payment: CardPaymentDetail) => methods.get(payment.id) ?? null;
}

async function chargeOf(c: Context<StripeEnv>, id: string, param = 'id'): Promise<CardPaymentDetail> {
  const paymentId = cardPaymentIdOf(id);
  if (!paymentId) throw noSuch('charge', id, param);
  try {
    return await getCardPayment(contextOf(c), paymentId);
  } catch (error) {
    throw missing(error) ? noSuch('charge', id, param) : error;
  }
}

/** The card payment a refund call names: by its charge, or by its PaymentIntent's latest charge. */
async function refundTarget(c: Context<StripeEnv>, p: Params): Promise<CardPaymentDetail> {
  const charge = p.string('charge', 255);
  const intent = p.string('payment_intent', 255);
  if ((charge === undefined) === (intent === undefined))
    throw invalidParam('charge', 'Pass exactly one of charge and payment_intent.', 'parameter_missing');
  if (charge !== undefined) return chargeOf(c, charge, 'charge');
  const view = await retrieveIntent(contextOf(c), intent as string);
  if (!view.payment)
    throw invalidParam(
      'payment_intent',
      `This PaymentIntent (${view.row.id}) does not have a successful charge to refund.`,
      'charge_not_refundable',
    );
  return view.payment;
}

export function mountCharges(app: Hono<StripeEnv>): void {
  app.post('/v1/charges', async (c) => {
    const p = c.get('params');
    const amount = p.required('amount', amountOf(p));
    p.required('currency', currencyOf(p));
    const source = p.required('source', p.string('source', 255));
    const capture = p.boolean('capture') ?? true;
    const description = p.string('description', 1000);
    const metadata = mergedMetadata({}, p.metadata());
    expansions(p, []);
    p.done();
    const payment = await createLegacyCharge(contextOf(c), {
      amount,
      source,
      capture,
      description,
      metadata,
    });
    return c.json(renderCharge(payment, null));
  });

  app.post('/v1/charges/:id/capture', async (c) => {
    const p = c.get('params');
    const amount = p.integer('amount');
    expansions(p, []);
    p.done();
    const payment = await chargeOf(c, c.req.param('id'));
    const captured = await captureLegacyCharge(contextOf(c), payment.id, amount);
    return c.json(renderCharge(captured, (await methodsOf(c, [captured]))(captured)));
  });

  app.get('/v1/charges', async (c) => {
    const p = c.get('params');
    const page = paging(p);
    expansions(p, []);
    p.done();
    if (page.endingBefore !== undefined)
      throw invalidParam(
        'ending_before',
        "Sandbank's Stripe dialect pages charges forward only (starting_after).",
      );
    const cursor = page.startingAfter === undefined ? undefined : (cardPaymentIdOf(page.startingAfter) ?? '');
    const result = await listCardPayments(contextOf(c), {
      limit: page.limit,
      ...(cursor !== undefined ? { starting_after: cursor } : {}),
    });
    const methodOf = await methodsOf(c, result.data);
    return c.json({
      object: 'list',
      data: result.data.map((payment) => renderCharge(payment, methodOf(payment))),
      has_more: result.hasMore,
      url: '/v1/charges',
    });
  });

  app.get('/v1/charges/:id', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    const payment = await chargeOf(c, c.req.param('id'));
    return c.json(renderCharge(payment, (await methodsOf(c, [payment]))(payment)));
  });

  app.post('/v1/refunds', async (c) => {
    const p = c.get('params');
    const payment = await refundTarget(c, p);
    const amount = p.integer('amount');
    const reason = p.oneOf('reason', ['duplicate', 'fraudulent', 'requested_by_customer']);
    expansions(p, []);
    p.done();
    const { refund, payment: refunded } = await refundCardPayment(contextOf(c), payment.id, {
      ...(amount !== undefined ? { amount: formatDecimal(amount, 'USD') } : {}),
      ...(reason ? { reason } : {}),
    });
    return c.json(renderRefund(refund, refunded));
  });

  app.get('/v1/refunds/:id', async (c) => {
    const p = c.get('params');
    expansions(p, []);
    p.done();
    const id = c.req.param('id');
    try {
      const { refund, payment } = await getRefund(contextOf(c), id);
      return c.json(renderRefund(refund, payment));
    } catch (error) {
      throw missing(error) ? noSuch('refund', id) : error;
    }
  });

  app.get('/v1/refunds', async (c) => {
    const p = c.get('params');
    const payment = await refundTarget(c, p);
    const page = paging(p);
    p.done();
    // A payment's refunds, newest first, paged as any list (a payment has few).
    const newest = [...payment.refunds].reverse();
    const cursor = page.startingAfter ?? page.endingBefore;
    const at = cursor === undefined ? -1 : newest.findIndex((refund) => refund.id === cursor);
    if (cursor !== undefined && at < 0)
      throw noSuch('refund', cursor, page.startingAfter ? 'starting_after' : 'ending_before');
    const from = page.endingBefore !== undefined ? Math.max(0, at - page.limit) : at + 1;
    const to = page.endingBefore !== undefined ? at : from + page.limit;
    return c.json({
      object: 'list',
      data: newest.slice(from, to).map((refund) => renderRefund(refund, payment)),
      has_more: page.endingBefore !== undefined ? from > 0 : to < newest.length,
      url: '/v1/refunds',
    });
  });
}
