import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import iso8583 from '../../../reference/iso8583_response_codes.json' with { type: 'json' };
import { scheduledJobs } from '../../../src/db/scheduled-jobs.table.ts';
import { cardTokens } from '../../../src/modules/card-payments/card-payments.table.ts';
import { createTestApp, debugLogCapture, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { MAGIC_CARDS } from '../../support/magic-cards.ts';

// Everything the server logs, at debug level (each request is logged): raw card numbers must never be in it.
const logs = debugLogCapture();

let t: TestApp;
beforeAll(async () => {
  // The server's own logger configuration, at debug level.
  t = await createTestApp({ logger: logs.logger });
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, unknown>;

const card = (number: string, extra: Json = {}) => ({
  number,
  exp_month: 12,
  exp_year: 2099,
  cvc: number.startsWith('3') ? '1234' : '123',
  ...extra,
});

const pay = (m: TestMerchant, number: string, body: Json = {}) =>
  t.post(m, '/v1/card_payments', { amount: '100.00', currency: 'USD', card: card(number), ...body });

async function balances(m: TestMerchant) {
  const res = await t.rest<{ data: Json[] }>('GET', '/v1/balances', { key: m.secretKey });
  const usd = res.body.data.find((b) => b.currency === 'USD') ?? {};
  return { available: Number(usd.available ?? 0), pending: Number(usd.pending ?? 0) };
}

async function eventTypes(m: TestMerchant, objectId: string): Promise<string[]> {
  const res = await t.rest<{ data: Json[] }>('GET', `/v1/events?object_id=${objectId}&limit=100`, {
    key: m.secretKey,
  });
  return res.body.data.map((e) => String(e.type)).reverse();
}

const ISO = new Map(iso8583.codes.map((row) => [row.code, row.description]));

describe('magic cards over REST', () => {
  it.each(MAGIC_CARDS)('%s → %s %s', async (number, state, declineCode, iso) => {
    const m = await t.merchant();
    const res = await pay(m, number);
    expect(res.status).toBe(state === 'declined' ? 402 : 200);
    if (state === 'declined') {
      expect(res.body.error).toMatchObject({
        type: 'card_error',
        code: 'card_declined',
        decline_code: declineCode,
        payment_id: expect.stringMatching(/^cp_/),
      });
      const id = String((res.body.error as Json).payment_id);
      const stored = await t.get(m, `/v1/card_payments/${id}`);
      expect(stored.body).toMatchObject({
        state: 'declined',
        decline_code: declineCode,
        network_response_code: iso,
      });
      expect(stored.body.network_response_message).toBe(ISO.get(iso ?? '') ?? null);
      expect(await eventTypes(m, id)).toEqual(['card_payment.declined']);
      return;
    }
    expect(res.body).toMatchObject({
      object: 'card_payment',
      state,
      decline_code: null,
      network_response_code: iso,
      last4: number.slice(-4),
    });
    if (state === 'requires_action') {
      expect(res.body.next_action).toMatchObject({
        type: 'three_d_secure',
        url: expect.stringContaining('/3ds/cp_'),
      });
      expect(await eventTypes(m, String(res.body.id))).toEqual(['card_payment.requires_action']);
    } else {
      expect(await eventTypes(m, String(res.body.id))).toEqual([
        'card_payment.authorized',
        'card_payment.captured',
      ]);
    }
  });

  it('validates before the network: Luhn, brand, CVC, expiry fields', async () => {
    const m = await t.merchant();
    for (const [number, extra, code] of [
      ['4242424242424241', {}, 'invalid_card_number'],
      ['6011111111111117', {}, 'card_brand_unsupported'],
      ['4242424242424242', { cvc: '1234' }, 'invalid_cvc'],
      ['378282246310005', { cvc: '123' }, 'invalid_cvc'],
      ['4242424242424242', { exp_month: 13 }, 'invalid_expiry'],
    ] as const) {
      const res = await t.post(m, '/v1/card_payments', {
        amount: 1,
        currency: 'USD',
        card: card(number, extra),
      });
      expect(res.status, number).toBe(400);
      expect((res.body.error as Json).code).toBe(code);
    }
    // A past expiry is the network's decline (402 expired_card), with a declined payment.
    const expired = await t.post(m, '/v1/card_payments', {
      amount: 1,
      currency: 'USD',
      card: card('4242424242424242', { exp_year: 2020 }),
    });
    expect(expired.status).toBe(402);
    expect(expired.body.error).toMatchObject({ decline_code: 'expired_card' });
    // Nothing was created by the 400s: only the expired one is listed.
    const list = await t.rest<{ data: Json[] }>('GET', '/v1/card_payments', { key: m.secretKey });
    expect(list.body.data.map((p) => p.state)).toEqual(['declined']);
    for (const body of [
      { amount: 1, currency: 'USD' },
      { amount: 1, currency: 'USD', card: card('4242424242424242'), token: 'tok_x' },
      { amount: 0, currency: 'USD', card: card('4242424242424242') },
      { amount: 1, currency: 'EUR', card: card('4242424242424242') },
      { amount: 1, currency: 'USD', card: card('4242424242424242'), capture: 'yes' },
    ]) {
      const res = await t.post(m, '/v1/card_payments', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('3-D Secure', () => {
  it.each([
    ['4000002500003155', 'succeed', 200, 'captured', null],
    ['4000000000003220', 'fail', 402, 'declined', 'authentication_failed'],
    // A declined card answers the error code card_declined; its decline_code is generic_decline.
    ['4000008400001629', 'succeed', 402, 'declined', 'generic_decline'],
  ] as const)('%s, challenge %s → %s', async (number, outcome, status, state, declineCode) => {
    const m = await t.merchant();
    const created = await pay(m, number);
    const id = String(created.body.id);
    const done = await t.post(m, `/v1/simulate/card_payments/${id}/complete_3ds`, { outcome });
    expect(done.status).toBe(status);
    const stored = await t.get(m, `/v1/card_payments/${id}`);
    expect(stored.body).toMatchObject({
      state,
      decline_code: declineCode,
      three_d_secure: outcome === 'succeed' ? 'succeeded' : 'failed',
      next_action: null,
    });
    const again = await t.post(m, `/v1/simulate/card_payments/${id}/complete_3ds`, { outcome });
    expect(again.status).toBe(409);
  });
});

describe('the 3-D Secure page of next_action.url', () => {
  it('shows the challenge, takes the answer from a plain form, then shows the outcome', async () => {
    const m = await t.merchant();
    const created = await pay(m, '4000002500003155', { capture: false });
    const link = new URL(String((created.body.next_action as Json).url));
    const path = `${link.pathname}${link.search}`;
    const challenge = await t.app.request(path);
    expect(challenge.status).toBe(200);
    const page = await challenge.text();
    expect(page).toContain('data-testid="challenge"');
    expect(page).toContain('100.00 USD');
    const answered = await t.app.request(path, {
      method: 'POST',
      body: new URLSearchParams({ outcome: 'succeed' }),
    });
    expect(answered.status).toBe(303);
    expect(answered.headers.get('location')).toBe(path);
    const outcome = await (await t.app.request(path)).text();
    expect(outcome).toContain('data-state="authorized"');
    expect((await t.get(m, `/v1/card_payments/${created.body.id}`)).body.three_d_secure).toBe('succeeded');
    // Answering again changes nothing; a payment id that is not one is a 404 page.
    await t.app.request(path, { method: 'POST', body: new URLSearchParams({ outcome: 'fail' }) });
    expect((await t.get(m, `/v1/card_payments/${created.body.id}`)).body.state).toBe('authorized');
    expect((await t.app.request('/3ds/cp_nope')).status).toBe(404);
  });

  it('a failed challenge shows the decline', async () => {
    const m = await t.merchant();
    const created = await pay(m, '4000000000003220');
    const link = new URL(String((created.body.next_action as Json).url));
    const path = `${link.pathname}${link.search}`;
    await t.app.request(path, { method: 'POST', body: new URLSearchParams({ outcome: 'fail' }) });
    const outcome = await (await t.app.request(path)).text();
    expect(outcome).toContain('data-state="declined"');
    expect(outcome).toContain('authentication_failed');
  });
});

describe('capture, void, refunds', () => {
  it('authorizes without touching the balance, captures in part, then refunds up to the captured amount', async () => {
    const m = await t.merchant();
    const auth = await pay(m, '4242424242424242', { capture: false });
    expect(auth.body).toMatchObject({ state: 'authorized', amount: 100, amount_captured: 0 });
    expect(await balances(m)).toEqual({ available: 0, pending: 0 });
    const id = String(auth.body.id);
    const over = await t.post(m, `/v1/card_payments/${id}/capture`, { amount: '100.01' });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'amount_invalid', param: 'amount' });
    const captured = await t.post(m, `/v1/card_payments/${id}/capture`, { amount: '60.00' });
    expect(captured.body).toMatchObject({ state: 'captured', amount_captured: 60 });
    expect(await balances(m)).toEqual({ available: 0, pending: 60 });
    const r1 = await t.post(m, `/v1/card_payments/${id}/refunds`, { amount: 25 });
    expect(r1.body).toMatchObject({ object: 'refund', state: 'succeeded', amount: 25 });
    expect(r1.body.card_payment).toMatchObject({ state: 'partially_refunded', amount_refunded: 25 });
    // The refund leaves available (here below zero: the payment's funds are still pending).
    expect(await balances(m)).toEqual({ available: -25, pending: 60 });
    const tooMuch = await t.post(m, `/v1/card_payments/${id}/refunds`, { amount: '35.01' });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error).toMatchObject({ code: 'amount_invalid' });
    const rest = await t.post(m, `/v1/card_payments/${id}/refunds`, {});
    expect(rest.body).toMatchObject({ amount: 35, state: 'succeeded' });
    expect(rest.body.card_payment).toMatchObject({ state: 'refunded', amount_refunded: 60 });
    const after = await t.post(m, `/v1/card_payments/${id}/refunds`, { amount: 1 });
    expect(after.status).toBe(409);
    expect(await eventTypes(m, id)).toEqual([
      'card_payment.authorized',
      'card_payment.captured',
      'card_payment.partially_refunded',
      'card_payment.refunded',
    ]);
    // Two banking days later the captured 60 is available: 60 - 60 refunded = 0.
    await t.post(m, '/v1/clock/advance', { seconds: 5 * 86_400 });
    expect(await balances(m)).toEqual({ available: 0, pending: 0 });
  });

  it('voids an authorization; an untouched one expires 7 days later', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    const voided = await pay(m, '5555555555554444', { capture: false });
    const v = await t.post(m, `/v1/card_payments/${voided.body.id}/void`);
    expect(v.body).toMatchObject({ state: 'voided' });
    const kept = await pay(m, '5555555555554444', { capture: false });
    const id = String(kept.body.id);
    expect(
      Date.parse(String(kept.body.authorization_expires_at)) - Date.parse(String(kept.body.created_at)),
    ).toBe(7 * 86_400_000);
    await t.post(m, '/v1/clock/advance', { seconds: 7 * 86_400 - 1 });
    expect((await t.get(m, `/v1/card_payments/${id}`)).body.state).toBe('authorized');
    await t.post(m, '/v1/clock/advance', { seconds: 1 });
    expect((await t.get(m, `/v1/card_payments/${id}`)).body.state).toBe('expired');
    expect(await eventTypes(m, id)).toEqual(['card_payment.authorized', 'card_payment.expired']);
    expect((await t.post(m, `/v1/card_payments/${id}/capture`)).status).toBe(409);
    expect(await balances(m)).toEqual({ available: 0, pending: 0 });
  });

  it('refund magic cards: …7726 stays pending a banking day, …5126 fails and moves nothing', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    const slow = await pay(m, '4000000000007726');
    const pending = await t.post(m, `/v1/card_payments/${slow.body.id}/refunds`, { amount: 10 });
    expect(pending.body).toMatchObject({ state: 'pending', amount: 10 });
    expect(pending.body.card_payment).toMatchObject({ amount_refunded: 10, state: 'partially_refunded' });
    await t.post(m, '/v1/clock/advance', { seconds: 4 * 86_400 });
    const settled = await t.get(m, `/v1/card_payments/${slow.body.id}`);
    expect((settled.body.refunds as Json[])[0]).toMatchObject({ state: 'succeeded' });
    expect(await eventTypes(m, String(pending.body.id))).toEqual(['refund.pending', 'refund.succeeded']);

    const failing = await pay(m, '4000000000005126');
    const before = await balances(m);
    const failed = await t.post(m, `/v1/card_payments/${failing.body.id}/refunds`, {});
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ state: 'failed', failure_reason: expect.any(String) });
    expect(failed.body.card_payment).toMatchObject({ state: 'captured', amount_refunded: 0 });
    expect(await balances(m)).toEqual(before);
    expect(await eventTypes(m, String(failed.body.id))).toEqual(['refund.pending', 'refund.failed']);
  });
});

/** Operations a client can call, and the states from which each is allowed. */
const OPERATIONS: Record<
  string,
  { allowed: string[]; call: (m: TestMerchant, id: string) => Promise<{ status: number; body: Json }> }
> = {
  capture: { allowed: ['authorized'], call: (m, id) => t.post(m, `/v1/card_payments/${id}/capture`) },
  void: { allowed: ['authorized'], call: (m, id) => t.post(m, `/v1/card_payments/${id}/void`) },
  refund: {
    allowed: ['captured', 'partially_refunded'],
    call: (m, id) => t.post(m, `/v1/card_payments/${id}/refunds`, { amount: 1 }),
  },
  complete_3ds: {
    allowed: ['requires_action'],
    call: (m, id) => t.post(m, `/v1/simulate/card_payments/${id}/complete_3ds`, { outcome: 'succeed' }),
  },
};

/** Brings a new payment into `state` through the API. */
async function paymentIn(m: TestMerchant, state: string): Promise<string> {
  const manual = async () => String((await pay(m, '4242424242424242', { capture: false })).body.id);
  switch (state) {
    case 'requires_action':
      return String((await pay(m, '4000002500003155', { capture: false })).body.id);
    case 'authorized':
      return manual();
    case 'captured':
      return String((await pay(m, '4242424242424242')).body.id);
    case 'partially_refunded': {
      const id = String((await pay(m, '4242424242424242')).body.id);
      await t.post(m, `/v1/card_payments/${id}/refunds`, { amount: 10 });
      return id;
    }
    case 'refunded': {
      const id = String((await pay(m, '4242424242424242')).body.id);
      await t.post(m, `/v1/card_payments/${id}/refunds`, {});
      return id;
    }
    case 'declined':
      return String(((await pay(m, '4000000000000002')).body.error as Json).payment_id);
    case 'voided': {
      const id = await manual();
      await t.post(m, `/v1/card_payments/${id}/void`);
      return id;
    }
    case 'expired': {
      const id = await manual();
      await t.post(m, '/v1/clock/advance', { seconds: 7 * 86_400 });
      return id;
    }
    default:
      throw new Error(state);
  }
}

const STATES = [
  'requires_action',
  'authorized',
  'captured',
  'partially_refunded',
  'refunded',
  'declined',
  'voided',
  'expired',
];

describe('every (state × operation) pair', () => {
  const pairs = STATES.flatMap((state) => Object.keys(OPERATIONS).map((op) => [state, op] as const));
  it.each(pairs)('%s × %s', async (state, op) => {
    const m = await t.merchant();
    const id = await paymentIn(m, state);
    expect((await t.get(m, `/v1/card_payments/${id}`)).body.state).toBe(state);
    const operation = OPERATIONS[op]!;
    const res = await operation.call(m, id);
    if (operation.allowed.includes(state)) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    } else {
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'invalid_state' });
      expect(String((res.body.error as Json).message)).toContain(`is ${state}`);
      expect((await t.get(m, `/v1/card_payments/${id}`)).body.state).toBe(state);
    }
  });
});

