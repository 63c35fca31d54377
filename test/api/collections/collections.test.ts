import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../../src/db/events.table.ts';
import { cardPayments } from '../../../src/modules/card-payments/card-payments.table.ts';
import { collections } from '../../../src/modules/collections/collections.table.ts';
import { createTestApp, PUBLIC_URL, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const card = (number: string, extra: Record<string, unknown> = {}) => ({
  method: 'card',
  card: { number, exp_month: 12, exp_year: 2099, cvc: number.startsWith('3') ? '1234' : '123' },
  ...extra,
});

describe('POST /v1/collect', () => {
  beforeAll(async () => {
    m = await t.merchant();
  });

  it('accepts only amount and currency and answers as specified', async () => {
    const res = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: 100, currency: 'USD' },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.checkout_url).toMatch(
      new RegExp(`^${PUBLIC_URL}/checkout/${res.body.id}\\?secret=[\\w-]{43}$`),
    );
    expect(res.body.reference).toBe(res.body.id);
    expect(res.body.state).toBe('pending');
    expect(res.text).toContain('"amount":100.00');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
  });

  it('echoes the reference and keeps two-decimal amounts exact', async () => {
    const res = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: '100.50', currency: 'USD', email: 'payer@example.com', reference: 'order:42.A-b_c' },
    });
    expect(res.status).toBe(200);
    expect(res.body.reference).toBe('order:42.A-b_c');
    expect(res.text).toContain('"amount":100.50');
    expect(res.body.email).toBe('payer@example.com');
    const expires = Date.parse(String(res.body.expires_at)) - Date.parse(String(res.body.created_at));
    expect(expires).toBe(86_400_000);
  });

  it('rejects a reused reference with 409 duplicate_reference and writes nothing', async () => {
    const before = await t.countRows(collections, m.id);
    const res = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: 1, currency: 'USD', reference: 'order:42.A-b_c' },
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      status: 'error',
      error: { code: 'duplicate_reference', type: 'conflict_error', param: 'reference' },
    });
    expect(await t.countRows(collections, m.id)).toBe(before);
  });

  it('keeps merchants apart: another merchant gets 404 and may reuse the reference', async () => {
    const other = await t.merchant('Other');
    const res = await t.rest('GET', '/v1/collections/order:42.A-b_c', { key: other.secretKey });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: 'resource_not_found', type: 'not_found_error' } });
    const created = await t.rest('POST', '/v1/collect', {
      key: other.secretKey,
      body: { amount: 1, currency: 'USD', reference: 'order:42.A-b_c' },
    });
    expect(created.status).toBe(200);
  });

  it('reserves the col_ prefix for ids, so a reference can never shadow another collection', async () => {
    const first = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: 10, currency: 'USD', reference: 'shadow-a' },
    });
    const res = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: 99, currency: 'USD', reference: String(first.body.id) },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'reference_invalid', param: 'reference' } });
    const byId = await t.rest('GET', `/v1/collections/${first.body.id}`, { key: m.secretKey });
    expect(byId.body).toMatchObject({ reference: 'shadow-a', amount: 10 });
  });

  it('stores the extension fields and the expiry', async () => {
    const res = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: {
        amount: 12,
        currency: 'USD',
        description: 'Two coffees',
        redirect_url: 'https://shop.example/return',
        metadata: { order: '42' },
        expires_in: 1800,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      description: 'Two coffees',
      redirect_url: 'https://shop.example/return',
      metadata: { order: '42' },
    });
    expect(Date.parse(String(res.body.expires_at)) - Date.parse(String(res.body.created_at))).toBe(1_800_000);
  });
});

describe('concurrent creation (group commit)', () => {
  it('writes every collection with its created event, and lets one of two racing references win', async () => {
    const racer = await t.merchant('Racer');
    const requests = Array.from({ length: 40 }, (_, i) =>
      t.rest('POST', '/v1/collect', {
        key: racer.secretKey,
        body: { amount: i + 1, currency: 'USD', reference: i < 2 ? 'same' : `r-${i}` },
      }),
    );
    const responses = await Promise.all(requests);
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(39);
    expect(responses.find((r) => r.status === 409)?.body).toMatchObject({
      error: { code: 'duplicate_reference' },
    });
    expect(await t.countRows(collections, racer.id)).toBe(39);
    expect(await t.countRows(events, racer.id)).toBe(39);
  });
});

