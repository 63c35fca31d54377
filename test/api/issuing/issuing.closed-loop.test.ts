/**
 * The closed loop: a card payment or a checkout of this sandbox paid with a virtual card
 * this sandbox issued is authorized by the issuing side, against the card's controls, balance and
 * clock; an issuing decline is the card payment's decline. Everything is logged at debug level:
 * the card number and CVC must never be in the log, the events or the errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CVC_FAILURES } from '../../../src/modules/issuing/issuing.closed-loop.ts';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, debugLogCapture, type TestApp, type TestMerchant } from '../../support/harness.ts';

const logs = debugLogCapture();

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ logger: logs.logger });
});
afterAll(async () => {
  await t.close();
});

const { post, get, usd, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);
const WEDNESDAY = '2031-12-03T15:00:00.000Z';

type IssuedCard = Json & { id: string; number: string; cvc: string; exp_month: number; exp_year: number };

async function issue(m: TestMerchant, controls: Json = {}): Promise<IssuedCard> {
  const res = await post(m, '/v1/virtual_cards', {
    brand: 'visa',
    cardholder_name: 'Ada Lovelace',
    spending_controls: controls,
  });
  expect(res.status).toBe(200);
  return res.body as IssuedCard;
}

const cardOf = (card: IssuedCard, extra: Json = {}) => ({
  number: card.number,
  exp_month: card.exp_month,
  exp_year: card.exp_year,
  cvc: card.cvc,
  ...extra,
});

const pay = (m: TestMerchant, card: IssuedCard, amount = '30.00', extra: Json = {}) =>
  post(m, '/v1/card_payments', { amount, currency: 'USD', card: cardOf(card), ...extra });

const authorizationsOf = async (issuer: TestMerchant, card: IssuedCard) =>
  (await get(issuer, `/v1/virtual_cards/${card.id}/authorizations`)).body.data as Json[];

const secretsOf = (card: IssuedCard) => [card.number, `"cvc":"${card.cvc}"`];

describe('a card payment with a virtual card of this sandbox', () => {
  it('is approved by the issuer and captured on both sides', async () => {
    const issuer = await merchantAt(WEDNESDAY, '100.00');
    const acquirer = await merchantAt(WEDNESDAY, '0');
    const card = await issue(issuer);
    const paid = await pay(acquirer, card, '30.00', { reference: 'loop-1' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({
      state: 'captured',
      brand: 'visa',
      last4: card.last4,
      network_response_code: '00',
    });
    const [auth] = await authorizationsOf(issuer, card);
    expect(auth).toMatchObject({
      state: 'captured',
      amount: 30,
      amount_captured: 30,
      card_payment: paid.body.id,
      merchant: { name: acquirer.name, mcc: '5999', country: 'US' },
    });
    // The issuer paid 30.00 out of available; the acquirer has it pending.
    expect(await usd(issuer)).toEqual({ available: 70, pending: 0, reserved: 0 });
    expect(await usd(acquirer)).toMatchObject({ available: 0, pending: 30 });
    expect(await eventTypes(issuer, String(auth?.id))).toEqual([
      'issuing_authorization.approved',
      'issuing_authorization.captured',
    ]);
    expect(await eventTypes(acquirer, String(paid.body.id))).toEqual([
      'card_payment.authorized',
      'card_payment.captured',
    ]);
    // The acquirer sees none of the issuer's objects.
    expect((await get(acquirer, `/v1/issuing_authorizations/${auth?.id}`)).status).toBe(404);
  });

  it.each([
    ['frozen', { state: 'frozen' }, {}, 'restricted_card', '62', 'card_frozen'],
    [
      'over its daily limit',
      {},
      { limits: [{ amount: 25, interval: 'daily' }] },
      'card_velocity_exceeded',
      '61',
      'spending_limit_exceeded',
    ],
    [
      'blocking the sandbox merchant category',
      {},
      { blocked_mccs: ['5999'] },
      'transaction_not_allowed',
      '57',
      'mcc_blocked',
    ],
    ['canceled', { state: 'canceled' }, {}, 'invalid_account', '14', 'card_canceled'],
  ] as const)('%s: declined with the issuer’s reason', async (_name, update, controls, code, iso, reason) => {
    const issuer = await merchantAt(WEDNESDAY, '100.00');
    const acquirer = await merchantAt(WEDNESDAY, '0');
    const card = await issue(issuer, controls);
    if ('state' in update)
      expect((await post(issuer, `/v1/virtual_cards/${card.id}`, update)).status).toBe(200);
    const res = await pay(acquirer, card);
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      error: { type: 'card_error', code: 'card_declined', decline_code: code },
    });
    const paymentId = String((res.body.error as Json).payment_id);
    expect((await get(acquirer, `/v1/card_payments/${paymentId}`)).body).toMatchObject({
      state: 'declined',
      decline_code: code,
      network_response_code: iso,
    });
    const [auth] = await authorizationsOf(issuer, card);
    expect(auth).toMatchObject({
      state: 'declined',
      decline_reason: reason,
      network_response_code: iso,
      card_payment: paymentId,
    });
    expect(await usd(issuer)).toEqual({ available: 100, pending: 0, reserved: 0 });
    for (const secret of secretsOf(card)) expect(JSON.stringify(res.body)).not.toContain(secret);
    // The acquirer learns the reason, not the issuer's controls: the tripped interval stays there.
    expect(JSON.stringify(res.body)).not.toContain('daily');
  });

  it('a wrong CVC or expiry, or a number never issued, is declined before the issuer is asked', async () => {
    const issuer = await merchantAt(WEDNESDAY, '100.00');
    const card = await issue(issuer);
    const wrongCvc = await post(issuer, '/v1/card_payments', {
      amount: 5,
      currency: 'USD',
      card: cardOf(card, { cvc: card.cvc === '000' ? '001' : '000' }),
    });
    expect(wrongCvc.body).toMatchObject({ error: { decline_code: 'incorrect_cvc' } });
    const wrongExpiry = await post(issuer, '/v1/card_payments', {
      amount: 5,
      currency: 'USD',
      card: cardOf(card, { exp_year: card.exp_year + 1 }),
    });
    expect(wrongExpiry.body).toMatchObject({ error: { decline_code: 'expired_card' } });
    // Same BIN, a Luhn-valid number nobody was issued.
    const body = `${card.number.slice(0, 6)}000000000`;
    let check = 0;
    for (let d = 0; d <= 9; d++) {
      const candidate = body + d;
      let sum = 0;
      for (let i = 0; i < 16; i++) {
        let digit = Number(candidate[15 - i]);
        if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
        sum += digit;
      }
      if (sum % 10 === 0) check = d;
    }
    const unknown = await post(issuer, '/v1/card_payments', {
      amount: 5,
      currency: 'USD',
      card: { number: body + check, exp_month: 12, exp_year: 2034, cvc: '123' },
    });
    expect(unknown.body).toMatchObject({ error: { decline_code: 'invalid_account' } });
    expect(await authorizationsOf(issuer, card)).toEqual([]);
  });

  it(`${MAX_CVC_FAILURES} wrong CVCs in a row freeze the card until its issuer unfreezes it; a right one starts the count again`, async () => {
    const issuer = await merchantAt(WEDNESDAY, '100.00');
    const acquirer = await merchantAt(WEDNESDAY, '0');
    const card = await issue(issuer);
    const wrong = () => pay(acquirer, { ...card, cvc: card.cvc === '000' ? '001' : '000' }, '5.00');
    const stateOf = async () => (await get(issuer, `/v1/virtual_cards/${card.id}`)).body.state;
    for (let n = 1; n < MAX_CVC_FAILURES; n++)
      expect((await wrong()).body).toMatchObject({ error: { decline_code: 'incorrect_cvc' } });
    // A right code in between: the count starts again.
    expect((await pay(acquirer, card, '5.00')).status).toBe(200);
    for (let n = 1; n < MAX_CVC_FAILURES; n++) await wrong();
    expect(await stateOf()).toBe('active');
    expect((await wrong()).body).toMatchObject({ error: { decline_code: 'incorrect_cvc' } });
    expect(await stateOf()).toBe('frozen');
    expect(await eventTypes(issuer, card.id)).toContain('virtual_card.frozen');
    // Frozen: even the right code is declined now, for as long as the issuer leaves it frozen.
    const frozen = await pay(acquirer, card, '5.00');
    expect(frozen.status).toBe(402);
    expect((await post(issuer, `/v1/virtual_cards/${card.id}`, { state: 'active' })).status).toBe(200);
    expect((await pay(acquirer, card, '5.00')).status).toBe(200);
    // Unfreezing forgave the failures: it takes the full count again to freeze it.
    for (let n = 1; n < MAX_CVC_FAILURES; n++) await wrong();
    expect(await stateOf()).toBe('active');
  });

  it('authorize, then partial capture, refund and void mirror on the issuing side', async () => {
    const m = await merchantAt(WEDNESDAY, '100.00'); // issuer and acquirer at once
    const card = await issue(m);
    const held = await pay(m, card, '40.00', { capture: false });
    expect(held.body.state).toBe('authorized');
    expect(await usd(m)).toMatchObject({ available: 60, reserved: 40 });
    const captured = await post(m, `/v1/card_payments/${held.body.id}/capture`, { amount: 25 });
    expect(captured.body.state).toBe('captured');
    const refund = await post(m, `/v1/card_payments/${held.body.id}/refunds`, { amount: 5 });
    expect(refund.status).toBe(200);
    const [auth] = await authorizationsOf(m, card);
    expect(auth).toMatchObject({ state: 'captured', amount_captured: 25, amount_refunded: 5 });

    const voided = await pay(m, card, '10.00', { capture: false });
    await post(m, `/v1/card_payments/${voided.body.id}/void`);
    const [latest] = await authorizationsOf(m, card);
    expect(latest).toMatchObject({ state: 'reversed', amount_reversed: 10 });
    // Issuing: 100 − 25 + 5 = 80 available; acquiring: 25 pending, − 5 refunded from available.
    expect(await usd(m)).toEqual({ available: 75, pending: 25, reserved: 0 });
  });

  it('a checkout paid with a frozen virtual card shows the decline; unfrozen, the collection succeeds', async () => {
    const issuer = await merchantAt(WEDNESDAY, '100.00');
    const shop = await merchantAt(WEDNESDAY, '0');
    const card = await issue(issuer);
    await post(issuer, `/v1/virtual_cards/${card.id}`, { state: 'frozen' });
    const created = await post(shop, '/v1/collect', { amount: 12.5, currency: 'USD', reference: 'loop-col' });
    const refused = await post(shop, '/v1/simulate/collections/loop-col/pay', {
      method: 'card',
      card: cardOf(card),
    });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ error: { decline_code: 'restricted_card' } });
    expect((await get(shop, '/v1/collections/loop-col')).body.state).toBe('pending');

    await post(issuer, `/v1/virtual_cards/${card.id}`, { state: 'active' });
    const paid = await post(shop, '/v1/simulate/collections/loop-col/pay', {
      method: 'card',
      card: cardOf(card),
    });
    expect(paid.status).toBe(200);
    expect(paid.body.state).toBe('succeeded');
    const auths = await authorizationsOf(issuer, card);
    expect(auths.map((a) => a.state)).toEqual(['captured', 'declined']);
    expect(await eventTypes(shop, String(created.body.id))).toEqual([
      'collection.created',
      'collection.succeeded',
    ]);
    expect(await eventTypes(issuer, String(auths[0]?.id))).toEqual([
      'issuing_authorization.approved',
      'issuing_authorization.captured',
    ]);
    // Nowhere a number or a CVC: the debug log, either side's events.
    for (const m of [issuer, shop]) {
      const events = JSON.stringify((await get(m, '/v1/events?limit=100')).body);
      for (const secret of secretsOf(card)) expect(events).not.toContain(secret);
    }
    expect(logs.text()).toContain('/v1/simulate/collections/loop-col/pay');
    expect(logs.text()).not.toContain(card.number);
  });
});

describe('the closed loop keeps both ledgers whole', () => {
  it("the issuer cannot step a card payment's authorization, and it does not expire on the issuer's clock", async () => {
    const issuer = await merchantAt(WEDNESDAY, '100.00');
    const acquirer = await merchantAt(WEDNESDAY, '0');
    const card = await issue(issuer);
    const held = await pay(acquirer, card, '40.00', { capture: false });
    expect(held.body.state).toBe('authorized');
    const [auth] = await authorizationsOf(issuer, card);
    expect(auth).toMatchObject({ state: 'approved', expires_at: null, card_payment: held.body.id });
    for (const step of ['capture', 'reverse', 'refund']) {
      const res = await post(issuer, `/v1/simulate/issuing_authorizations/${auth?.id}/${step}`, {});
      expect(res.status, step).toBe(409);
      expect(res.body).toMatchObject({ error: { code: 'invalid_state' } });
    }
    // Eight days pass on the issuer's clock only: the acquirer's authorization still stands.
    expect(await advanceTo(issuer, '2031-12-11T15:00:00.000Z')).toEqual([]);
    expect((await authorizationsOf(issuer, card))[0]?.state).toBe('approved');
    expect(await usd(issuer)).toEqual({ available: 60, pending: 0, reserved: 40 });

    // The acquirer captures: the issuer pays exactly what the acquirer receives.
    const captured = await post(acquirer, `/v1/card_payments/${held.body.id}/capture`);
    expect(captured.body.state).toBe('captured');
    expect(await usd(issuer)).toEqual({ available: 60, pending: 0, reserved: 0 });
    expect(await usd(acquirer)).toEqual({ available: 0, pending: 40, reserved: 0 });
    const over = await post(acquirer, `/v1/card_payments/${held.body.id}/refunds`, { amount: 40.01 });
    expect(over.status).toBe(400);
    expect((await post(acquirer, `/v1/card_payments/${held.body.id}/refunds`, { amount: 40 })).status).toBe(
      200,
    );
    expect(await usd(issuer)).toEqual({ available: 100, pending: 0, reserved: 0 });
    expect((await authorizationsOf(issuer, card))[0]).toMatchObject({ amount_refunded: 40 });
  });

  it('two merchants paying each other with role-swapped captures and refunds at once never deadlock', async () => {
    const a = await merchantAt(WEDNESDAY, '1000.00');
    const b = await merchantAt(WEDNESDAY, '1000.00');
    const cardOfA = await issue(a);
    const cardOfB = await issue(b);
    // Each acquires on the other's card: a acquires with b's card, b with a's.
    const sides = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0 ? { acquirer: a, card: cardOfB } : { acquirer: b, card: cardOfA },
    );
    const held: string[] = [];
    for (const side of sides)
      held.push(String((await pay(side.acquirer, side.card, '10.00', { capture: false })).body.id));
    const moves = await Promise.all(
      sides.flatMap((side, i) => [
        post(side.acquirer, `/v1/card_payments/${held[i]}/capture`),
        pay(side.acquirer, side.card, '5.00'),
      ]),
    );
    expect(moves.map((res) => res.status)).toEqual(moves.map(() => 200));
    const refunds = await Promise.all(
      sides.map((side, i) => post(side.acquirer, `/v1/card_payments/${held[i]}/refunds`, { amount: 4 })),
    );
    expect(refunds.map((res) => res.status)).toEqual(refunds.map(() => 200));
    // Each paid 6 × 15.00 as issuer and got 6 × 4.00 back; each has 6 × 15.00 pending as acquirer
    // and paid 6 × 4.00 of refunds out of available.
    for (const m of [a, b]) expect(await usd(m)).toEqual({ available: 910, pending: 90, reserved: 0 });
  });
});