describe('idempotency', () => {
  it('a keyed payment replays its 200 or its 402 and creates one payment', async () => {
    const m = await t.merchant();
    const send = (key: string, number: string) =>
      t.rest<Json>('POST', '/v1/card_payments', {
        key: m.secretKey,
        body: { amount: 3, currency: 'USD', card: card(number) },
        headers: { 'idempotency-key': key },
      });
    const ok = await send('cp-ok', '4242424242424242');
    const okAgain = await send('cp-ok', '4242424242424242');
    expect(okAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(okAgain.body.id).toBe(ok.body.id);
    const declined = await send('cp-no', '4000000000000002');
    const declinedAgain = await send('cp-no', '4000000000000002');
    expect(declinedAgain.status).toBe(402);
    expect((declinedAgain.body.error as Json).payment_id).toBe((declined.body.error as Json).payment_id);
    const list = await t.rest<{ data: Json[] }>('GET', '/v1/card_payments', { key: m.secretKey });
    expect(list.body.data.map((p) => p.state)).toEqual(['declined', 'captured']);
    expect(await balances(m)).toEqual({ available: 0, pending: 3 });
  });
});

describe('edge cases', () => {
  it('an id with a NUL byte is a 404, over the API and on the 3-D Secure page', async () => {
    const m = await t.merchant();
    expect((await t.get(m, '/v1/card_payments/cp_a%00b')).status).toBe(404);
    expect((await t.post(m, '/v1/card_payments/cp_a%00b/capture')).status).toBe(404);
    expect((await t.app.request('/3ds/cp_a%00b')).status).toBe(404);
  });

  it('an authorization past its expiry cannot be captured even if its expiry job never ran', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    const auth = await pay(m, '4242424242424242', { capture: false });
    await t.database.db.delete(scheduledJobs).where(eq(scheduledJobs.objectId, String(auth.body.id)));
    await t.post(m, '/v1/clock/advance', { seconds: 8 * 86_400 });
    expect((await t.get(m, `/v1/card_payments/${auth.body.id}`)).body.state).toBe('authorized');
    const late = await t.post(m, `/v1/card_payments/${auth.body.id}/capture`);
    expect(late.status).toBe(409);
    expect(String((late.body.error as Json).message)).toContain('expired');
    expect(await balances(m)).toEqual({ available: 0, pending: 0 });
  });

  it('a spent token keeps neither the number nor the CVC', async () => {
    const m = await t.merchant();
    const token = await t.rest<Json>('POST', '/v1/tokens', {
      key: m.publicKey,
      body: { card: card('4242424242424242') },
    });
    await t.post(m, '/v1/card_payments', { amount: 1, currency: 'USD', token: token.body.id });
    const [row] = await t.database.db
      .select()
      .from(cardTokens)
      .where(eq(cardTokens.id, String(token.body.id)));
    expect(row).toMatchObject({ number: '', cvc: '', last4: '4242' });
  });
});

