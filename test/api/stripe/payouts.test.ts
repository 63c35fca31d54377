/**
 * The Stripe dialect's payouts, driven by the official `stripe` SDK over the native payouts: a
 * standard payout after a top-up goes pending → in_transit → paid as a test clock moves the
 * merchant's clock; an instant one is paid within seconds; a pending one can be canceled; a payout
 * to a counterparty whose bank returns it fails; short balances and bad input are refused.
 */
import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { refusal, stripeDialect } from '../../support/stripe.ts';

const { t, client } = stripeDialect();

/** A merchant with `dollars` available USD (a native top-up) and a test clock frozen now. */
async function funded(dollars: string) {
  const m = await t.merchant();
  const stripe = client(m);
  const top = await t.post(m, '/v1/simulate/balance/top_up', { amount: dollars, currency: 'USD' });
  expect(top.status).toBe(200);
  const clock = await stripe.testHelpers.testClocks.create({ frozen_time: Math.floor(Date.now() / 1000) });
  return { m, stripe, clock };
}

const seconds = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);

describe('payouts through the stripe SDK', () => {
  it('a standard payout goes pending → in_transit → paid as the test clock advances', async () => {
    const { m, stripe, clock } = await funded('100.00');
    const payout = await stripe.payouts.create({
      amount: 5000,
      currency: 'usd',
      description: 'Weekly payout',
      metadata: { batch: '7' },
    });
    expect(payout).toMatchObject({
      object: 'payout',
      amount: 5000,
      currency: 'usd',
      status: 'pending',
      method: 'standard',
      type: 'bank_account',
      automatic: false,
      description: 'Weekly payout',
      metadata: { batch: '7' },
      failure_code: null,
      destination: null,
      livemode: false,
      created: clock.frozen_time,
    });
    expect(payout.id).toMatch(/^po_/);
    expect(payout.arrival_date).toBeGreaterThan(clock.frozen_time);
    // The money left the balance at once, as one balance transaction of type payout.
    expect((await stripe.balance.retrieve()).available[0]?.amount).toBe(5000);
    const txn = await stripe.balanceTransactions.retrieve(payout.balance_transaction as string);
    expect(txn).toMatchObject({ type: 'payout', amount: -5000, status: 'available', source: payout.id });

    const native = await t.get<{ expected_submission_at: string }>(m, `/v1/payouts/${payout.id}`);
    await stripe.testHelpers.testClocks.advance(clock.id, {
      frozen_time: seconds(native.body.expected_submission_at),
    });
    expect((await stripe.payouts.retrieve(payout.id)).status).toBe('in_transit');
    await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: payout.arrival_date });
    const arrived = await stripe.payouts.retrieve(payout.id);
    expect(arrived).toMatchObject({
      status: 'paid',
      reconciliation_status: 'completed',
      arrival_date: payout.arrival_date,
    });
    expect((await stripe.balance.retrieve()).available[0]?.amount).toBe(5000);
    expect((await stripe.payouts.list({ status: 'paid' })).data.map((p) => p.id)).toEqual([payout.id]);
    expect((await stripe.payouts.list({ status: 'pending' })).data).toEqual([]);
  });

  it('an instant payout is paid within seconds; a pending standard one can be canceled', async () => {
    const { stripe, clock } = await funded('50.00');
    const instant = await stripe.payouts.create({ amount: 1000, currency: 'usd', method: 'instant' });
    expect(instant).toMatchObject({ method: 'instant', status: 'pending' });
    await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: clock.frozen_time + 10 });
    expect((await stripe.payouts.retrieve(instant.id)).status).toBe('paid');
    const refusedInstant = await refusal(stripe.payouts.cancel(instant.id));
    expect(refusedInstant.statusCode).toBe(400);

    const standard = await stripe.payouts.create({ amount: 2000, currency: 'usd' });
    expect((await stripe.balance.retrieve()).available[0]?.amount).toBe(2000);
    const canceled = await stripe.payouts.cancel(standard.id);
    expect(canceled.status).toBe('canceled');
    expect(canceled.failure_balance_transaction).toMatch(/^txn_/);
    expect((await stripe.balance.retrieve()).available[0]?.amount).toBe(4000);
    const back = await stripe.balanceTransactions.retrieve(canceled.failure_balance_transaction as string);
    expect(back).toMatchObject({ type: 'payout_cancel', amount: 2000, source: standard.id });
    const again = await refusal(stripe.payouts.cancel(standard.id));
    expect(again.statusCode).toBe(400);
    expect(again.message).toContain('canceled');

    const listed = await stripe.payouts.list();
    expect(listed.data.map((p) => [p.id, p.status])).toEqual([
      [standard.id, 'canceled'],
      [instant.id, 'paid'],
    ]);
    const older = await stripe.payouts.list({ ending_before: instant.id });
    expect(older.data.map((p) => p.id)).toEqual([standard.id]);
  });

  it('a payout to a counterparty whose bank returns it fails, with the funds back', async () => {
    const { m, stripe, clock } = await funded('30.00');
    const counterparty = await t.post<{ id: string }>(m, '/v1/counterparties', {
      name: 'Closed account',
      routing_number: '110000000',
      account_number: '000111111113',
    });
    expect(counterparty.status).toBe(200);
    const payout = await stripe.payouts.create({
      amount: 1200,
      currency: 'usd',
      destination: counterparty.body.id,
    });
    expect(payout.destination).toBe(counterparty.body.id);
    // Paid, then returned R02 a few banking days later.
    await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: clock.frozen_time + 10 * 86_400 });
    const failed = await stripe.payouts.retrieve(payout.id);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'account_closed' });
    expect(failed.failure_message).toContain('R02');
    const back = await stripe.balanceTransactions.retrieve(failed.failure_balance_transaction as string);
    expect(back).toMatchObject({ type: 'payout_failure', amount: 1200 });
    expect((await stripe.balance.retrieve()).available[0]?.amount).toBe(3000);
  });

  it('refuses a payout above the balance, and bad input, writing nothing', async () => {
    const { m, stripe } = await funded('10.00');
    const short = await refusal(stripe.payouts.create({ amount: 1001, currency: 'usd' }));
    expect(short).toMatchObject({
      statusCode: 400,
      code: 'balance_insufficient',
      type: 'StripeInvalidRequestError',
    });
    const euro = await refusal(stripe.payouts.create({ amount: 100, currency: 'eur' }));
    expect(euro).toMatchObject({ statusCode: 400, param: 'currency' });
    const zero = await refusal(stripe.payouts.create({ amount: 0, currency: 'usd' }));
    expect(zero).toMatchObject({ statusCode: 400, param: 'amount' });
    const noAmount = await refusal(stripe.payouts.create({ currency: 'usd' } as Stripe.PayoutCreateParams));
    expect(noAmount).toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'amount' });
    const method = await refusal(
      stripe.payouts.create({ amount: 100, currency: 'usd', method: 'fast' as 'instant' }),
    );
    expect(method).toMatchObject({ statusCode: 400, param: 'method' });
    const destination = await refusal(
      stripe.payouts.create({ amount: 100, currency: 'usd', destination: 'ba_123' }),
    );
    expect(destination).toMatchObject({ statusCode: 400, param: 'destination' });
    const descriptor = await refusal(
      stripe.payouts.create({ amount: 100, currency: 'usd', statement_descriptor: 'X' }),
    );
    expect(descriptor).toMatchObject({ statusCode: 400, code: 'parameter_unknown' });
    const missing = await refusal(stripe.payouts.retrieve('po_nothing'));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect((await stripe.payouts.list()).data).toEqual([]);
    const native = await t.get<{ data: unknown[] }>(m, '/v1/payouts');
    expect(native.body.data).toEqual([]);
    expect((await stripe.balance.retrieve()).available[0]?.amount).toBe(1000);
  });
});
