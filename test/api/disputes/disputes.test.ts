/**
 * Disputes end to end, through REST, GraphQL and a Standard Webhooks receiver on loopback: the
 * magic cards (a dispute or an early fraud warning a day after capture, on the simulated clock),
 * the simulate step, evidence and the review (won, lost), no response, inquiries, closing, the
 * simulated resolution, and the refusals (4xx, nothing changes). The ledger sums to zero after
 * every step; the merchant's available balance moves by the amounts docs/guide/disputes.md names.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { expectLedgerBalanced } from '../../support/ledger.ts';
import { headerMap, Receiver } from '../../support/receiver.ts';

type Json = Record<string, unknown>;

const DAY = 86_400;

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestApp();
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

async function ok(res: Promise<{ status: number; body: Json; text: string }>): Promise<Json> {
  const answer = await res;
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

const expectLedgerBalancedOf = (m: TestMerchant) => expectLedgerBalanced(t.database.db, m.id);

/** Moves the merchant's clock (running what falls due and delivering webhooks), then checks the ledger. */
async function advance(m: TestMerchant, seconds: number): Promise<void> {
  await ok(t.post(m, '/v1/clock/advance', { seconds }));
  await expectLedgerBalancedOf(m);
}

/**
 * The merchant's USD balance in cents, available and pending together: a capture's pending credit
 * becomes available as the clock moves, a dispute's postings move available alone.
 */
async function balances(m: TestMerchant): Promise<{ available: number }> {
  const body = await ok(t.get(m, '/v1/balances'));
  const usd = (body.data as Json[]).find((b) => b.currency === 'USD') as Json;
  const cents = (value: unknown) => Math.round(Number(value) * 100);
  return { available: cents(usd.available) + cents(usd.pending) };
}

/** A merchant with a frozen clock and a webhook endpoint for every event; its secret. */
async function merchant(): Promise<{ m: TestMerchant; secret: string }> {
  const m = await t.merchant('Disputes');
  await ok(t.post(m, '/v1/clock/freeze'));
  const endpoint = await ok(t.post(m, '/v1/webhook_endpoints', { url: receiver.url }));
  return { m, secret: String(endpoint.secret) };
}

async function pay(m: TestMerchant, number: string, amount = 100, capture = true): Promise<Json> {
  const body = await ok(
    t.post(m, '/v1/card_payments', {
      amount,
      currency: 'USD',
      capture,
      card: { number, exp_month: 12, exp_year: 2099, cvc: '123' },
    }),
  );
  await expectLedgerBalancedOf(m);
  return body;
}

/** The events the receiver got, verified with the endpoint's secret (Standard Webhooks), as {type, object}. */
function delivered(secret: string): { type: string; object: Json }[] {
  receiver.assertConforming();
  const wh = new Webhook(secret);
  return receiver.received.map((r) => {
    const event = wh.verify(r.body, headerMap(r.headers)) as { type: string; data: { object: Json } };
    return { type: event.type, object: event.data.object };
  });
}

function deliveredOf(secret: string, type: string, id: string): Json | undefined {
  return delivered(secret).find((e) => e.type === type && e.object.id === id)?.object;
}

const DISPUTE_FIELDS = `id state reason inquiry cardPaymentId outcomeReason evidence
  amount { amount currency } fee { amount currency } evidenceDueBy reviewEndsAt`;

async function gqlDispute(m: TestMerchant, id: string): Promise<Json> {
  const res = await t.gql<{ dispute: Json }>(
    `query ($id: ID!) { dispute(id: $id) { ${DISPUTE_FIELDS} } }`,
    { id },
    {
      key: m.secretKey,
    },
  );
  expect(res.errors).toBeUndefined();
  return res.data.dispute;
}

/** Everything a refused request must leave as it was. */
async function snapshot(m: TestMerchant): Promise<unknown> {
  const [disputes, events, payments, bal] = await Promise.all([
    ok(t.get(m, '/v1/disputes?limit=100')),
    ok(t.get(m, '/v1/events?limit=100')),
    ok(t.get(m, '/v1/card_payments?limit=100')),
    balances(m),
  ]);
  return { disputes: disputes.data, events: events.data, payments: payments.data, bal };
}