describe('tokens', () => {
  it('the public key tokenizes; a token pays once within 15 minutes of clock time', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    const tokenize = () =>
      t.rest<Json>('POST', '/v1/tokens', { key: m.publicKey, body: { card: card('4242424242424242') } });
    const token = await tokenize();
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({
      object: 'token',
      card: { brand: 'visa', last4: '4242' },
      used: false,
    });
    expect(token.text).not.toContain('4242424242424242');
    // The public key can do nothing else.
    const denied = await t.rest<Json>('POST', '/v1/card_payments', {
      key: m.publicKey,
      body: { amount: 1, currency: 'USD', token: token.body.id },
    });
    expect(denied.status).toBe(403);
    const paid = await t.post(m, '/v1/card_payments', { amount: 5, currency: 'USD', token: token.body.id });
    expect(paid.body).toMatchObject({ state: 'captured', brand: 'visa', last4: '4242' });
    const reused = await t.post(m, '/v1/card_payments', { amount: 5, currency: 'USD', token: token.body.id });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toMatchObject({ code: 'token_already_used', param: 'token' });
    const late = await tokenize();
    await t.post(m, '/v1/clock/advance', { seconds: 15 * 60 });
    const expired = await t.post(m, '/v1/card_payments', { amount: 5, currency: 'USD', token: late.body.id });
    expect(expired.body.error).toMatchObject({ code: 'token_expired' });
    // Another merchant's token does not exist for this one.
    const other = await t.merchant();
    const foreign = await t.post(other, '/v1/card_payments', {
      amount: 5,
      currency: 'USD',
      token: late.body.id,
    });
    expect(foreign.status).toBe(404);
    // A declining token card still declines.
    const declining = await t.rest<Json>('POST', '/v1/tokens', {
      key: m.publicKey,
      body: { card: card('4000000000009995') },
    });
    const declined = await t.post(m, '/v1/card_payments', {
      amount: 5,
      currency: 'USD',
      token: declining.body.id,
    });
    expect(declined.body.error).toMatchObject({ decline_code: 'insufficient_funds' });
  });
});

