import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

type Node = {
  __typename: string;
  id: string;
  kind: string;
  state: string;
  amount: { amount: string };
  reference: string | null;
  timeline: { state: string; eventType: string }[];
  refunds?: { state: string }[];
};

const QUERY = `query($first: Int, $after: String, $kinds: [String!]) {
  transactions(first: $first, after: $after, kinds: $kinds) {
    edges { cursor node { __typename id kind state amount { amount } reference timeline { state eventType }
      ... on CardPayment { refunds { state } } ... on Collection { checkoutUrl } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

describe('transactions: one list across kinds (API.md §12)', () => {
  it('lists collections and card payments newest first, with their timelines, paginated and filtered', async () => {
    const m = await t.merchant();
    const visa = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
    const post = (path: string, body: unknown) =>
      t.rest<Record<string, unknown>>('POST', path, { key: m.secretKey, body });
    const col = await post('/v1/collect', { amount: 10, currency: 'USD', reference: 'tx-a' });
    const card = await post('/v1/card_payments', { amount: 20, currency: 'USD', card: visa, capture: false });
    await post(`/v1/card_payments/${card.body.id}/capture`, { amount: 15 });
    await post(`/v1/card_payments/${card.body.id}/refunds`, { amount: 5 });
    const paid = await post('/v1/simulate/collections/tx-a/pay', { method: 'card', card: visa });
    const checkoutPayment = (paid.body.payment as { id: string }).id;

    const all = await t.gql<{ transactions: { edges: { node: Node }[] } }>(
      QUERY,
      { first: 10 },
      { key: m.secretKey },
    );
    expect(all.errors).toBeUndefined();
    const nodes = all.data.transactions.edges.map((e) => e.node);
    expect(nodes.map((n) => [n.__typename, n.id])).toEqual([
      ['CardPayment', checkoutPayment],
      ['CardPayment', card.body.id],
      ['Collection', col.body.id],
    ]);
    const [viaCheckout, direct, collection] = nodes;
    expect(direct).toMatchObject({
      kind: 'card_payment',
      state: 'partially_refunded',
      amount: { amount: '20.00' },
    });
    expect(direct?.timeline.map((e) => e.state)).toEqual(['authorized', 'captured', 'partially_refunded']);
    expect(direct?.refunds).toEqual([{ state: 'succeeded' }]);
    expect(viaCheckout).toMatchObject({ kind: 'card_payment', state: 'captured', reference: 'tx-a' });
    expect(collection).toMatchObject({ kind: 'collection', state: 'succeeded', reference: 'tx-a' });
    expect(collection?.timeline.map((e) => e.eventType)).toEqual([
      'collection.created',
      'collection.succeeded',
    ]);

    const first = await t.gql<{
      transactions: { edges: { node: Node }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
    }>(QUERY, { first: 2 }, { key: m.secretKey });
    expect(first.data.transactions.pageInfo.hasNextPage).toBe(true);
    const second = await t.gql<{
      transactions: { edges: { node: Node }[]; pageInfo: { hasNextPage: boolean } };
    }>(QUERY, { first: 2, after: first.data.transactions.pageInfo.endCursor }, { key: m.secretKey });
    expect(second.data.transactions.edges.map((e) => e.node.id)).toEqual([col.body.id]);
    expect(second.data.transactions.pageInfo.hasNextPage).toBe(false);

    const onlyCollections = await t.gql<{ transactions: { edges: { node: Node }[] } }>(
      QUERY,
      { kinds: ['collection'] },
      { key: m.secretKey },
    );
    expect(onlyCollections.data.transactions.edges.map((e) => e.node.id)).toEqual([col.body.id]);
    const bad = await t.gql(QUERY, { kinds: ['no_such_kind'] }, { key: m.secretKey });
    expect(bad.errors?.[0]?.extensions?.code).toBe('parameter_invalid');
    // Another merchant sees none of it.
    const other = await t.merchant();
    const theirs = await t.gql<{ transactions: { edges: unknown[] } }>(QUERY, {}, { key: other.secretKey });
    expect(theirs.data.transactions.edges).toEqual([]);
  });
});
