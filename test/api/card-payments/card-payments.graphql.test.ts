import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { MAGIC_CARDS } from '../../support/magic-cards.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const PAYMENT_FIELDS = `id state brand last4 declineCode networkResponseCode threeDSecureUrl
  amount { amount currency } amountCaptured { amount } amountRefunded { amount } refunds { id state amount { amount } }`;
const ERROR_FIELDS = 'code type httpStatus declineCode paymentId param';

const CREATE = `mutation($card: CardInput, $token: String, $capture: Boolean, $amount: Decimal!) {
  createCardPayment(amount: $amount, currency: USD, card: $card, token: $token, capture: $capture) {
    __typename
    ... on MutationCreateCardPaymentSuccess { data { ${PAYMENT_FIELDS} } }
    ... on SandbankError { ${ERROR_FIELDS} }
  }
}`;

type Json = Record<string, unknown>;
type Result = { __typename: string; data?: Json } & Json;

const card = (number: string) => ({
  number,
  expMonth: 12,
  expYear: 2099,
  cvc: number.startsWith('3') ? '1234' : '123',
});

async function create(m: TestMerchant, variables: Json): Promise<Result> {
  const res = await t.gql<{ createCardPayment: Result }>(
    CREATE,
    { amount: '100.00', ...variables },
    {
      key: m.secretKey,
    },
  );
  expect(res.errors).toBeUndefined();
  return res.data.createCardPayment;
}

async function mutate(m: TestMerchant, field: string, args: string, variables: Json = {}): Promise<Result> {
  const successType = `Mutation${field[0]?.toUpperCase()}${field.slice(1)}Success`;
  const selection =
    field === 'refundCardPayment'
      ? `refund { id state amount { amount } } cardPayment { ${PAYMENT_FIELDS} }`
      : PAYMENT_FIELDS;
  const res = await t.gql<Record<string, Result>>(
    `mutation { ${field}(${args}) { __typename ... on ${successType} { data { ${selection} } } ... on SandbankError { ${ERROR_FIELDS} } } }`,
    variables,
    { key: m.secretKey },
  );
  expect(res.errors).toBeUndefined();
  return res.data[field] as Result;
}

describe('magic cards over GraphQL', () => {
  it.each(MAGIC_CARDS)('%s → %s %s', async (number, state, declineCode, iso) => {
    const m = await t.merchant();
    const result = await create(m, { card: card(number) });
    if (state === 'declined') {
      expect(result).toMatchObject({
        __typename: 'SandbankError',
        code: 'card_declined',
        type: 'card_error',
        httpStatus: 402,
        declineCode,
        paymentId: expect.stringMatching(/^cp_/),
      });
      const stored = await t.gql<{ cardPayment: Json }>(
        'query($id: ID!) { cardPayment(id: $id) { state declineCode networkResponseCode networkResponseMessage } }',
        { id: result.paymentId },
        { key: m.secretKey },
      );
      expect(stored.data.cardPayment).toMatchObject({
        state: 'declined',
        declineCode,
        networkResponseCode: iso,
      });
      return;
    }
    expect(result.__typename).toBe('MutationCreateCardPaymentSuccess');
    expect(result.data).toMatchObject({
      state,
      declineCode: null,
      networkResponseCode: iso,
      last4: number.slice(-4),
    });
    expect(Boolean(result.data?.threeDSecureUrl)).toBe(state === 'requires_action');
  });

  it('a bad card is a typed 400 error and creates nothing', async () => {
    const m = await t.merchant();
    expect(await create(m, { card: card('4242424242424241') })).toMatchObject({
      code: 'invalid_card_number',
      httpStatus: 400,
    });
    expect(await create(m, { card: card('4242424242424242'), amount: '0' })).toMatchObject({
      code: 'amount_invalid',
      param: 'amount',
    });
    const list = await t.gql<{ cardPayments: { edges: unknown[] } }>(
      '{ cardPayments { edges { cursor } } }',
      {},
      {
        key: m.secretKey,
      },
    );
    expect(list.data.cardPayments.edges).toEqual([]);
  });
});

describe('card payment mutations', () => {
  it('authorize, capture in part, refund twice, then 409 typed errors', async () => {
    const m = await t.merchant();
    const auth = await create(m, { card: card('4242424242424242'), capture: false });
    const id = String(auth.data?.id);
    expect(auth.data).toMatchObject({ state: 'authorized' });
    const captured = await mutate(m, 'captureCardPayment', `id: "${id}", amount: "40.00"`);
    expect(captured.data).toMatchObject({ state: 'captured', amountCaptured: { amount: '40.00' } });
    const first = await mutate(m, 'refundCardPayment', `id: "${id}", amount: "15"`);
    expect(first.data).toMatchObject({
      refund: { state: 'succeeded', amount: { amount: '15.00' } },
      cardPayment: { state: 'partially_refunded', amountRefunded: { amount: '15.00' } },
    });
    expect(await mutate(m, 'refundCardPayment', `id: "${id}", amount: "25.01"`)).toMatchObject({
      code: 'amount_invalid',
    });
    const rest = await mutate(m, 'refundCardPayment', `id: "${id}"`);
    expect(rest.data).toMatchObject({
      cardPayment: { state: 'refunded', amountRefunded: { amount: '40.00' } },
    });
    expect(await mutate(m, 'voidCardPayment', `id: "${id}"`)).toMatchObject({
      code: 'invalid_state',
      httpStatus: 409,
    });
    const other = await create(m, { card: card('5555555555554444'), capture: false });
    expect((await mutate(m, 'voidCardPayment', `id: "${other.data?.id}"`)).data).toMatchObject({
      state: 'voided',
    });
  });

  it('a keyed refund replays the refund it made, not the newest one', async () => {
    const m = await t.merchant();
    const paid = await create(m, { card: card('4242424242424242') });
    const refund = (amount: string, key: string) =>
      mutate(m, 'refundCardPayment', `id: "${paid.data?.id}", amount: "${amount}", idempotencyKey: "${key}"`);
    const first = await refund('10', 'refund-k1');
    await refund('20', 'refund-k2');
    const replay = await refund('10', 'refund-k1');
    const idOf = (result: Result) => (result.data?.refund as Json | undefined)?.id;
    expect(idOf(replay)).toBe(idOf(first));
    expect(idOf(first)).toMatch(/^re_/);
    expect(replay.data).toMatchObject({
      refund: { amount: { amount: '10.00' } },
      cardPayment: { amountRefunded: { amount: '30.00' } },
    });
  });

  it('3-D Secure through the simulate mutation; a token made with the public key pays once', async () => {
    const m = await t.merchant();
    const challenged = await create(m, { card: card('4000002500003155') });
    const done = await mutate(
      m,
      'completeCardPaymentThreeDSecure',
      `id: "${challenged.data?.id}", outcome: succeed`,
    );
    expect(done.data).toMatchObject({ state: 'captured', threeDSecureUrl: null });

    const token = await t.gql<{ createCardToken: Result }>(
      `mutation($card: CardInput!) { createCardToken(card: $card) {
        __typename ... on MutationCreateCardTokenSuccess { data { id brand last4 used } } } }`,
      { card: card('4242424242424242') },
      { key: m.publicKey },
    );
    expect(token.errors).toBeUndefined();
    const tokenId = String(token.data.createCardToken.data?.id);
    expect(token.data.createCardToken.data).toMatchObject({ brand: 'visa', last4: '4242', used: false });
    // The public key can do nothing else.
    const denied = await t.gql('{ cardPayments { edges { cursor } } }', {}, { key: m.publicKey });
    expect(denied.errors?.[0]?.extensions?.code).toBe('secret_key_required');
    expect((await create(m, { token: tokenId })).data).toMatchObject({ state: 'captured', last4: '4242' });
    expect(await create(m, { token: tokenId })).toMatchObject({ code: 'token_already_used' });
  });
});