describe('raw card numbers stay out of responses, events, errors and logs', () => {
  it('only brand and last4 are ever rendered', async () => {
    const m = await t.merchant();
    const numbers = ['4242424242424242', '4000000000000002', '4000002500003155', '4242424242424241'];
    for (const number of numbers) await pay(m, number);
    await t.rest('POST', '/v1/tokens', { key: m.publicKey, body: { card: card('5555555555554444') } });
    const listed = await t.rest('GET', '/v1/card_payments?limit=100', { key: m.secretKey });
    const events = await t.rest('GET', '/v1/events?limit=100', { key: m.secretKey });
    for (const number of [...numbers, '5555555555554444']) {
      expect(listed.text).not.toContain(number);
      expect(events.text).not.toContain(number);
      expect(logs.text()).not.toContain(number);
    }
    expect(logs.text()).toContain('/v1/card_payments'); // the requests were logged
  });

  it('a failed query logged as an error never shows its parameters', async () => {
    const failure = new Error(
      'Failed query: insert into "card_tokens" values ($1, $2)\nparams: tok_1,4242424242424242,123',
    );
    failure.cause = new Error('params: 4000000000000002');
    logs.logger.error({ err: failure }, 'unhandled error');
    expect(logs.text()).toContain('params: [redacted]');
    expect(logs.text()).not.toContain('4242424242424242');
    expect(logs.text()).not.toContain('4000000000000002');
  });
});
