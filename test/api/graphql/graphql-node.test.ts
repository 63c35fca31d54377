import { type GraphQLInterfaceType, GraphQLObjectType, getNamedType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../../src/api/graphql/schema.ts';
import { MAX_NODE_IDS, nodeTypesByPrefix } from '../../../src/graphql/node.ts';
import { newId } from '../../../src/kernel/ids.ts';
import { paymentAttempts } from '../../../src/modules/collections/collections.table.ts';
import {
  createTestApp,
  type LoggedStatement,
  openTestDatabase,
  StatementLog,
  type TestApp,
  type TestMerchant,
} from '../../support/harness.ts';
import { Receiver } from '../../support/receiver.ts';

/**
 * Relay's node(id:) and nodes(ids:): every kind of object with an id is found by its id for the
 * merchant that owns it, and for nobody else. Another merchant's id, an unknown id and a malformed
 * one all answer null, exactly as each other do (nothing tells them apart).
 */

let t: TestApp;
/** Every statement the app runs: nodes(ids:) reads each kind once. */
const log = new StatementLog();
let receiver: Receiver;
let owner: TestMerchant;
let stranger: TestMerchant;
/** Every type that implements Node: the fixture makes one of each (a test holds the list to the schema). */
const NODE_TYPES = [
  'BalanceTransaction',
  'CardPayment',
  'CardToken',
  'Collection',
  'Counterparty',
  'Dispute',
  'DueWork',
  'Event',
  'ExpectedPayment',
  'FxConversion',
  'FxQuote',
  'FxSettlement',
  'InboundTransfer',
  'IssuingAuthorization',
  'Merchant',
  'PaymentAttempt',
  'PaymentRequest',
  'Payout',
  'Refund',
  'RequestLog',
  'Statement',
  'Transfer',
  'VirtualCard',
  'WebhookAttempt',
  'WebhookConformanceRun',
  'WebhookDelivery',
  'WebhookEndpoint',
];
/** One id of every kind the owner has, by the GraphQL type node(id:) must answer with. */
const ids: Record<string, string> = {};

type Json = Record<string, unknown>;

const CARD = { number: '4242424242424242', expMonth: 12, expYear: 2099, cvc: '123' };

async function gql(query: string, variables: Json = {}, key = owner.secretKey) {
  const res = await t.gql<Json>(query, variables, { key });
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return res.data;
}

/**
 * A mutation's Success data (`selection` is read inside `data`), failing the test on a SandbankError.
 * `card` passes CARD as the `$card` variable.
 */
async function mutate(
  field: string,
  args: string,
  selection = 'id',
  options: { card?: boolean; key?: string } = {},
): Promise<Json> {
  const success = `Mutation${field.charAt(0).toUpperCase()}${field.slice(1)}Success`;
  const data = await gql(
    `mutation${options.card ? '($card: CardInput!)' : ''} {
      ${field}${args ? `(${args})` : ''} {
        __typename
        ... on SandbankError { code message }
        ... on ${success} { data { ${selection} } }
      }
    }`,
    options.card ? { card: CARD } : {},
    options.key,
  );
  const result = data[field] as { __typename: string; data?: Json; message?: string };
  expect(result.__typename, `${field}: ${result.message}`).toBe(success);
  return result.data as Json;
}

const ACCOUNT = '{ name: "Ops", routingNumber: "021000021", accountNumber: "000123456789" }';

beforeAll(async () => {
  t = await createTestApp({ database: await openTestDatabase({ queryLogger: log }) });
  receiver = await new Receiver().start();
  owner = await t.merchant('Node owner');
  stranger = await t.merchant('Node stranger');
  ids.Merchant = owner.id;

  await mutate('topUpBalance', 'amount: "10000.00", currency: USD');
  const [posting] = (
    (await gql('{ balanceTransactions(first: 1) { edges { node { id } } } }')).balanceTransactions as {
      edges: { node: { id: string } }[];
    }
  ).edges;
  ids.BalanceTransaction = posting?.node.id as string;
  // The request log holds the owner's requests so far (the mutation above, among them).
  const requests = await t.rest<{ data: { id: string }[] }>('GET', '/v1/requests?limit=1', {
    key: owner.secretKey,
  });
  ids.RequestLog = requests.body.data[0]?.id as string;

  const collection = await mutate('createCollection', 'input: { amount: "12.00", currency: USD }');
  ids.Collection = collection.id as string;

  const token = await mutate('createCardToken', 'card: $card', 'id', { card: true, key: owner.publicKey });
  ids.CardToken = token.id as string;

  const payment = await mutate('createCardPayment', 'amount: "25.00", currency: USD, card: $card', 'id', {
    card: true,
  });
  ids.CardPayment = payment.id as string;
  const refund = await mutate(
    'refundCardPayment',
    `id: "${payment.id}", amount: "5.00"`,
    'refund { id } cardPayment { id }',
  );
  ids.Refund = (refund.refund as Json).id as string;
  const disputed = await mutate('createCardPayment', 'amount: "8.00", currency: USD, card: $card', 'id', {
    card: true,
  });
  ids.Dispute = (await mutate('simulateCardPaymentDispute', `id: "${disputed.id}"`)).id as string;

  ids.Transfer = (
    await mutate(
      'createTransfer',
      `rail: ach, direction: credit, amount: "10.00", currency: USD, counterparty: ${ACCOUNT}`,
    )
  ).id as string;
  ids.Counterparty = (
    await mutate(
      'createCounterparty',
      'name: "Ada", routingNumber: "021000021", accountNumber: "000123456789"',
    )
  ).id as string;
  ids.Payout = (await mutate('createPayout', `amount: "10.00", currency: USD, destination: ${ACCOUNT}`))
    .id as string;

  const card = await mutate('createVirtualCard', 'brand: visa, cardholderName: "Ada"', 'card { id }');
  ids.VirtualCard = (card.card as Json).id as string;
  ids.IssuingAuthorization = (
    await mutate(
      'simulateIssuingAuthorization',
      `virtualCardId: "${ids.VirtualCard}", amount: "3.00", merchantName: "Cafe", merchantMcc: "5814"`,
    )
  ).id as string;

  ids.FxQuote = (await mutate('createFxQuote', 'targetCurrency: EUR, sourceAmount: "100.00"')).id as string;
  ids.FxConversion = (await mutate('createFxConversion', `quoteId: "${ids.FxQuote}"`)).id as string;
  ids.FxSettlement = (
    await mutate(
      'createFxSettlement',
      'currency: EUR, amount: "10.00", destination: { name: "Lieferant GmbH", iban: "DE89 3704 0044 0532 0130 00" }',
    )
  ).id as string;

  ids.InboundTransfer = (
    await mutate(
      'simulateInboundTransfer',
      'rail: ach, direction: credit, amount: "8.00", currency: USD, originator: { name: "Payer", routingNumber: "021000021", accountNumber: "000987654321" }',
    )
  ).id as string;

  ids.ExpectedPayment = (
    await mutate('createExpectedPayment', 'direction: credit, amount: "7.00", currency: USD, days: 3')
  ).id as string;

  ids.PaymentRequest = (
    await mutate('createPaymentRequest', `rail: fednow, amount: "6.00", currency: USD, payer: ${ACCOUNT}`)
  ).id as string;

  // A run against an endpoint nobody listens at (connections refused), waited for, then the endpoint deleted.
  const judged = await mutate('createWebhookEndpoint', 'url: "http://127.0.0.1:9/hook"');
  ids.WebhookConformanceRun = (
    await mutate('startWebhookConformanceRun', `id: "${judged.id}", input: { timeoutMs: 1000, wait: true }`)
  ).id as string;
  await mutate('deleteWebhookEndpoint', `id: "${judged.id}"`);

  const endpoint = await mutate('createWebhookEndpoint', `url: "${receiver.url}"`);
  ids.WebhookEndpoint = endpoint.id as string;
  const testEvent = await gql(
    `mutation { testWebhookEndpoint(id: "${endpoint.id}") {
      ... on MutationTestWebhookEndpointSuccess { data } } }`,
  );
  ids.Event = (testEvent.testWebhookEndpoint as { data: string }).data;

  // Three days on: the webhook is delivered (an attempt), and due work runs (the top-up's and the
  // payment's funds becoming available, the transfer's submission, …).
  const advanced = await mutate('advanceClock', 'seconds: 259200', 'ran { id }');
  const [job] = advanced.ran as { id: string }[];
  ids.DueWork = job?.id as string;
  const deliveries = (
    await gql(`{ webhookEndpoint(id: "${endpoint.id}") {
      deliveries(first: 100) { edges { node { id attempts { id } } } } } }`)
  ).webhookEndpoint as { deliveries: { edges: { node: { id: string; attempts: { id: string }[] } }[] } };
  const delivery = deliveries.deliveries.edges.find((edge) => edge.node.attempts.length > 0)?.node;
  ids.WebhookDelivery = delivery?.id as string;
  // The end of each banking day with activity produced a statement.
  const statements = (await gql('{ statements(first: 1) { edges { node { id } } } }')).statements as {
    edges: { node: { id: string } }[];
  };
  ids.Statement = statements.edges[0]?.node.id as string;
  ids.WebhookAttempt = delivery?.attempts[0]?.id as string;

  // Payment attempts are no longer made (bank payments are ACH debits): an older row, as a
  // database from before holds it.
  ids.PaymentAttempt = newId('paymentAttempt');
  const now = new Date();
  await t.database.db.insert(paymentAttempts).values({
    id: ids.PaymentAttempt,
    merchantId: owner.id,
    collectionId: ids.Collection,
    method: 'bank_account',
    state: 'succeeded',
    amount: 1200n,
    currency: 'USD',
    bankAccountLast4: '6789',
    bankRoutingNumber: '021000021',
    bankAccountType: 'checking',
    createdAt: now,
    updatedAt: now,
  });
});

afterAll(async () => {
  await receiver?.stop();
  await t?.close();
});

const NODE = `query($id: ID!) { node(id: $id) { __typename id } }`;
const NODES = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`;

/** Every object type that implements Node, from the schema itself. */
function nodeTypes(): string[] {
  const node = schema.getType('Node') as GraphQLInterfaceType;
  return schema
    .getPossibleTypes(node)
    .map((type) => type.name)
    .sort();
}

describe('the Node interface', () => {
  it('the fixture has an object of every type that implements Node', () => {
    expect(NODE_TYPES).toEqual(nodeTypes());
    expect(Object.keys(ids).sort()).toEqual(NODE_TYPES);
    for (const [type, id] of Object.entries(ids)) expect(id, type).toMatch(/^[a-z]+_[0-9A-Z]+$/);
  });

  it('every type with an id of its own implements Node, and each id prefix names one type', () => {
    const node = schema.getType('Node') as GraphQLInterfaceType;
    // Their `id` is another object's: the card's (VirtualCardDetails), the changed object's (TransactionUpdate).
    const notNodes = new Set(['VirtualCardDetails', 'TransactionUpdate']);
    const withIds = Object.values(schema.getTypeMap())
      .filter((type): type is GraphQLObjectType => type instanceof GraphQLObjectType)
      .filter((type) => !type.name.startsWith('__') && getNamedType(type.getFields().id?.type)?.name === 'ID')
      .map((type) => type.name);
    for (const name of withIds) {
      const implementsNode = (schema.getType(name) as GraphQLObjectType).getInterfaces().includes(node);
      expect(implementsNode, name).toBe(!notNodes.has(name));
    }
    expect([...nodeTypesByPrefix().values()].sort()).toEqual(nodeTypes());
  });

  it.each(NODE_TYPES)('node(id:) finds the owner its %s', async (type) => {
    const data = await gql(NODE, { id: ids[type] });
    expect(data.node).toEqual({ __typename: type, id: ids[type] });
  });

  it('answers with the object itself: its fields, through inline fragments', async () => {
    const data = await gql(
      `query($payment: ID!, $transfer: ID!, $card: ID!) {
        payment: node(id: $payment) { ... on CardPayment { amount { amount } state refunds { id } } }
        transfer: node(id: $transfer) { ... on Transaction { kind } ... on Transfer { rail direction } }
        card: node(id: $card) { ... on VirtualCard { brand last4 cardholderName } }
      }`,
      { payment: ids.CardPayment, transfer: ids.Transfer, card: ids.VirtualCard },
    );
    expect(data.payment).toEqual({
      amount: { amount: '25.00' },
      state: 'partially_refunded',
      refunds: [{ id: ids.Refund }],
    });
    expect(data.transfer).toEqual({ kind: 'transfer', rail: 'ach', direction: 'credit' });
    expect(data.card).toMatchObject({ brand: 'visa', cardholderName: 'Ada' });
  });

  it.each(NODE_TYPES)("another merchant's %s is null", async (type) => {
    const single = await gql(NODE, { id: ids[type] }, stranger.secretKey);
    expect(single.node).toBeNull();
  });

  it("nodes(ids:) gives another merchant null for every one of the owner's ids", async () => {
    const all = Object.values(ids);
    const data = await gql(NODES, { ids: all }, stranger.secretKey);
    expect(data.nodes).toEqual(all.map(() => null));
  });

  const UNKNOWN_OR_MALFORMED = [
    'cp_01J00000000000000000000000', // well formed, no such payment
    'col_01J00000000000000000000000',
    'zz_01J00000000000000000000000', // a prefix no kind has
    'req_01J00000000000000000000000', // a prefix of ids that are no object (requests)
    'key_01J00000000000000000000000', // API keys are never nodes
    '',
    'cp_',
    '_01J00000000000000000000000',
    'cp-01J00000000000000000000000',
    'CP_01J00000000000000000000000',
    'not an id',
    "cp_1' OR '1'='1",
    '../../v1/card_payments',
    `cp_${'A'.repeat(500)}`,
    'cp_01J🙂',
  ];

  it.each(UNKNOWN_OR_MALFORMED)('an unknown or malformed id (%j) is null', async (id) => {
    const data = await gql(NODE, { id });
    expect(data.node).toBeNull();
  });

  it("a collection's reference is not its id: node(id:) finds it by id only", async () => {
    const reference = `ref_${ids.Collection?.slice(4)}`;
    await mutate('createCollection', `input: { amount: "1.00", currency: USD, reference: "${reference}" }`);
    expect((await gql(NODE, { id: reference })).node).toBeNull();
  });

  it('nodes(ids:) keeps the order asked, with null where node(id:) is null, repeats included', async () => {
    const asked = [
      ids.Transfer,
      'cp_01J00000000000000000000000',
      ids.Collection,
      'not an id',
      ids.Transfer,
      ids.Event,
    ];
    const data = await gql(NODES, { ids: asked });
    expect(data.nodes).toEqual([
      { __typename: 'Transfer', id: ids.Transfer },
      null,
      { __typename: 'Collection', id: ids.Collection },
      null,
      { __typename: 'Transfer', id: ids.Transfer },
      { __typename: 'Event', id: ids.Event },
    ]);
    expect((await gql(NODES, { ids: [] })).nodes).toEqual([]);
  });

  it(`nodes(ids:) takes at most ${MAX_NODE_IDS} ids: more is a parameter_invalid error naming ids`, async () => {
    const most = Array.from({ length: MAX_NODE_IDS }, (_, i) => (i % 2 ? ids.Payout : `po_${i}`));
    const data = await gql(NODES, { ids: most });
    expect(data.nodes).toHaveLength(MAX_NODE_IDS);
    expect((data.nodes as unknown[]).filter(Boolean)).toHaveLength(MAX_NODE_IDS / 2);

    const res = await t.gql(NODES, { ids: [...most, ids.Payout] }, { key: owner.secretKey });
    expect(res.data ?? null).toBeNull();
    expect(res.errors?.[0]?.message).toMatch(new RegExp(`at most ${MAX_NODE_IDS} ids`));
    expect(res.errors?.[0]?.extensions).toMatchObject({
      code: 'parameter_invalid',
      param: 'ids',
      status: 400,
    });
  });

  it('needs the secret key, like every query', async () => {
    const res = await t.gql(NODE, { id: ids.CardPayment }, { key: owner.publicKey });
    expect(res.errors?.[0]?.extensions?.code).toBe('secret_key_required');
    const none = await t.gql(NODE, { id: ids.CardPayment });
    expect(none.errors?.[0]?.extensions?.code).toBe('api_key_missing');
  });
});

/** `count` well-formed ids of `prefix`'s kind that name nothing. */
function madeUpIds(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}_01J${String(i).padStart(23, '0')}`);
}