describe('magic cards', () => {
  it('4000000000000259: a fraudulent chargeback a day after capture; winning evidence wins it (the amount and fee come back)', async () => {
    const { m, secret } = await merchant();
    const payment = await pay(m, '4000000000000259');
    expect(payment).toMatchObject({ state: 'captured', dispute: null, early_fraud_warning: null });
    const before = await balances(m);

    await advance(m, DAY - 1);
    expect((await ok(t.get(m, `/v1/card_payments/${payment.id}`))).dispute).toBeNull();
    await advance(m, 1);
    const paid = await ok(t.get(m, `/v1/card_payments/${payment.id}`));
    const disputeId = String(paid.dispute);
    expect(disputeId).toMatch(/^dp_/);
    expect(paid.state).toBe('captured');
    const dispute = await ok(t.get(m, `/v1/disputes/${disputeId}`));
    expect(dispute).toMatchObject({
      object: 'dispute',
      card_payment: payment.id,
      state: 'needs_response',
      reason: 'fraudulent',
      inquiry: false,
      amount: 100,
      fee: 15,
      evidence: {},
      evidence_submitted_at: null,
      outcome_reason: null,
    });
    expect(Date.parse(String(dispute.evidence_due_by)) - Date.parse(String(dispute.created_at))).toBe(
      7 * DAY * 1000,
    );
    expect((await balances(m)).available).toBe(before.available - 11_500);
    expect(deliveredOf(secret, 'dispute.needs_response', disputeId)).toMatchObject({ amount: 100, fee: 15 });

    // GraphQL: the dispute, and the card payment naming it.
    expect(await gqlDispute(m, disputeId)).toMatchObject({
      state: 'needs_response',
      reason: 'fraudulent',
      amount: { amount: '100.00', currency: 'USD' },
      fee: { amount: '15.00', currency: 'USD' },
    });
    const viaPayment = await t.gql<{ cardPayment: { disputeId: string; dispute: { id: string } } }>(
      'query ($id: ID!) { cardPayment(id: $id) { disputeId dispute { id } } }',
      { id: payment.id },
      { key: m.secretKey },
    );
    expect(viaPayment.data.cardPayment).toEqual({ disputeId, dispute: { id: disputeId } });

    // Evidence through GraphQL: under review for two days, then won.
    const submitted = await t.gql<{ updateDispute: Json }>(
      `mutation ($id: ID!) { updateDispute(id: $id, evidence: { productDescription: "Shoes", uncategorizedText: "winning_evidence" }) {
        __typename ... on MutationUpdateDisputeSuccess { data { state evidence reviewEndsAt } } } }`,
      { id: disputeId },
      { key: m.secretKey },
    );
    expect(submitted.errors).toBeUndefined();
    expect(submitted.data.updateDispute).toMatchObject({
      data: {
        state: 'under_review',
        evidence: { product_description: 'Shoes', uncategorized_text: 'winning_evidence' },
      },
    });
    await expectLedgerBalancedOf(m);
    await advance(m, 2 * DAY - 1);
    expect((await ok(t.get(m, `/v1/disputes/${disputeId}`))).state).toBe('under_review');
    await advance(m, 1);
    expect(await ok(t.get(m, `/v1/disputes/${disputeId}`))).toMatchObject({
      state: 'won',
      outcome_reason: 'evidence',
      review_ends_at: null,
    });
    expect((await balances(m)).available).toBe(before.available);
    const types = delivered(secret)
      .filter((e) => e.object.id === disputeId)
      .map((e) => e.type);
    expect(types).toEqual(['dispute.needs_response', 'dispute.under_review', 'dispute.won']);

    // The postings: the amount and the fee out, the amount back.
    const postings = await ok(t.get(m, '/v1/balance_transactions?limit=100'));
    const ofDispute = (postings.data as Json[]).filter((p) => (p.source as Json).id === disputeId);
    expect(ofDispute.map((p) => [p.type, p.available]).sort()).toEqual([
      ['dispute', -100],
      ['dispute_fee', -15],
      ['dispute_fee_returned', 15],
      ['dispute_won', 100],
    ]);
  });

  it('4000000000002685: a product-not-received chargeback; losing evidence loses it and nothing more moves', async () => {
    const { m, secret } = await merchant();
    const payment = await pay(m, '4000000000002685', 40);
    const before = await balances(m);
    await advance(m, DAY);
    const disputeId = String((await ok(t.get(m, `/v1/card_payments/${payment.id}`))).dispute);
    expect(await ok(t.get(m, `/v1/disputes/${disputeId}`))).toMatchObject({
      state: 'needs_response',
      reason: 'product_not_received',
      amount: 40,
    });
    const afterDebit = await balances(m);
    expect(afterDebit.available).toBe(before.available - 5_500);
    expect(
      await ok(
        t.post(m, `/v1/disputes/${disputeId}`, { evidence: { shipping_tracking_number: 'losing_evidence' } }),
      ),
    ).toMatchObject({ state: 'under_review' });
    await advance(m, 2 * DAY);
    expect(await ok(t.get(m, `/v1/disputes/${disputeId}`))).toMatchObject({
      state: 'lost',
      outcome_reason: 'evidence',
    });
    expect((await balances(m)).available).toBe(afterDebit.available);
    expect(deliveredOf(secret, 'dispute.lost', disputeId)).toMatchObject({ state: 'lost' });
  });

  it('4000000000001976: an inquiry (warning_*), nothing debited; winning evidence closes it', async () => {
    const { m, secret } = await merchant();
    const payment = await pay(m, '4000000000001976', 60);
    const before = await balances(m);
    await advance(m, DAY);
    const disputeId = String((await ok(t.get(m, `/v1/card_payments/${payment.id}`))).dispute);
    expect(await ok(t.get(m, `/v1/disputes/${disputeId}`))).toMatchObject({
      state: 'warning_needs_response',
      inquiry: true,
      reason: 'general',
      fee: 0,
    });
    expect(await balances(m)).toEqual(before);
    await ok(
      t.post(m, `/v1/disputes/${disputeId}`, { evidence: { customer_communication: 'winning_evidence' } }),
    );
    expect((await gqlDispute(m, disputeId)).state).toBe('warning_under_review');
    await advance(m, 2 * DAY);
    expect(await ok(t.get(m, `/v1/disputes/${disputeId}`))).toMatchObject({
      state: 'warning_closed',
      outcome_reason: 'evidence',
    });
    expect(await balances(m)).toEqual(before);
    const types = delivered(secret)
      .filter((e) => e.object.id === disputeId)
      .map((e) => e.type);
    expect(types).toEqual([
      'dispute.warning_needs_response',
      'dispute.warning_under_review',
      'dispute.warning_closed',
    ]);
  });

  it('4000000000005423: an early fraud warning a day after capture, not a dispute (REST, GraphQL, webhook)', async () => {
    const { m, secret } = await merchant();
    const payment = await pay(m, '4000000000005423', 20);
    await advance(m, DAY);
    const warned = await ok(t.get(m, `/v1/card_payments/${payment.id}`));
    expect(warned).toMatchObject({
      state: 'captured',
      dispute: null,
      early_fraud_warning: { fraud_type: 'unauthorized_use_of_card', actionable: true },
    });
    expect((await ok(t.get(m, `/v1/disputes?card_payment=${payment.id}`))).data).toEqual([]);
    expect(deliveredOf(secret, 'card_payment.early_fraud_warning', String(payment.id))).toMatchObject({
      early_fraud_warning: { actionable: true },
    });
    const gql = await t.gql<{ cardPayment: Json }>(
      'query ($id: ID!) { cardPayment(id: $id) { earlyFraudWarning { fraudType actionable createdAt } } }',
      { id: payment.id },
      { key: m.secretKey },
    );
    expect(gql.data.cardPayment).toMatchObject({
      earlyFraudWarning: { fraudType: 'unauthorized_use_of_card', actionable: true },
    });
    // Refunding it in full heads off a dispute: the warning is no longer actionable.
    await ok(t.post(m, `/v1/card_payments/${payment.id}/refunds`, {}));
    expect((await ok(t.get(m, `/v1/card_payments/${payment.id}`))).early_fraud_warning).toMatchObject({
      actionable: false,
    });
    await advance(m, 30 * DAY);
    expect((await ok(t.get(m, '/v1/disputes'))).data).toEqual([]);
  });

  it('a magic dispute card refunded in full before the day is not disputed', async () => {
    const { m } = await merchant();
    const payment = await pay(m, '4000000000000259', 10);
    await ok(t.post(m, `/v1/card_payments/${payment.id}/refunds`, {}));
    await advance(m, 2 * DAY);
    expect((await ok(t.get(m, `/v1/card_payments/${payment.id}`))).dispute).toBeNull();
    expect((await ok(t.get(m, '/v1/disputes'))).data).toEqual([]);
  });

  it('an authorization of a magic card is disputed a day after its capture, not its authorization', async () => {
    const { m } = await merchant();
    const payment = await pay(m, '4000000000002685', 30, false);
    await advance(m, 2 * DAY);
    expect((await ok(t.get(m, '/v1/disputes'))).data).toEqual([]);
    await ok(t.post(m, `/v1/card_payments/${payment.id}/capture`, {}));
    await advance(m, DAY);
    expect((await ok(t.get(m, '/v1/disputes'))).data).toMatchObject([
      { card_payment: payment.id, state: 'needs_response', amount: 30 },
    ]);
  });
});

