import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_ITEMS, MAX_QUERY_COST, operationCost } from '../../../src/api/graphql/cost.ts';
import { schema } from '../../../src/api/graphql/schema.ts';
import { MAX_NODE_IDS } from '../../../src/graphql/node.ts';
import {
  createTestApp,
  openTestDatabase,
  StatementLog,
  type TestApp,
  type TestMerchant,
} from '../../support/harness.ts';

/**
 * The cost of a GraphQL operation counts what it will read (docs/reference/graphql.md, "Query cost"): the ids
 * of nodes(ids:), from the literal list or the variable's value, `first` on connections, multiplied
 * through nested selections. An operation over the limit is refused before any resolver runs, with
 * the cost and the limit named in its message and its extensions.
 */

let t: TestApp;
let m: TestMerchant;
const log = new StatementLog();

beforeAll(async () => {
  t = await createTestApp({ database: await openTestDatabase({ queryLogger: log }) });
  m = await t.merchant('Cost');
});

afterAll(async () => {
  await t?.close();
});

const costOf = (query: string, variables: Record<string, unknown> = {}) =>
  operationCost(schema, parse(query), undefined, variables);

/** `count` well-formed card payment ids that name nothing. */
const madeUpIds = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `cp_01J${String(from + i).padStart(23, '0')}`);

const literal = (ids: string[]) => `[${ids.map((id) => JSON.stringify(id)).join(', ')}]`;

/** `aliases` copies of nodes(ids:), each with MAX_NODE_IDS literal made-up ids. */
function aliasedNodes(aliases: number): { query: string; ids: string[] } {
  const ids: string[] = [];
  const fields = Array.from({ length: aliases }, (_, i) => {
    const own = madeUpIds(MAX_NODE_IDS, i * MAX_NODE_IDS);
    ids.push(...own);
    return `a${i}: nodes(ids: ${literal(own)}) { id }`;
  });
  return { query: `{ ${fields.join(' ')} }`, ids };
}

/** Statements that named one of `ids` among their parameters: any read of them. */
function readsOf(statements: { params: unknown[] }[], ids: string[]) {
  const asked = new Set(ids);
  return statements.filter((statement) => statement.params.some((param) => asked.has(String(param))));
}

type GqlAnswer = Awaited<ReturnType<TestApp['gql']>>;

function refusedForCost(res: GqlAnswer, cost: number) {
  expect(res.data ?? null).toBeNull();
  expect(res.errors).toHaveLength(1);
  expect(res.errors?.[0]?.message).toContain(`Query cost ${cost} exceeds the limit ${MAX_QUERY_COST}`);
  expect(res.errors?.[0]?.extensions).toEqual({
    code: 'query_rejected',
    type: 'invalid_request_error',
    status: 400,
    cost,
    limit: MAX_QUERY_COST,
  });
  expect(res.status).toBe(400);
}

