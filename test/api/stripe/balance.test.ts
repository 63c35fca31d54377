/**
 * The Stripe dialect's balance and balance transactions, driven by the official `stripe` SDK: a
 * succeeded PaymentIntent's money is pending, then available once a test clock reaches its day;
 * the balance transactions list it (filters, pages both ways) and agree with the native ledger.
 */
import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { refusal, stripeDialect } from '../../support/stripe.ts';

const { t, client } = stripeDialect();

/** A paid PaymentIntent of `amount` cents with pm_card_visa. */
async function paid(stripe: Stripe, amount: number): Promise<Stripe.PaymentIntent> {
  const intent = await stripe.paymentIntents.create({
    amount,
    currency: 'usd',
    payment_method: 'pm_card_visa',
    confirm: true,
  });
  expect(intent.status).toBe('succeeded');
  return intent;
}

describe('balance through the stripe SDK', () => {
  it('a new merchant holds nothing, in USD', async () => {
    const balance = await client(await t.merchant()).balance.retrieve();
    expect(balance).toEqual({
      object: 'balance',
      available: [{ amount: 0, currency: 'usd', source_types: { card: 0 } }],
      pending: [{ amount: 0, currency: 'usd', source_types: { card: 0 } }],
      livemode: false,
    });
  });

  it('a succeeded payment is pending, then available when a test clock reaches its day', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const clock = await stripe.testHelpers.testClocks.create({
      frozen_time: Math.floor(Date.now() / 1000),
    });
    const intent = await paid(stripe, 2000);

    expect((await stripe.balance.retrieve()).pending).toEqual([
      { amount: 2000, currency: 'usd', source_types: { card: 2000 } },
    ]);
    const [txn, ...others] = (await stripe.balanceTransactions.list()).data;
    expect(others).toEqual([]);
    expect(txn).toMatchObject({
      object: 'balance_transaction',
      type: 'charge',
      reporting_category: 'charge',
      amount: 2000,
      fee: 0,
      fee_details: [],
      net: 2000,
      currency: 'usd',
      status: 'pending',
      source: intent.latest_charge,
    });
    if (!txn) throw new Error('no balance transaction');
    expect(txn.id).toMatch(/^txn_/);
    expect(txn.available_on).toBeGreaterThan(clock.frozen_time);
    expect(txn.created).toBe(clock.frozen_time);

    // A second before its day, still pending; on it, available.
    await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: txn.available_on - 1 });
    expect((await stripe.balanceTransactions.retrieve(txn.id)).status).toBe('pending');
    const advanced = await stripe.testHelpers.testClocks.advance(clock.id, {
      frozen_time: txn.available_on,
    });
    expect(advanced).toMatchObject({ status: 'ready', frozen_time: txn.available_on });
    const balance = await stripe.balance.retrieve();
    expect(balance.available).toEqual([{ amount: 2000, currency: 'usd', source_types: { card: 2000 } }]);
    expect(balance.pending).toEqual([{ amount: 0, currency: 'usd', source_types: { card: 0 } }]);
    expect(await stripe.balanceTransactions.retrieve(txn.id)).toEqual({ ...txn, status: 'available' });
    // Funds becoming available are no balance transaction of their own.
    expect((await stripe.balanceTransactions.list()).data.map((item) => item.id)).toEqual([txn.id]);

    // The native ledger holds the same money.
    const native = await t.get<{ data: { available: number; pending: number }[] }>(m, '/v1/balances');
    expect(native.body.data[0]).toMatchObject({ currency: 'USD', available: 20, pending: 0 });
  });

  it('lists with filters and pages both ways, newest first', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const top = await t.post(m, '/v1/simulate/balance/top_up', { amount: '7.00', currency: 'USD' });
    expect(top.status).toBe(200);
    await t.post(m, '/v1/simulate/balance/top_up', { amount: '3.00', currency: 'EUR' });
    const first = await paid(stripe, 1000);
    const second = await paid(stripe, 1500);
    const refund = await stripe.refunds.create({ payment_intent: first.id, amount: 400 });

    const all = (await stripe.balanceTransactions.list()).data;
    expect(all.map((txn) => [txn.type, txn.amount, txn.currency, txn.source])).toEqual([
      ['refund', -400, 'usd', refund.id],
      ['charge', 1500, 'usd', second.latest_charge],
      ['charge', 1000, 'usd', first.latest_charge],
      ['topup', 300, 'eur', null],
      ['topup', 700, 'usd', null],
    ]);
    expect(all[0]).toMatchObject({ status: 'available', reporting_category: 'refund' });
    expect(all[3]).toMatchObject({ status: 'available', reporting_category: 'topup' });

    const balance = await stripe.balance.retrieve();
    expect(balance.available).toEqual([
      { amount: 300, currency: 'usd', source_types: { card: 300 } },
      { amount: 300, currency: 'eur', source_types: { card: 300 } },
    ]);
    expect(balance.pending.map((part) => part.amount)).toEqual([2500, 0]);

    const charges = await stripe.balanceTransactions.list({ type: 'charge' });
    expect(charges.data.map((txn) => txn.source)).toEqual([second.latest_charge, first.latest_charge]);
    const ofFirst = await stripe.balanceTransactions.list({ source: first.latest_charge as string });
    expect(ofFirst.data.map((txn) => txn.type)).toEqual(['charge']);
    expect((await stripe.balanceTransactions.list({ type: 'payout' })).data).toEqual([]);
    const euros = await stripe.balanceTransactions.list({ currency: 'eur' });
    expect(euros.data.map((txn) => txn.amount)).toEqual([300]);

    const page = await stripe.balanceTransactions.list({ limit: 2 });
    expect(page.has_more).toBe(true);
    expect(page.data.map((txn) => txn.id)).toEqual(all.slice(0, 2).map((txn) => txn.id));
    const next = await stripe.balanceTransactions.list({ limit: 2, starting_after: page.data[1]?.id });
    expect(next.data.map((txn) => txn.id)).toEqual(all.slice(2, 4).map((txn) => txn.id));
    const back = await stripe.balanceTransactions.list({ limit: 2, ending_before: all[3]?.id });
    expect(back.data.map((txn) => txn.id)).toEqual(all.slice(1, 3).map((txn) => txn.id));
    expect(back.has_more).toBe(true);

    const walked: string[] = [];
    for await (const txn of stripe.balanceTransactions.list({ limit: 2 })) walked.push(txn.id);
    expect(walked).toEqual(all.map((txn) => txn.id));
  });

  it('refuses bad input with Stripe errors, naming the parameter', async () => {
    const stripe = client(await t.merchant());
    const missing = await refusal(stripe.balanceTransactions.retrieve('txn_nothing'));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect(missing.message).toBe("No such balance_transaction: 'txn_nothing'");
    const native = await refusal(stripe.balanceTransactions.retrieve('btx_nothing'));
    expect(native.statusCode).toBe(404);
    const currency = await refusal(stripe.balanceTransactions.list({ currency: 'chf' }));
    expect(currency).toMatchObject({ statusCode: 400, param: 'currency' });
    const unknown = await refusal(stripe.balanceTransactions.list({ payout: 'po_1' }));
    expect(unknown).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'payout' });
    const limit = await refusal(stripe.balanceTransactions.list({ limit: 0 }));
    expect(limit).toMatchObject({ statusCode: 400, param: 'limit' });
    const cursor = await refusal(stripe.balanceTransactions.list({ starting_after: 'ch_1' }));
    expect(cursor).toMatchObject({ statusCode: 404, param: 'starting_after' });
    const expand = await refusal(stripe.balance.retrieve({ expand: ['available'] }));
    expect(expand).toMatchObject({ statusCode: 400, param: 'expand' });
  });
});
