import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../../src/api/graphql/schema.ts';
import { ERROR_REGISTRY } from '../../../src/kernel/errors.ts';
import {
  createTestApp,
  openIsolatedTestDatabase,
  rowCounts,
  type TestApp,
  type TestMerchant,
} from '../../support/harness.ts';
import { badMutation } from './graphql-cases.ts';
import { listenOnLoopback, type RawResponse } from './http-client.ts';
import { createObjects } from './objects.ts';
import { type BadCase, badCase, type Ids, type PostRoute, postRoutes } from './rest-cases.ts';

/**
 * No client-controlled input reaches a 5xx: thousands of generated bad requests across every POST
 * operation, sent over a real socket on loopback, each answered with the error envelope and a 4xx,
 * and the database holds exactly the rows it held before. The seed is fixed, so a failure replays.
 */

const SEED = 20261124;
const REST_CASES = 4200;
const GRAPHQL_CASES = 2100;

let t: TestApp;
let drop: () => Promise<void>;
let m: TestMerchant;
let ids: Ids;
let routes: PostRoute[];
let http: Awaited<ReturnType<typeof listenOnLoopback>>;

beforeAll(async () => {
  const isolated = await openIsolatedTestDatabase();
  drop = isolated.drop;
  t = await createTestApp({ database: isolated.database });
  m = await t.merchant('Fuzz');
  ids = await createObjects(t, m);
  const document = await t.rest('GET', '/v1/openapi.json');
  routes = postRoutes(document.body as never);
  http = await listenOnLoopback(t.app);
}, 120_000);

afterAll(async () => {
  await http?.close();
  await drop?.();
});

function authorization(auth: BadCase['auth']): Record<string, string> {
  switch (auth) {
    case 'secret':
      return { authorization: `Bearer ${m.secretKey}` };
    case 'public':
      return { authorization: `Bearer ${m.publicKey}` };
    case 'garbage':
      return { authorization: 'Bearer sk_test_notarealkey000000' };
    case 'basic':
      return { authorization: `Basic ${Buffer.from(`${m.secretKey}:`).toString('base64')}` };
    case 'none':
      return {};
  }
}

/** Why a response breaks the rule, or null: a 4xx in the error envelope with a registered code. */
function violation(response: RawResponse): string | null {
  if (response.status < 400 || response.status >= 500) return `status ${response.status}`;
  let body: { status?: string; error?: { code?: string } };
  try {
    body = JSON.parse(response.text);
  } catch {
    return 'not JSON';
  }
  const code = body.error?.code;
  if (body.status !== 'error' || !code || !Object.hasOwn(ERROR_REGISTRY, code)) return 'no error envelope';
  if (ERROR_REGISTRY[code as keyof typeof ERROR_REGISTRY].status !== response.status)
    return `${code} with ${response.status}`;
  return null;
}

describe('generated bad requests', () => {
  it(`${REST_CASES} bad REST requests across every POST operation: each a 4xx, nothing written`, async () => {
    expect(routes.length).toBeGreaterThanOrEqual(40);
    const before = await rowCounts(t.database);
    const perRoute = Math.ceil(REST_CASES / routes.length);
    const failures: string[] = [];
    const statuses = new Map<string, number>();
    let sent = 0;
    for (const [index, route] of routes.entries()) {
      const cases = fc.sample(badCase(route, ids), { numRuns: perRoute, seed: SEED + index });
      for (const made of cases) {
        const response = await http.send({
          ...made.request,
          headers: { ...made.request.headers, ...authorization(made.auth) },
        });
        sent++;
        const key = `${made.kind} → ${response.status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        const problem = violation(response);
        if (problem && failures.length < 20)
          failures.push(
            `${problem}: ${made.kind} on POST ${made.request.path} (auth ${made.auth}) ${JSON.stringify(made.request.headers)} ${String(made.request.body ?? '').slice(0, 200)} → ${response.text.slice(0, 200)}`,
          );
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(REST_CASES);
    expect(await rowCounts(t.database)).toEqual(before);
  }, 600_000);

  it(`${GRAPHQL_CASES} bad GraphQL mutations across every mutation: each refused (before it runs or as its typed 4xx error), nothing written`, async () => {
    const mutations = Object.keys(schema.getMutationType()?.getFields() ?? {});
    expect(mutations.length).toBeGreaterThanOrEqual(40);
    const before = await rowCounts(t.database);
    const perMutation = Math.ceil(GRAPHQL_CASES / mutations.length);
    const failures: string[] = [];
    let sent = 0;
    for (const [index, name] of mutations.entries()) {
      const cases = fc.sample(badMutation(schema, name, graphqlIdFor), {
        numRuns: perMutation,
        seed: SEED + index,
      });
      for (const made of cases) {
        const response = await http.send({
          method: 'POST',
          path: '/graphql',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${m.secretKey}` },
          body: JSON.stringify({ query: made.query, variables: made.variables }),
        });
        sent++;
        const problem = graphqlViolation(response, name);
        if (problem && failures.length < 20)
          failures.push(
            `${problem}: ${made.kind} ${made.query.slice(0, 300)} ${JSON.stringify(made.variables).slice(0, 300)} → ${response.text.slice(0, 300)}`,
          );
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(GRAPHQL_CASES);
    expect(await rowCounts(t.database)).toEqual(before);
  }, 600_000);
});

/**
 * Why a GraphQL response breaks the rule, or null: no 5xx, and the mutation refused either before
 * it ran (request errors, none internal) or as its typed error with a 4xx status.
 */
function graphqlViolation(response: RawResponse, mutation: string): string | null {
  if (response.status >= 500) return `status ${response.status}`;
  type Result = { __typename?: string; code?: string; httpStatus?: number } | null;
  let body: { data?: Record<string, Result> | null; errors?: { extensions?: { code?: string } }[] };
  try {
    body = JSON.parse(response.text);
  } catch {
    return 'not JSON';
  }
  if (body.errors?.some((error) => error.extensions?.code === 'internal_error')) return 'internal_error';
  const result = body.data?.[mutation] ?? null;
  if (result === null) return body.errors?.length ? null : 'neither errors nor a result';
  if (result.__typename !== 'SandbankError') return `the mutation ran (${result.__typename})`;
  if (
    !result.httpStatus ||
    result.httpStatus < 400 ||
    result.httpStatus >= 500 ||
    result.code === 'internal_error'
  )
    return `typed error ${result.code} ${result.httpStatus}`;
  return null;
}

/** Real ids for id arguments, by the object the mutation acts on. */
function graphqlIdFor(mutation: string, argument: string): string | undefined {
  if (argument === 'quoteId') return ids.idFor('/fx_quotes/{id}');
  if (argument === 'endpointId') return ids.idFor('/webhook_endpoints/{id}');
  if (argument === 'reference') return ids.idFor('/collections/{reference}');
  if (argument !== 'id') return undefined;
  const kinds: [RegExp, string][] = [
    [/CardPayment/, 'card_payments'],
    [/IssuingAuthorization/, 'issuing_authorizations'],
    [/VirtualCard/, 'virtual_cards'],
    [/Payout/, 'payouts'],
    [/Transfer/, 'transfers'],
    [/FxSettlement/, 'fx_settlements'],
    [/Webhook/, 'webhook_endpoints'],
    [/Event/, 'events'],
  ];
  const segment = kinds.find(([pattern]) => pattern.test(mutation))?.[1];
  return segment ? ids.idFor(`/${segment}/{id}`) : undefined;
}