describe('collections lifecycle', () => {
  let merchant: TestMerchant;
  beforeAll(async () => {
    merchant = await t.merchant();
  });

  async function collect(reference: string) {
    const res = await t.rest('POST', '/v1/collect', {
      key: merchant.secretKey,
      body: { amount: 25, currency: 'USD', reference },
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  it('a successful card payment makes it succeeded, visible over REST and GraphQL', async () => {
    await collect('life-1');
    const paid = await t.rest('POST', '/v1/simulate/collections/life-1/pay', {
      key: merchant.secretKey,
      body: card('4242424242424242'),
    });
    expect(paid.status).toBe(200);
    // The checkout's card attempt is a real card payment, linked to the collection and captured.
    expect(paid.body).toMatchObject({
      state: 'succeeded',
      payment: {
        object: 'card_payment',
        state: 'captured',
        network_response_code: '00',
        brand: 'visa',
        last4: '4242',
        amount: 25,
        amount_captured: 25,
        collection: paid.body.id,
        reference: 'life-1',
      },
    });
    const q = await t.gql<{ collection: { state: string } }>(
      'query($r: String!) { collection(reference: $r) { state } }',
      { r: 'life-1' },
      { key: merchant.secretKey },
    );
    expect(q.data.collection.state).toBe('succeeded');
    const again = await t.rest('POST', '/v1/simulate/collections/life-1/pay', {
      key: merchant.secretKey,
      body: card('4242424242424242'),
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'collection_not_payable' } });
  });

  it('a declined card keeps it pending and records the declined card payment in its history', async () => {
    await collect('life-2');
    const res = await t.rest('POST', '/v1/simulate/collections/life-2/pay', {
      key: merchant.secretKey,
      body: card('4000000000000002'),
    });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline' },
    });
    const paymentId = (res.body.error as { payment_id: string }).payment_id;
    expect(paymentId).toMatch(/^cp_/);
    // The payer retries with a good card: the history shows both, newest first.
    const retry = await t.rest('POST', '/v1/simulate/collections/life-2/pay', {
      key: merchant.secretKey,
      body: card('5555555555554444'),
    });
    expect(retry.status).toBe(200);
    const got = await t.rest<{ state: string; payments: Record<string, unknown>[] }>(
      'GET',
      '/v1/collections/life-2',
      { key: merchant.secretKey },
    );
    expect(got.body.state).toBe('succeeded');
    expect(got.body.payments).toEqual([
      expect.objectContaining({ object: 'card_payment', state: 'captured', last4: '4444' }),
      expect.objectContaining({
        id: paymentId,
        object: 'card_payment',
        state: 'declined',
        decline_code: 'generic_decline',
        network_response_code: '05',
      }),
    ]);
    const gql = await t.gql<{
      collection: { cardPayments: { state: string; declineCode: string | null }[] };
    }>(
      'query { collection(reference: "life-2") { cardPayments { state declineCode } } }',
      {},
      { key: merchant.secretKey },
    );
    expect(gql.data.collection.cardPayments).toEqual([
      { state: 'captured', declineCode: null },
      { state: 'declined', declineCode: 'generic_decline' },
    ]);
  });

  it('runs the 3-D Secure challenge headlessly', async () => {
    await collect('life-3');
    const res = await t.rest('POST', '/v1/simulate/collections/life-3/pay', {
      key: merchant.secretKey,
      body: card('4000002500003155'),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      state: 'pending',
      payment: { object: 'card_payment', state: 'requires_action' },
      next_action: { type: 'three_d_secure', url: expect.stringContaining('/checkout/') },
    });
    // The card payment's own simulate step completes it, and its capture pays the collection.
    const payment = (res.body.payment as { id: string }).id;
    const done = await t.rest('POST', `/v1/simulate/card_payments/${payment}/complete_3ds`, {
      key: merchant.secretKey,
      body: { outcome: 'succeed' },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      state: 'captured',
      three_d_secure: 'succeeded',
      collection: res.body.id,
    });
    const got = await t.rest('GET', '/v1/collections/life-3', { key: merchant.secretKey });
    expect(got.body.state).toBe('succeeded');
    expect(got.body.payment_attempts).toEqual([]); // kept for bank attempts (additive contract)
    // The deprecated alias takes the card payment's id and answers with the collection.
    await collect('life-3a');
    const challenged = await t.rest('POST', '/v1/simulate/collections/life-3a/pay', {
      key: merchant.secretKey,
      body: card('4000002500003155'),
    });
    expect(challenged.body.payment_attempt).toBeNull();
    const alias = await t.rest(
      'POST',
      `/v1/simulate/payment_attempts/${(challenged.body.payment as { id: string }).id}/complete_3ds`,
      { key: merchant.secretKey, body: { outcome: 'succeed' } },
    );
    expect(alias.status).toBe(200);
    expect(alias.body).toMatchObject({ state: 'succeeded', payment: { state: 'captured' } });
  });

  it('a collection that leaves pending declines its open 3-D Secure payments; a late answer captures nothing', async () => {
    await collect('life-3b');
    const res = await t.rest('POST', '/v1/simulate/collections/life-3b/pay', {
      key: merchant.secretKey,
      body: card('4000002500003155'),
    });
    const payment = (res.body.payment as { id: string }).id;
    await t.rest('POST', '/v1/collections/life-3b/cancel', { key: merchant.secretKey });
    const late = await t.rest('POST', `/v1/simulate/card_payments/${payment}/complete_3ds`, {
      key: merchant.secretKey,
      body: { outcome: 'succeed' },
    });
    // Canceling the collection declined the payment still waiting on its challenge.
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: { code: 'invalid_state' } });
    const after = await t.rest('GET', `/v1/card_payments/${payment}`, { key: merchant.secretKey });
    expect(after.body).toMatchObject({
      state: 'declined',
      decline_code: 'checkout_closed',
      amount_captured: 0,
    });
  });

  it('4000008400001629 passes the challenge and is then declined', async () => {
    await collect('life-4');
    const res = await t.rest('POST', '/v1/simulate/collections/life-4/pay', {
      key: merchant.secretKey,
      body: card('4000008400001629', { three_d_secure: 'succeed' }),
    });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ error: { code: 'card_declined', decline_code: 'generic_decline' } });
    expect((await t.rest('GET', '/v1/collections/life-4', { key: merchant.secretKey })).body.state).toBe(
      'pending',
    );
  });

  it('a bank account payment moves it to processing with an ACH debit of the account', async () => {
    await collect('life-5');
    const res = await t.rest('POST', '/v1/simulate/collections/life-5/pay', {
      key: merchant.secretKey,
      body: {
        method: 'bank_account',
        bank_account: { routing_number: '110000000', account_number: '000123456789' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      state: 'processing',
      payment: {
        object: 'transfer',
        rail: 'ach',
        direction: 'debit',
        state: 'pending',
        sec_code: 'WEB',
        counterparty: { account_number: '••••6789' },
        collection: res.body.id,
        reference: 'life-5',
      },
      payment_attempt: null,
    });
    const bad = await t.rest('POST', '/v1/simulate/collections/life-5/pay', {
      key: merchant.secretKey,
      body: {
        method: 'bank_account',
        bank_account: { routing_number: '110000001', account_number: '000123456789' },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_routing_number' } });
  });

  it('cancels a pending collection once', async () => {
    await collect('life-6');
    const res = await t.rest('POST', '/v1/collections/life-6/cancel', { key: merchant.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('canceled');
    const again = await t.rest('POST', '/v1/collections/life-6/cancel', { key: merchant.secretKey });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'invalid_state' } });
    expect(String((again.body.error as { message: string }).message)).toContain('canceled');
  });

  it('validation failures of a payment write no payment', async () => {
    await collect('life-7');
    const res = await t.rest('POST', '/v1/simulate/collections/life-7/pay', {
      key: merchant.secretKey,
      body: card('4242424242424241'),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'invalid_card_number', param: 'card.number' } });
    expect(await t.countRows(cardPayments, merchant.id)).toBeGreaterThan(0);
    const got = await t.rest('GET', '/v1/collections/life-7', { key: merchant.secretKey });
    expect(got.body.payments).toEqual([]);
  });

  it('lists newest first with cursor pagination', async () => {
    const fresh = await t.merchant();
    const refs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.rest('POST', '/v1/collect', {
        key: fresh.secretKey,
        body: { amount: i + 1, currency: 'USD', reference: `p-${i}` },
      });
      refs.push(String(res.body.reference));
    }
    const first = await t.rest<{ data: { reference: string }[]; has_more: boolean; next_cursor: string }>(
      'GET',
      '/v1/collections?limit=2',
      { key: fresh.secretKey },
    );
    expect(first.body.data.map((c) => c.reference)).toEqual(['p-4', 'p-3']);
    expect(first.body.has_more).toBe(true);
    const second = await t.rest<{
      data: { reference: string }[];
      has_more: boolean;
      next_cursor: string | null;
    }>('GET', `/v1/collections?limit=3&starting_after=${first.body.next_cursor}`, { key: fresh.secretKey });
    expect(second.body.data.map((c) => c.reference)).toEqual(['p-2', 'p-1', 'p-0']);
    expect(second.body.has_more).toBe(false);
    expect(second.body.next_cursor).toBeNull();
    const bad = await t.rest('GET', '/v1/collections?limit=101', { key: fresh.secretKey });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'parameter_invalid', param: 'limit' } });
  });
});