describe('the cost of an operation', () => {
  it('counts one object per id of nodes(ids:), from the literal list or the variable', () => {
    expect(costOf(`{ nodes(ids: ${literal(madeUpIds(3))}) { id } }`).cost).toBe(3);
    expect(costOf('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: madeUpIds(70) }).cost).toBe(70);
    // A single id where a list is expected is a list of one (GraphQL's input coercion).
    expect(costOf('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: 'cp_1' }).cost).toBe(1);
    expect(costOf('query($id: ID!) { node(id: $id) { id } }', { id: 'cp_1' }).cost).toBe(1);
  });

  it('counts a connection as 1 and each edge as its node, first times (20 when not given)', () => {
    expect(costOf('{ collections { edges { node { id } } } }').cost).toBe(1 + 20);
    expect(
      costOf('{ collections(first: 7) { edges { cursor node { id } } pageInfo { hasNextPage } } }').cost,
    ).toBe(1 + 7 + 1);
    expect(
      costOf('query($n: Int) { collections(first: $n) { edges { node { id } } } }', { n: 40 }).cost,
    ).toBe(1 + 40);
    // A page holds at most 100: more is counted as 100 (and refused by the field itself).
    expect(costOf('{ collections(first: 5000) { edges { node { id } } } }').cost).toBe(1 + 100);
  });

  it('multiplies nested selections: a connection of first: 100 inside one of first: 100', () => {
    const nested = `{ webhookEndpoints(first: 100) { edges { node {
      deliveries(first: 100) { edges { node { id } } } } } } }`;
    // The outer connection, then per endpoint: itself, its deliveries connection and 100 deliveries.
    expect(costOf(nested).cost).toBe(1 + 100 * (1 + 1 + 100));
    const variables = `query($outer: Int, $inner: Int) { webhookEndpoints(first: $outer) { edges { node {
      deliveries(first: $inner) { edges { node { id } } } } } } }`;
    expect(costOf(variables, { outer: 10, inner: 30 }).cost).toBe(1 + 10 * (1 + 1 + 30));
  });

  it(`counts a list without a size as ${LIST_ITEMS} items, scalars, __typename and introspection as nothing`, () => {
    expect(costOf('{ event(id: "evt_1") { id type deliveries { state attempts { status } } } }').cost).toBe(
      1 + LIST_ITEMS * (1 + LIST_ITEMS),
    );
    expect(costOf('{ __typename }').cost).toBe(0);
    expect(costOf('{ __schema { types { name fields { name } } } }').cost).toBe(0);
  });

  it('follows fragments and leaves out skipped fields', () => {
    const ids = madeUpIds(9);
    const query = `query($skip: Boolean!, $ids: [ID!]!) {
      ...Some
      skipped: nodes(ids: $ids) @skip(if: $skip) { id }
      included: nodes(ids: $ids) @include(if: $skip) { id }
    }
    fragment Some on Query { nodes(ids: $ids) { ... on CardPayment { id refunds { id } } } }`;
    expect(costOf(query, { skip: true, ids }).cost).toBe(9 * (1 + LIST_ITEMS) + 9);
    expect(costOf(query, { skip: false, ids }).cost).toBe(9 * (1 + LIST_ITEMS) + 9);
  });

  it('counts each spread of a fragment, computing each fragment once', () => {
    // Each fragment spreads the next twice: 2^40 spreads of the last, counted without walking them all.
    let document = 'query { ...F0 }\n';
    for (let i = 0; i < 40; i++) document += `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }\n`;
    document += 'fragment F40 on Query { node(id: "cp_1") { id } }';
    expect(costOf(document).cost).toBe(2 ** 40);
  });
});

describe('an operation over the limit is refused before it runs', () => {
  it('15 aliases of nodes(ids:) with 100 made-up ids each: refused, the cost named, nothing read', async () => {
    const { query, ids } = aliasedNodes(15);
    const { result, statements } = await log.during(() => t.gql(query, {}, { key: m.secretKey }));
    refusedForCost(result, 15 * MAX_NODE_IDS);
    expect(readsOf(statements, ids)).toEqual([]);
  });

  it('the same ids in a variable: refused alike', async () => {
    const ids = madeUpIds(MAX_NODE_IDS);
    const fields = Array.from({ length: 15 }, (_, i) => `a${i}: nodes(ids: $ids) { id }`);
    const { result, statements } = await log.during(() =>
      t.gql(`query($ids: [ID!]!) { ${fields.join(' ')} }`, { ids }, { key: m.secretKey }),
    );
    refusedForCost(result, 15 * MAX_NODE_IDS);
    expect(readsOf(statements, ids)).toEqual([]);
  });

  it('a request of moderate cost runs: 5 aliases of 100 ids, each read once', async () => {
    const { query, ids } = aliasedNodes(5);
    const { result, statements } = await log.during(() => t.gql(query, {}, { key: m.secretKey }));
    expect(result.errors).toBeUndefined();
    for (let i = 0; i < 5; i++) expect(result.data[`a${i}`]).toEqual(Array(MAX_NODE_IDS).fill(null));
    // One query of card payments per alias, whatever its number of ids.
    expect(readsOf(statements, ids)).toHaveLength(5);
  });

  it('a connection of first: 100 inside one of first: 100 is refused; 5 inside 5 runs', async () => {
    const nested = (n: number) => `{ webhookEndpoints(first: ${n}) { edges { node {
      deliveries(first: ${n}) { edges { node { id } } } } } } }`;
    refusedForCost(await t.gql(nested(100), {}, { key: m.secretKey }), 1 + 100 * (1 + 1 + 100));
    const small = await t.gql(nested(5), {}, { key: m.secretKey });
    expect(small.errors).toBeUndefined();
    expect(small.data).toEqual({ webhookEndpoints: { edges: [] } });
  });

  it(`more than ${MAX_NODE_IDS} ids in one nodes(ids:) is parameter_invalid, before anything is read`, async () => {
    const ids = madeUpIds(MAX_NODE_IDS + 1);
    const { result, statements } = await log.during(() =>
      t.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids }, { key: m.secretKey }),
    );
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.message).toMatch(
      new RegExp(`at most ${MAX_NODE_IDS} ids; ${MAX_NODE_IDS + 1}`),
    );
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'parameter_invalid',
      param: 'ids',
      status: 400,
    });
    expect(readsOf(statements, ids)).toEqual([]);
  });
});