/**
 * The statements that looked up any of `ids` (one of them among its parameters). The owner's own id
 * is left out: it is a parameter of every query scoped to the owner (its clock, …); so are the
 * request log's writes (what it had buffered, another merchant's requests too, written before a read).
 */
function lookupsOf(statements: LoggedStatement[], ids: string[]): LoggedStatement[] {
  const asked = new Set(ids.filter((id) => id !== owner.id));
  return statements.filter(
    (statement) =>
      !/^\s*(insert into|delete from) "?request_logs\b/i.test(statement.sql) &&
      statement.params.some((param) => asked.has(String(param))),
  );
}

describe('nodes(ids:) reads each kind of object in one query', () => {
  /**
   * What reading a kind takes beyond its own query: a card payment's refunds and a delivery's
   * attempts come with them (one more query for all of them); the merchant is the caller's own.
   */
  const READS: Record<string, number> = { CardPayment: 2, WebhookDelivery: 2, Merchant: 0 };

  it.each(NODE_TYPES)('%s: one of the owner and 99 made-up ids, one read of the kind', async (type) => {
    const id = ids[type] as string;
    const prefix = id.slice(0, id.indexOf('_'));
    const asked = [id, ...madeUpIds(prefix, MAX_NODE_IDS - 1)];
    const { result, statements } = await log.during(() => gql(NODES, { ids: asked }));
    expect(result.nodes).toEqual([{ __typename: type, id }, ...asked.slice(1).map(() => null)]);
    const lookups = lookupsOf(statements, asked);
    expect(lookups.map((statement) => statement.sql)).toHaveLength(READS[type] ?? 1);
    // The kind's own query asks for every id at once, and only the caller's.
    if (type !== 'Merchant') {
      expect(lookups[0]?.params).toEqual(expect.arrayContaining([...asked, owner.id]));
      expect(lookups[0]?.sql).toMatch(/"merchant_id" = \$\d+/);
    }
  });

  it("ids of every kind, mixed with unknown, malformed and another merchant's: one read per kind, answers as node(id:) gives them", async () => {
    const strangers = await gql(
      `mutation { createCounterparty(name: "Eve", routingNumber: "021000021", accountNumber: "000111222333") {
        ... on MutationCreateCounterpartySuccess { data { id } } } }`,
      {},
      stranger.secretKey,
    );
    const foreign = ((strangers.createCounterparty as Json).data as Json).id as string;
    const asked = [
      ...Object.values(ids),
      foreign,
      stranger.id,
      'cp_01J00000000000000000000000',
      'not an id',
      ids.Transfer as string,
      `cp_${'A'.repeat(500)}`,
    ];
    const { result, statements } = await log.during(() => gql(NODES, { ids: asked }));
    const one = await Promise.all(asked.map(async (id) => (await gql(NODE, { id })).node));
    expect(result.nodes).toEqual(one);
    expect((result.nodes as unknown[]).slice(-6)).toEqual([null, null, null, null, one.at(-2), null]);
    expect(one.at(-2)).toEqual({ __typename: 'Transfer', id: ids.Transfer });
    // One query per kind asked (the merchant needs none), a card payment's refunds and a delivery's attempts.
    expect(lookupsOf(statements, asked)).toHaveLength(NODE_TYPES.length - 1 + 2);
    // The stranger's own counterparty is theirs only.
    const theirs = await gql(NODES, { ids: [foreign, ids.Counterparty] }, stranger.secretKey);
    expect(theirs.nodes).toEqual([{ __typename: 'Counterparty', id: foreign }, null]);
  });

  it('node(id:) reads its object the same way: one query', async () => {
    const { result, statements } = await log.during(() => gql(NODE, { id: ids.Payout }));
    expect(result.node).toEqual({ __typename: 'Payout', id: ids.Payout });
    expect(lookupsOf(statements, [ids.Payout as string])).toHaveLength(1);
  });
});
