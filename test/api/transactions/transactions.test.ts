import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/harness.ts';

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

const QUERY = `query($first: Int, $after: String, $kinds: [TransactionKind!]) {
  transactions(first: $first, after: $after, kinds: $kinds) {
    edges { cursor node { __typename id kind state amount { amount } reference timeline { state eventType }
      ... on CardPayment { refunds { state } } ... on Collection { checkoutUrl } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

describe('transactions: one list across kinds', () => {
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
    // kinds is an enum: an unknown kind is refused before execution, naming the enum.
    const bad = await t.gql(QUERY, { kinds: ['no_such_kind'] }, { key: m.secretKey });
    expect(bad.data ?? null).toBeNull();
    expect(bad.errors?.[0]?.message).toMatch(/TransactionKind/);
    // Another merchant sees none of it.
    const other = await t.merchant();
    const theirs = await t.gql<{ transactions: { edges: unknown[] } }>(QUERY, {}, { key: other.secretKey });
    expect(theirs.data.transactions.edges).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Filters, one transaction by id, and the ledger by source (GET /v1/transactions, GraphQL)

const VISA = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
const ACCOUNT = {
  name: 'Acme Supplies',
  routing_number: '021000021',
  account_number: '000123456789',
  account_type: 'checking',
};

type Json = Record<string, unknown>;
type List = { data: Json[]; has_more: boolean; next_cursor: string | null };

/**
 * A merchant frozen on Tuesday 2031-12-02 14:00Z with three days of transactions:
 * day 1 a collection ORD-1001; day 2 a captured card payment ord-2002 (a_b); day 3 an ACH debit
 * inv-7 and an authorized card payment axb.
 */
async function threeDays() {
  const m = await t.merchant();
  const post = async (path: string, body?: unknown) => {
    const res = await t.rest<Json>('POST', path, { key: m.secretKey, ...(body ? { body } : {}) });
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    return res.body;
  };
  await post('/v1/clock/freeze');
  await post('/v1/clock/advance', { to: '2031-12-02T14:00:00.000Z' });
  const col = await post('/v1/collect', { amount: 10, currency: 'USD', reference: 'ORD-1001' });
  await post('/v1/clock/advance', { to: '2031-12-03T14:00:00.000Z' });
  const captured = await post('/v1/card_payments', {
    amount: 20,
    currency: 'USD',
    card: VISA,
    reference: 'ord-2002',
  });
  await post('/v1/clock/advance', { to: '2031-12-04T14:00:00.000Z' });
  const debit = await post('/v1/transfers', {
    rail: 'ach',
    direction: 'debit',
    amount: '30.00',
    currency: 'USD',
    counterparty: ACCOUNT,
    reference: 'a_b',
  });
  const authorized = await post('/v1/card_payments', {
    amount: 40,
    currency: 'USD',
    card: VISA,
    capture: false,
    reference: 'axb',
  });
  const ids = {
    col: String(col.id),
    captured: String(captured.id),
    debit: String(debit.id),
    authorized: String(authorized.id),
  };
  const list = async (query: string) => {
    const res = await t.rest<List>('GET', `/v1/transactions${query}`, { key: m.secretKey });
    expect(res.status, res.text).toBe(200);
    return res.body.data.map((row) => row.id);
  };
  return { m, ids, list };
}

describe('GET /v1/transactions: filters', () => {
  it('kind (comma-separated or repeated), state, creation instants and their combination', async () => {
    const { ids, list } = await threeDays();
    expect(await list('')).toEqual([ids.authorized, ids.debit, ids.captured, ids.col]);
    expect(await list('?kind=collection')).toEqual([ids.col]);
    expect(await list('?kind=card_payment,transfer')).toEqual([ids.authorized, ids.debit, ids.captured]);
    expect(await list('?kind=transfer&kind=collection')).toEqual([ids.debit, ids.col]);
    expect(await list('?state=captured')).toEqual([ids.captured]);
    expect(await list('?state=pending&kind=transfer')).toEqual([ids.debit]);
    expect(await list('?created_from=2031-12-03T14:00:00.000Z')).toEqual([
      ids.authorized,
      ids.debit,
      ids.captured,
    ]);
    // created_to is exclusive: the payment made at 12-03 14:00 is not before itself.
    expect(await list('?created_to=2031-12-03T14:00:00.000Z')).toEqual([ids.col]);
    expect(await list('?created_from=2031-12-03T00:00:00Z&created_to=2031-12-04T00:00:00Z')).toEqual([
      ids.captured,
    ]);
    expect(await list('?created_from=2031-12-05T00:00:00Z')).toEqual([]);
  });

  it('search: an exact id (any case, an event id, a refund id) or a part of the reference', async () => {
    const { m, ids, list } = await threeDays();
    expect(await list('?q=ord')).toEqual([ids.captured, ids.col]);
    expect(await list('?q=ORD-100')).toEqual([ids.col]);
    expect(await list(`?q=${ids.debit}`)).toEqual([ids.debit]);
    expect(await list(`?q=${ids.debit.toLowerCase()}`)).toEqual([ids.debit]);
    // LIKE's wildcards are literal: "a_b" is not "axb", "%" matches no reference.
    expect(await list('?q=a_b')).toEqual([ids.debit]);
    expect(await list('?q=%25')).toEqual([]);
    const events = await t.rest<List>('GET', `/v1/events?object_id=${ids.authorized}`, { key: m.secretKey });
    expect(await list(`?q=${events.body.data[0]?.id}`)).toEqual([ids.authorized]);
    const refund = await t.rest<Json>('POST', `/v1/card_payments/${ids.captured}/refunds`, {
      key: m.secretKey,
      body: { amount: 5 },
    });
    expect(await list(`?q=${refund.body.id}`)).toEqual([ids.captured]);
    expect(await list('?q=ord&kind=card_payment&state=captured')).toEqual([]);
    expect(await list('?q=ord&kind=card_payment&state=partially_refunded')).toEqual([ids.captured]);
  });

  it("renders each row with its own kind's resource and pages with starting_after", async () => {
    const { m, ids } = await threeDays();
    const first = await t.rest<List>('GET', '/v1/transactions?limit=2', { key: m.secretKey });
    expect(first.body.has_more).toBe(true);
    expect(first.body.next_cursor).toBe(ids.debit);
    expect(first.body.data[0]).toMatchObject({
      id: ids.authorized,
      kind: 'card_payment',
      object: 'card_payment',
      state: 'authorized',
      amount: 40,
      amount_captured: 0,
      refunds: [],
      last4: '4242',
    });
    expect(first.body.data[1]).toMatchObject({
      kind: 'transfer',
      rail: 'ach',
      amount: 30,
      counterparty: { account_number: '••••6789' },
    });
    const second = await t.rest<List>(`GET`, `/v1/transactions?limit=2&starting_after=${ids.debit}`, {
      key: m.secretKey,
    });
    expect(second.body.has_more).toBe(false);
    expect(second.body.data.map((row) => [row.id, row.kind])).toEqual([
      [ids.captured, 'card_payment'],
      [ids.col, 'collection'],
    ]);
    expect(second.body.data[1]).toMatchObject({ reference: 'ORD-1001', checkout_url: expect.any(String) });
  });

  it('answers structured 400s for bad filters', async () => {
    const m = await t.merchant();
    const bad = async (query: string, param: string) => {
      const res = await t.rest<{ error: Json }>('GET', `/v1/transactions${query}`, { key: m.secretKey });
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param });
    };
    await bad('?kind=collection,nope', 'kind');
    await bad('?kind=collection&kind=nope', 'kind');
    await bad('?created_from=yesterday', 'created_from');
    await bad('?created_from=2031-12-03T00:00:00Z&created_to=2031-12-02T00:00:00Z', 'created_to');
    await bad('?created_from=0000-01-01T00:00:00Z', 'created_from');
    await bad('?created_to=%2B010000-01-01T00:00:00Z', 'created_to');
    await bad('?state=Not%20A%20State', 'state');
    await bad(`?q=${'x'.repeat(101)}`, 'q');
    await bad('?limit=0', 'limit');
    const unknown = await t.rest<{ error: Json }>('GET', '/v1/transactions?colour=red', { key: m.secretKey });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('parameter_unknown');
  });
});

describe('GET /v1/transactions/{id}', () => {
  it('answers any kind by its id, never another merchant’s', async () => {
    const { m, ids } = await threeDays();
    const get = (id: string, key = m.secretKey) =>
      t.rest<Json & { error?: Json }>('GET', `/v1/transactions/${id}`, { key });
    expect((await get(ids.col)).body).toMatchObject({
      kind: 'collection',
      reference: 'ORD-1001',
      amount: 10,
    });
    expect((await get(ids.captured)).body).toMatchObject({ kind: 'card_payment', state: 'captured' });
    expect((await get(ids.debit)).body).toMatchObject({ kind: 'transfer', direction: 'debit' });
    const other = await t.merchant();
    for (const id of [ids.col, ids.captured, ids.debit, 'xyz_123', 'col_%00', 'evt_123']) {
      const res = await get(id, other.secretKey);
      expect(res.status, id).toBe(404);
      expect(res.body.error?.code).toBe('resource_not_found');
    }
  });
});

describe('GET /v1/balance_transactions?source_id=', () => {
  it("lists only the postings of the given source objects (a transaction's postings)", async () => {
    const { m, ids } = await threeDays();
    const list = async (query: string) =>
      t.rest<List & { error?: Json }>('GET', `/v1/balance_transactions${query}`, { key: m.secretKey });
    const captured = await list(`?source_id=${ids.captured}`);
    expect(captured.body.data.length).toBeGreaterThan(0);
    expect(captured.body.data.every((p) => (p.source as Json).id === ids.captured)).toBe(true);
    expect((await list(`?source_id=${ids.authorized}`)).body.data).toEqual([]);
    const both = await list(`?source_id=${ids.captured},${ids.col}`);
    expect(both.body.data.length).toBe(captured.body.data.length);
    await t.rest('POST', '/v1/simulate/balance/top_up', {
      key: m.secretKey,
      body: { amount: 5, currency: 'USD' },
    });
    const all = await list('');
    expect(all.body.data.length).toBeGreaterThan(captured.body.data.length);
    expect((await list(`?source_id=${ids.captured}`)).body.data).toEqual(captured.body.data);
    const bad = await list('?source_id=a%20b');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'parameter_invalid', param: 'source_id' });
    const gql = await t.gql<{ balanceTransactions: { edges: { node: { id: string } }[] } }>(
      `{ balanceTransactions(sourceIds: ["${ids.captured}"]) { edges { node { id } } } }`,
      {},
      { key: m.secretKey },
    );
    expect(gql.data.balanceTransactions.edges.map((e) => e.node.id)).toEqual(
      captured.body.data.map((p) => p.id),
    );
    const tooMany = await t.gql(
      `{ balanceTransactions(sourceIds: [${Array.from({ length: 51 }, (_, i) => `"x${i}"`).join(',')}]) { edges { node { id } } } }`,
      {},
      { key: m.secretKey },
    );
    expect(tooMany.errors?.[0]?.extensions?.code).toBe('parameter_invalid');
  });
});

describe('GraphQL: transactions filters and transaction(id)', () => {
  const FILTERED = `query($kinds: [TransactionKind!], $state: TransactionState, $from: DateTime, $to: DateTime, $search: String) {
    transactions(first: 20, kinds: $kinds, state: $state, createdFrom: $from, createdTo: $to, search: $search) {
      edges { node { id kind state } }
    }
  }`;

  it('the same filters as REST', async () => {
    const { m, ids } = await threeDays();
    const ids_ = async (variables: Json) => {
      const res = await t.gql<{ transactions: { edges: { node: Node }[] } }>(FILTERED, variables, {
        key: m.secretKey,
      });
      expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
      return res.data.transactions.edges.map((e) => e.node.id);
    };
    expect(await ids_({ kinds: ['collection', 'transfer'] })).toEqual([ids.debit, ids.col]);
    expect(await ids_({ state: 'authorized' })).toEqual([ids.authorized]);
    expect(await ids_({ from: '2031-12-03T00:00:00Z', to: '2031-12-04T00:00:00Z' })).toEqual([ids.captured]);
    expect(await ids_({ search: 'ORD' })).toEqual([ids.captured, ids.col]);
    expect(await ids_({ search: ids.col })).toEqual([ids.col]);
    // state is an enum: a state no kind has is refused before execution, naming the enum.
    const bad = await t.gql(FILTERED, { state: 'Bad State' }, { key: m.secretKey });
    expect(bad.data ?? null).toBeNull();
    expect(bad.errors?.[0]?.message).toMatch(/TransactionState/);
  });

  it('pages forward only: last and before are refused, not ignored', async () => {
    const m = await t.merchant();
    for (const [args, param] of [
      ['last: 5', 'last'],
      ['before: "col_01J00000000000000000000000"', 'before'],
    ] as const) {
      const res = await t.gql(
        `{ transactions(${args}) { edges { node { id } } } }`,
        {},
        { key: m.secretKey },
      );
      expect(res.data ?? null).toBeNull();
      expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid', param });
    }
    const forward = await t.gql(
      '{ transactions(first: 5) { edges { node { id } } } }',
      {},
      { key: m.secretKey },
    );
    expect(forward.errors).toBeUndefined();
  });

  it('transaction(id) answers the Transaction of any kind, null for another merchant’s', async () => {
    const { m, ids } = await threeDays();
    const ONE = `query($id: ID!) { transaction(id: $id) { __typename id kind state reference amount { amount }
      timeline { state } ... on Transfer { direction } } }`;
    const one = await t.gql<{ transaction: Json | null }>(ONE, { id: ids.debit }, { key: m.secretKey });
    expect(one.errors).toBeUndefined();
    expect(one.data.transaction).toMatchObject({
      __typename: 'Transfer',
      id: ids.debit,
      kind: 'transfer',
      state: 'pending',
      reference: 'a_b',
      amount: { amount: '30.00' },
      direction: 'debit',
      timeline: [{ state: 'created' }],
    });
    const collection = await t.gql<{ transaction: Json | null }>(ONE, { id: ids.col }, { key: m.secretKey });
    expect(collection.data.transaction).toMatchObject({ __typename: 'Collection', reference: 'ORD-1001' });
    const other = await t.merchant();
    const theirs = await t.gql<{ transaction: Json | null }>(
      ONE,
      { id: ids.debit },
      { key: other.secretKey },
    );
    expect(theirs.errors).toBeUndefined();
    expect(theirs.data.transaction).toBeNull();
  });
});
