/**
 * The Stripe dialect's disputes, driven by the official `stripe` SDK over the native disputes: a
 * payment with pm_card_createDispute is disputed a day after its capture (a test clock moves the
 * merchant's clock there); the dispute is listed by charge and PaymentIntent, retrieved, given
 * evidence that wins it two days later, or closed (lost); bad input is refused writing nothing.
 */
import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { refusal, stripeDialect } from '../../support/stripe.ts';

const { t, client } = stripeDialect();

const DAY = 86_400;

/** A merchant whose payment with `method` is disputed: the test clock a day and a second after it. */
async function disputed(method: string, amount = 3000) {
  const m = await t.merchant();
  const stripe = client(m);
  const clock = await stripe.testHelpers.testClocks.create({ frozen_time: Math.floor(Date.now() / 1000) });
  const intent = await stripe.paymentIntents.create({
    amount,
    currency: 'usd',
    payment_method: method,
    confirm: true,
  });
  expect(intent.status).toBe('succeeded');
  expect((await stripe.disputes.list()).data).toEqual([]);
  const moved = await stripe.testHelpers.testClocks.advance(clock.id, {
    frozen_time: clock.frozen_time + DAY + 1,
  });
  const [dispute, ...others] = (await stripe.disputes.list()).data;
  expect(others).toEqual([]);
  if (!dispute) throw new Error('no dispute');
  return { m, stripe, clock: moved, intent, dispute };
}