describe('the simulate step and the dispute operations', () => {
  it('disputes part of a partially refunded payment; refunds are then refused; closing loses it', async () => {
    const { m, secret } = await merchant();
    const payment = await pay(m, '4242424242424242', 100);
    await ok(t.post(m, `/v1/card_payments/${payment.id}/refunds`, { amount: 30 }));
    const before = await balances(m);

    const tooMuch = await t.post(m, `/v1/simulate/card_payments/${payment.id}/dispute`, { amount: 70.01 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toMatchObject({ error: { code: 'amount_invalid', param: 'amount' } });

    const dispute = await ok(
      t.post(m, `/v1/simulate/card_payments/${payment.id}/dispute`, { reason: 'duplicate', amount: '25.50' }),
    );
    expect(dispute).toMatchObject({ state: 'needs_response', reason: 'duplicate', amount: 25.5, fee: 15 });
    await expectLedgerBalancedOf(m);
    expect((await balances(m)).available).toBe(before.available - 4_050);
    expect((await ok(t.get(m, `/v1/card_payments/${payment.id}`))).dispute).toBe(dispute.id);

    const state = await snapshot(m);
    const again = await t.post(m, `/v1/simulate/card_payments/${payment.id}/dispute`, {});
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'invalid_state' } });
    const refund = await t.post(m, `/v1/card_payments/${payment.id}/refunds`, { amount: 1 });
    expect(refund.status).toBe(409);
    expect(refund.body).toMatchObject({ error: { code: 'invalid_state' } });
    expect(await snapshot(m)).toEqual(state);

    // A draft keeps the state; submitting nothing is refused.
    const draft = await ok(
      t.post(m, `/v1/disputes/${dispute.id}`, { evidence: { customer_name: 'Ada' }, submit: false }),
    );
    expect(draft).toMatchObject({ state: 'needs_response', evidence: { customer_name: 'Ada' } });
    const closed = await ok(t.post(m, `/v1/disputes/${dispute.id}/close`));
    expect(closed).toMatchObject({
      state: 'lost',
      outcome_reason: 'accepted',
      evidence: { customer_name: 'Ada' },
    });
    await expectLedgerBalancedOf(m);
    expect((await balances(m)).available).toBe(before.available - 4_050);

    const final = await snapshot(m);
    for (const [path, body] of [
      [`/v1/disputes/${dispute.id}/close`, {}],
      [`/v1/disputes/${dispute.id}`, { evidence: { uncategorized_text: 'late' } }],
      [`/v1/simulate/disputes/${dispute.id}/resolve`, { outcome: 'won' }],
    ] as const) {
      const res = await t.post(m, path, body);
      expect(res.status, path).toBe(409);
      expect(res.body).toMatchObject({ error: { code: 'invalid_state' } });
    }
    expect(await snapshot(m)).toEqual(final);
    await advance(m, 1);
    expect(deliveredOf(secret, 'dispute.lost', String(dispute.id))).toMatchObject({
      outcome_reason: 'accepted',
    });
  });

  it('no evidence by the due date loses a chargeback; an unanswered inquiry escalates first', async () => {
    const { m, secret } = await merchant();
    const payment = await pay(m, '5555555555554444', 50);
    const before = await balances(m);
    const inquiry = await ok(
      t.post(m, `/v1/simulate/card_payments/${payment.id}/dispute`, { inquiry: true }),
    );
    expect(inquiry).toMatchObject({ state: 'warning_needs_response', fee: 0, reason: 'general' });
    expect(await balances(m)).toEqual(before);
    await advance(m, 7 * DAY);
    const escalated = await ok(t.get(m, `/v1/disputes/${inquiry.id}`));
    expect(escalated).toMatchObject({ state: 'needs_response', inquiry: true, fee: 15 });
    expect((await balances(m)).available).toBe(before.available - 6_500);
    await advance(m, 7 * DAY - 1);
    expect((await ok(t.get(m, `/v1/disputes/${inquiry.id}`))).state).toBe('needs_response');
    await advance(m, 1);
    expect(await ok(t.get(m, `/v1/disputes/${inquiry.id}`))).toMatchObject({
      state: 'lost',
      outcome_reason: 'no_response',
    });
    expect((await balances(m)).available).toBe(before.available - 6_500);
    expect(
      delivered(secret)
        .filter((e) => e.object.id === inquiry.id)
        .map((e) => e.type),
    ).toEqual(['dispute.warning_needs_response', 'dispute.needs_response', 'dispute.lost']);
  });

  it('evidence that decides nothing stays under review until the simulated resolution (GraphQL)', async () => {
    const { m } = await merchant();
    const payment = await pay(m, '4242424242424242', 80);
    const before = await balances(m);
    const opened = await t.gql<{ simulateCardPaymentDispute: { data: Json } }>(
      `mutation ($id: ID!) { simulateCardPaymentDispute(id: $id, reason: product_unacceptable) {
        ... on MutationSimulateCardPaymentDisputeSuccess { data { id state reason } } } }`,
      { id: payment.id },
      { key: m.secretKey },
    );
    expect(opened.errors).toBeUndefined();
    const id = String(opened.data.simulateCardPaymentDispute.data.id);
    expect(opened.data.simulateCardPaymentDispute.data).toMatchObject({
      state: 'needs_response',
      reason: 'product_unacceptable',
    });
    await expectLedgerBalancedOf(m);
    await ok(t.post(m, `/v1/disputes/${id}`, { evidence: { product_description: 'As described' } }));
    await advance(m, 30 * DAY);
    expect((await ok(t.get(m, `/v1/disputes/${id}`))).state).toBe('under_review');
    const resolved = await t.gql<{ resolveDispute: { data: Json } }>(
      `mutation ($id: ID!) { resolveDispute(id: $id, outcome: won) {
        ... on MutationResolveDisputeSuccess { data { state outcomeReason } } } }`,
      { id },
      { key: m.secretKey },
    );
    expect(resolved.errors).toBeUndefined();
    expect(resolved.data.resolveDispute.data).toEqual({ state: 'won', outcomeReason: 'simulated' });
    await expectLedgerBalancedOf(m);
    expect((await balances(m)).available).toBe(before.available);
    const listed = await t.gql<{ disputes: { edges: { node: { id: string } }[] } }>(
      'query { disputes(first: 10) { edges { node { id } } } }',
      {},
      { key: m.secretKey },
    );
    expect(listed.data.disputes.edges.map((e) => e.node.id)).toEqual([id]);
  });

  it('an inquiry resolved lost escalates to a chargeback; closing an inquiry closes it', async () => {
    const { m } = await merchant();
    const first = await pay(m, '4242424242424242', 10);
    const second = await pay(m, '4242424242424242', 10);
    const before = await balances(m);
    const a = await ok(t.post(m, `/v1/simulate/card_payments/${first.id}/dispute`, { inquiry: true }));
    expect(await ok(t.post(m, `/v1/simulate/disputes/${a.id}/resolve`, { outcome: 'lost' }))).toMatchObject({
      state: 'needs_response',
      fee: 15,
    });
    await expectLedgerBalancedOf(m);
    expect((await balances(m)).available).toBe(before.available - 2_500);
    const b = await ok(t.post(m, `/v1/simulate/card_payments/${second.id}/dispute`, { inquiry: true }));
    expect(await ok(t.post(m, `/v1/disputes/${b.id}/close`))).toMatchObject({
      state: 'warning_closed',
      outcome_reason: 'accepted',
    });
    expect((await balances(m)).available).toBe(before.available - 2_500);
    await expectLedgerBalancedOf(m);
  });

  it('refuses, with 4xx and nothing changed, what cannot be disputed or is malformed', async () => {
    const { m } = await merchant();
    const authorized = await pay(m, '4242424242424242', 10, false);
    const voided = await pay(m, '4242424242424242', 10, false);
    await ok(t.post(m, `/v1/card_payments/${voided.id}/void`));
    const refunded = await pay(m, '4242424242424242', 10);
    await ok(t.post(m, `/v1/card_payments/${refunded.id}/refunds`, {}));
    const captured = await pay(m, '4242424242424242', 10);
    const declined = await t.post(m, '/v1/card_payments', {
      amount: 10,
      currency: 'USD',
      card: { number: '4000000000000002', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    expect(declined.status).toBe(402);
    const declinedId = String((declined.body.error as Json).payment_id);
    expect(declinedId).toMatch(/^cp_/);
    const state = await snapshot(m);
    const cases: [string, unknown, number, string][] = [
      [`/v1/simulate/card_payments/${authorized.id}/dispute`, {}, 409, 'invalid_state'],
      [`/v1/simulate/card_payments/${voided.id}/dispute`, {}, 409, 'invalid_state'],
      [`/v1/simulate/card_payments/${refunded.id}/dispute`, {}, 409, 'invalid_state'],
      [`/v1/simulate/card_payments/cp_nothing/dispute`, {}, 404, 'resource_not_found'],
      [`/v1/simulate/card_payments/${captured.id}/dispute`, { reason: 'bored' }, 400, 'parameter_invalid'],
      [`/v1/simulate/card_payments/${captured.id}/dispute`, { amount: 0 }, 400, 'amount_invalid'],
      [`/v1/simulate/card_payments/${captured.id}/dispute`, { amount: 10.01 }, 400, 'amount_invalid'],
      [`/v1/simulate/card_payments/${captured.id}/dispute`, { colour: 'red' }, 400, 'parameter_unknown'],
      [`/v1/disputes/dp_nothing`, { evidence: { uncategorized_text: 'x' } }, 404, 'resource_not_found'],
      [`/v1/disputes/dp_nothing/close`, {}, 404, 'resource_not_found'],
      [`/v1/simulate/disputes/dp_nothing/resolve`, { outcome: 'won' }, 404, 'resource_not_found'],
      [`/v1/simulate/card_payments/${declinedId}/dispute`, {}, 409, 'invalid_state'],
    ];
    for (const [path, body, status, code] of cases) {
      const res = await t.post(m, path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}: ${res.text}`).toBe(status);
      expect(res.body).toMatchObject({ status: 'error', error: { code } });
    }
    expect(await snapshot(m)).toEqual(state);
    await expectLedgerBalancedOf(m);

    // On an open dispute: submitting no evidence, a bad outcome, an over-long text.
    const dispute = await ok(t.post(m, `/v1/simulate/card_payments/${captured.id}/dispute`, {}));
    const open = await snapshot(m);
    for (const [path, body, status, code] of [
      [`/v1/disputes/${dispute.id}`, {}, 400, 'parameter_missing'],
      [`/v1/disputes/${dispute.id}`, { evidence: { uncategorized_text: '   ' } }, 400, 'parameter_missing'],
      [
        `/v1/disputes/${dispute.id}`,
        { evidence: { uncategorized_text: 'x'.repeat(5001) } },
        400,
        'parameter_invalid',
      ],
      [`/v1/disputes/${dispute.id}`, { evidence: { shoe_size: '9' } }, 400, 'parameter_unknown'],
      [`/v1/simulate/disputes/${dispute.id}/resolve`, { outcome: 'maybe' }, 400, 'parameter_invalid'],
    ] as const) {
      const res = await t.post(m, path, body);
      expect(res.status, `${path} ${JSON.stringify(body).slice(0, 80)}: ${res.text}`).toBe(status);
      expect(res.body).toMatchObject({ status: 'error', error: { code } });
    }
    expect(await snapshot(m)).toEqual(open);
    // Another merchant sees none of it.
    const other = await t.merchant('Other');
    expect((await t.get(other, `/v1/disputes/${dispute.id}`)).status).toBe(404);
    expect((await t.post(other, `/v1/disputes/${dispute.id}/close`)).status).toBe(404);
    expect((await ok(t.get(other, '/v1/disputes'))).data).toEqual([]);
  });

  it('a full refund racing a dispute: exactly one of them goes through, the ledger balanced', async () => {
    const { m } = await merchant();
    for (let round = 0; round < 6; round++) {
      const payment = await pay(m, '4242424242424242', 10);
      const [refund, dispute] = await Promise.all([
        t.post(m, `/v1/card_payments/${payment.id}/refunds`, {}),
        t.post(m, `/v1/simulate/card_payments/${payment.id}/dispute`, {}),
      ]);
      expect([refund.status, dispute.status].sort(), `${refund.text} ${dispute.text}`).toEqual([200, 409]);
      const after = await ok(t.get(m, `/v1/card_payments/${payment.id}`));
      expect(after.state === 'refunded').toBe(refund.status === 200);
      expect(after.dispute === null).toBe(dispute.status !== 200);
      await expectLedgerBalancedOf(m);
    }
  });

  it('an Idempotency-Key replays the dispute it opened', async () => {
    const { m } = await merchant();
    const payment = await pay(m, '4242424242424242', 10);
    const send = () =>
      t.rest<Json>('POST', `/v1/simulate/card_payments/${payment.id}/dispute`, {
        key: m.secretKey,
        body: { reason: 'unrecognized' },
        headers: { 'Idempotency-Key': 'dispute-once' },
      });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect((await ok(t.get(m, '/v1/disputes'))).data).toHaveLength(1);
    await expectLedgerBalancedOf(m);
  });

  it('racing resolutions and the review job: the dispute is won once, its postings made once', async () => {
    const { m } = await merchant();
    const payment = await pay(m, '4242424242424242', 40);
    const before = await balances(m);
    const dispute = await ok(t.post(m, `/v1/simulate/card_payments/${payment.id}/dispute`, {}));
    await expectLedgerBalancedOf(m);
    await ok(
      t.post(m, `/v1/disputes/${dispute.id}`, { evidence: { uncategorized_text: 'winning_evidence' } }),
    );
    await expectLedgerBalancedOf(m);
    const results = await Promise.all(
      [1, 2, 3].map(() => t.post(m, `/v1/simulate/disputes/${dispute.id}/resolve`, { outcome: 'won' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    await expectLedgerBalancedOf(m);
    // The review's end passes: its job finds the dispute decided and leaves it.
    await advance(m, 3 * DAY);
    expect(await ok(t.get(m, `/v1/disputes/${dispute.id}`))).toMatchObject({
      state: 'won',
      outcome_reason: 'simulated',
    });
    const postings = (await ok(t.get(m, `/v1/balance_transactions?source_id=${dispute.id}&limit=100`)))
      .data as Json[];
    expect(postings.map((p) => p.type).sort()).toEqual(
      ['dispute', 'dispute_fee', 'dispute_fee_returned', 'dispute_won'].sort(),
    );
    expect((await balances(m)).available).toBe(before.available);
    // A decided dispute refuses everything else.
    for (const [path, body] of [
      [`/v1/disputes/${dispute.id}/close`, {}],
      [`/v1/disputes/${dispute.id}`, { evidence: { uncategorized_text: 'more' } }],
      [`/v1/simulate/disputes/${dispute.id}/resolve`, { outcome: 'lost' }],
    ] as const) {
      const res = await t.post(m, path, body);
      expect(res.status, path).toBe(409);
      expect((res.body.error as Json).code, path).toBe('invalid_state');
    }
    await expectLedgerBalancedOf(m);
  });

  it('two racing disputes of one payment: one wins, the other is refused', async () => {
    const { m } = await merchant();
    const payment = await pay(m, '4242424242424242', 10);
    const results = await Promise.all(
      [1, 2, 3].map(() => t.post(m, `/v1/simulate/card_payments/${payment.id}/dispute`, {})),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect((await ok(t.get(m, '/v1/disputes'))).data).toHaveLength(1);
    await expectLedgerBalancedOf(m);
  });
});
