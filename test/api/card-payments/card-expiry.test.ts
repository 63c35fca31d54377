import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

/**
 * A card's expiry is judged by the merchant's simulated clock: once the clock is moved years ahead
 * (as the transfer and FX examples do), a card that expired by that clock is declined with a
 * message naming both its expiry and the clock's date, on REST and GraphQL alike; and the test
 * cards the checkout page fills carry an expiry taken from that clock, so they pay all the same.
 */

let t: TestApp;
let m: TestMerchant;

/** The clock is moved here, past the end of 12/2030. */
const CLOCK = '2031-03-02T09:30:00.000Z';
const MESSAGE =
  'Your card has expired: it expired at the end of 12/2030 and the sandbox clock is at 2031-03-02.';

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant('Expiry Shop');
  const moved = await t.rest('POST', '/v1/clock/advance', { key: m.secretKey, body: { to: CLOCK } });
  expect(moved.status).toBe(200);
});
afterAll(async () => {
  await t.close();
});

const card = (expYear: number, expMonth = 12) => ({
  number: '4242424242424242',
  exp_month: expMonth,
  exp_year: expYear,
  cvc: '123',
});

describe('card expiry by the sandbox clock', () => {
  it('REST: a card expired by the clock is declined expired_card, the message naming both dates', async () => {
    const res = await t.rest<{ error: Record<string, unknown> }>('POST', '/v1/card_payments', {
      key: m.secretKey,
      body: { amount: '10.00', currency: 'USD', card: card(2030) },
    });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({
      code: 'card_declined',
      decline_code: 'expired_card',
      message: MESSAGE,
    });
    const stored = await t.rest('GET', `/v1/card_payments/${String(res.body.error.payment_id)}`, {
      key: m.secretKey,
    });
    expect(stored.body).toMatchObject({ state: 'declined', failure_message: MESSAGE });
  });

  it('REST: the last month of its expiry still pays (valid through the end of the month)', async () => {
    const res = await t.rest('POST', '/v1/card_payments', {
      key: m.secretKey,
      body: { amount: '10.00', currency: 'USD', card: card(2031, 3) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'captured' });
  });

  it('GraphQL: the same decline and message', async () => {
    const res = await t.gql<{ createCardPayment: Record<string, unknown> }>(
      `mutation($card: CardInput) {
        createCardPayment(amount: "10.00", currency: USD, card: $card) {
          __typename
          ... on SandbankError { code declineCode message }
        }
      }`,
      { card: { number: '4242424242424242', expMonth: 1, expYear: 2031, cvc: '123' } },
      { key: m.secretKey },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.createCardPayment).toEqual({
      __typename: 'SandbankError',
      code: 'card_declined',
      declineCode: 'expired_card',
      message:
        'Your card has expired: it expired at the end of 01/2031 and the sandbox clock is at 2031-03-02.',
    });
  });

  it('the magic expired-card number keeps its short message (it is not expired by the clock)', async () => {
    const res = await t.rest<{ error: Record<string, unknown> }>('POST', '/v1/card_payments', {
      key: m.secretKey,
      body: { amount: '10.00', currency: 'USD', card: { ...card(2099), number: '4000000000000069' } },
    });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ decline_code: 'expired_card', message: 'Your card has expired.' });
  });
});

describe("the checkout page's test cards follow the merchant's clock", () => {
  it('after the clock moved years ahead, a test card fills December of the clock year + 5 (links and ?card=) and pays', async () => {
    const created = await t.rest<{ checkout_url: string }>('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: '7.00', currency: 'USD', reference: 'expiry-checkout' },
    });
    const url = new URL(created.body.checkout_url);
    const path = `${url.pathname}${url.search}`;
    const page = await (await t.app.request(path)).text();
    // The clock is at 2031-03-02: the links fill 12/2036, whatever the real year is.
    expect(page).toContain('expiry 12/2036, by the sandbox clock');
    expect(page).toContain(
      'data-card="4242424242424242" data-cvc="123" data-exp-month="12" data-exp-year="2036"',
    );
    // Without script, the link's ?card= fills the form on the server the same way.
    const prefilled = await (await t.app.request(`${path}&card=4242424242424242`)).text();
    expect(prefilled).toMatch(/<input id="exp_month"[^>]*value="12"/);
    expect(prefilled).toMatch(/<input id="exp_year"[^>]*value="2036"/);
    const paid = await t.app.request(`${url.pathname}/card${url.search}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        number: '4242424242424242',
        exp_month: '12',
        exp_year: '2036',
        cvc: '123',
      }).toString(),
    });
    expect(paid.status).toBe(303);
    const collection = await t.rest<{ state: string }>('GET', '/v1/collections/expiry-checkout', {
      key: m.secretKey,
    });
    expect(collection.body.state).toBe('succeeded');
  });
});