describe('disputes through the stripe SDK', () => {
  it('pm_card_createDispute is disputed a day after capture; evidence submitted wins it', async () => {
    const { stripe, clock, intent, dispute } = await disputed('pm_card_createDispute');
    expect(dispute).toMatchObject({
      object: 'dispute',
      amount: 3000,
      currency: 'usd',
      charge: intent.latest_charge,
      payment_intent: intent.id,
      reason: 'fraudulent',
      status: 'needs_response',
      is_charge_refundable: false,
      livemode: false,
      metadata: {},
      evidence_details: { has_evidence: false, past_due: false, submission_count: 0 },
      payment_method_details: { type: 'card', card: { brand: 'visa', case_type: 'chargeback' } },
    });
    expect(dispute.id).toMatch(/^dp_/);
    expect(dispute.evidence.uncategorized_text).toBeNull();
    expect(dispute.evidence_details.due_by).toBe(dispute.created + 7 * DAY);
    expect(dispute.balance_transactions.map((txn) => [txn.type, txn.amount, txn.reporting_category])).toEqual(
      [
        ['adjustment', -3000, 'dispute'],
        ['stripe_fee', -1500, 'fee'],
      ],
    );
    expect((await stripe.charges.retrieve(intent.latest_charge as string)).disputed).toBe(true);

    expect(await stripe.disputes.retrieve(dispute.id)).toEqual(dispute);
    const byCharge = await stripe.disputes.list({ charge: intent.latest_charge as string });
    expect(byCharge.data.map((d) => d.id)).toEqual([dispute.id]);
    const byIntent = await stripe.disputes.list({ payment_intent: intent.id });
    expect(byIntent.data.map((d) => d.id)).toEqual([dispute.id]);

    const saved = await stripe.disputes.update(dispute.id, {
      evidence: { product_description: 'A pair of shoes' },
      submit: false,
    });
    expect(saved).toMatchObject({
      status: 'needs_response',
      evidence: { product_description: 'A pair of shoes' },
      evidence_details: { has_evidence: true, submission_count: 0 },
    });
    const submitted = await stripe.disputes.update(dispute.id, {
      evidence: { uncategorized_text: 'winning_evidence', customer_name: 'Jenny Rosen' },
    });
    expect(submitted).toMatchObject({
      status: 'under_review',
      evidence: {
        product_description: 'A pair of shoes',
        uncategorized_text: 'winning_evidence',
        customer_name: 'Jenny Rosen',
        billing_address: null,
      },
      evidence_details: { has_evidence: true, submission_count: 1 },
    });

    await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: clock.frozen_time + 2 * DAY });
    const won = await stripe.disputes.retrieve(dispute.id);
    expect(won.status).toBe('won');
    expect(won.balance_transactions.map((txn) => [txn.amount, txn.reporting_category])).toEqual([
      [-3000, 'dispute'],
      [-1500, 'fee'],
      [3000, 'dispute_reversal'],
      [1500, 'dispute_reversal'],
    ]);
    const closed = await refusal(stripe.disputes.close(dispute.id));
    expect(closed.statusCode).toBe(400);
    expect(closed.message).toContain('won');
  });

  it('closing a dispute accepts it: lost, its debit standing', async () => {
    const { stripe, intent, dispute } = await disputed('pm_card_createDisputeProductNotReceived', 2500);
    expect(dispute.reason).toBe('product_not_received');
    const before = (await stripe.balance.retrieve()).available[0]?.amount;
    const closed = await stripe.disputes.close(dispute.id);
    expect(closed).toMatchObject({ id: dispute.id, status: 'lost', charge: intent.latest_charge });
    expect((await stripe.balance.retrieve()).available[0]?.amount).toBe(before);
    const late = await refusal(stripe.disputes.update(dispute.id, { evidence: { uncategorized_text: 'x' } }));
    expect(late).toMatchObject({ statusCode: 400 });
    expect(late.message).toContain('lost');
  });

  it('an inquiry (pm_card_createDisputeInquiry) is a warning_needs_response, the charge refundable', async () => {
    const { stripe, dispute } = await disputed('pm_card_createDisputeInquiry');
    expect(dispute).toMatchObject({
      status: 'warning_needs_response',
      is_charge_refundable: true,
      balance_transactions: [],
      payment_method_details: { card: { case_type: 'inquiry' } },
    });
    expect((await stripe.disputes.close(dispute.id)).status).toBe('warning_closed');
  });

  it('refuses bad input with Stripe errors, writing nothing', async () => {
    const { stripe, dispute } = await disputed('pm_card_createDispute');
    const unkept = await refusal(
      stripe.disputes.update(dispute.id, { evidence: { billing_address: '1 Main St' } }),
    );
    expect(unkept).toMatchObject({ statusCode: 400, param: 'evidence[billing_address]' });
    const unknown = await refusal(
      stripe.disputes.update(dispute.id, {
        evidence: { favourite_colour: 'blue' } as Stripe.DisputeUpdateParams.Evidence,
      }),
    );
    expect(unknown).toMatchObject({
      statusCode: 400,
      code: 'parameter_unknown',
      param: 'evidence[favourite_colour]',
    });
    const metadata = await refusal(stripe.disputes.update(dispute.id, { metadata: { a: 'b' } }));
    expect(metadata).toMatchObject({ statusCode: 400, param: 'metadata' });
    const empty = await refusal(stripe.disputes.update(dispute.id, { submit: true }));
    expect(empty).toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'evidence' });
    const long = await refusal(
      stripe.disputes.update(dispute.id, { evidence: { uncategorized_text: 'x'.repeat(5001) } }),
    );
    expect(long).toMatchObject({ statusCode: 400, param: 'evidence[uncategorized_text]' });
    expect(await stripe.disputes.retrieve(dispute.id)).toEqual(dispute);

    const missing = await refusal(stripe.disputes.retrieve('dp_nothing'));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'id' });
    expect((await refusal(stripe.disputes.close('dp_nothing'))).statusCode).toBe(404);
    const charge = await refusal(stripe.disputes.list({ charge: 'py_1' }));
    expect(charge).toMatchObject({ statusCode: 404, param: 'charge' });
    const intent = await refusal(stripe.disputes.list({ payment_intent: 'pi_nothing' }));
    expect(intent).toMatchObject({ statusCode: 404, param: 'payment_intent' });
  });
});
