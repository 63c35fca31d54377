/**
 * Reading the request log: GET /v1/requests newest first, its filters (status, method, path,
 * operation, source, Idempotency-Key, time) each alone and together, malformed ones refused with 400,
 * pages forward (starting_after) and newer (ending_before); GET /v1/requests/{id}; GraphQL's
 * requestLogs and requestLog; each merchant sees only its own requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

type Json = Record<string, unknown>;

let t: TestApp;
let m: TestMerchant;
/** The Request-Ids of the seeded requests, oldest first. */
const ids: string[] = [];
let startedAt = '';

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant('Reader');
  startedAt = new Date(Date.now() - 1000).toISOString();
  const send = async (response: Promise<{ headers: Headers }>) => {
    ids.push(String((await response).headers.get('request-id')));
  };
  await send(t.post(m, '/v1/collect', { amount: '1.00', currency: 'USD', reference: 'r-1' }));
  await send(t.post(m, '/v1/collect', { amount: 'nope', currency: 'USD' }));
  await send(t.get(m, '/v1/collections/r-1'));
  await send(t.get(m, '/v1/collections/missing'));
  await send(
    t.post(
      m,
      '/v1/collect',
      { amount: '2.00', currency: 'USD', reference: 'r-2' },
      { 'idempotency-key': 'read-key' },
    ),
  );
  await send(
    t.rest('GET', '/v1/clock', { key: m.secretKey, headers: { 'user-agent': 'sandbank-cli/0.1.0' } }),
  );
  await send(t.rest('DELETE', '/v1/webhook_endpoints/we_missing', { key: m.secretKey }));
});
afterAll(() => t.close());

async function list(query: string, merchant = m): Promise<string[]> {
  const res = await t.get(merchant, `/v1/requests?${query}`);
  expect(res.status, res.text).toBe(200);
  return (res.body.data as Json[]).map((row) => String(row.id));
}

/** The seeded ids at these positions, newest first (as the list answers). */
const seeded = (...at: number[]) => at.map((i) => ids[i]).reverse();

describe('GET /v1/requests', () => {
  it('lists newest first, without bodies; pages with starting_after and ending_before', async () => {
    expect(await list('limit=100')).toEqual([...ids].reverse());
    const first = await t.get(m, '/v1/requests?limit=3');
    expect(first.body).toMatchObject({ has_more: true, next_cursor: ids[4] });
    expect((first.body.data as Json[])[0]).not.toHaveProperty('request_body');
    expect(await list(`limit=3&starting_after=${ids[4]}`)).toEqual(seeded(1, 2, 3));
    // Newer than the second: the oldest three of them, newest first; more follow.
    const newer = await t.get(m, `/v1/requests?limit=3&ending_before=${ids[1]}`);
    expect((newer.body.data as Json[]).map((row) => row.id)).toEqual(seeded(2, 3, 4));
    expect(newer.body).toMatchObject({ has_more: true, next_cursor: null });
    expect(await list(`ending_before=${ids[6]}`)).toEqual([]);
  });

  it('filters by status, method, path, operation, source, Idempotency-Key and time', async () => {
    expect(await list('status=400')).toEqual(seeded(1));
    expect(await list('status=4xx')).toEqual(seeded(1, 3, 6));
    expect(await list('status=400,404')).toEqual(seeded(1, 3, 6));
    expect(await list('status=2XX')).toEqual(seeded(0, 2, 4, 5));
    expect(await list('method=get')).toEqual(seeded(2, 3, 5));
    expect(await list('method=DELETE')).toEqual(seeded(6));
    expect(await list('path=/v1/collect')).toEqual(seeded(0, 1, 4));
    expect(await list(`path=${encodeURIComponent('/v1/collections*')}`)).toEqual(seeded(2, 3));
    expect(await list('operation=getCollection')).toEqual(seeded(2, 3));
    expect(await list('source=cli')).toEqual(seeded(5));
    expect(await list('source=api,testing')).toEqual(seeded(0, 1, 2, 3, 4, 6));
    expect(await list('idempotency_key=read-key')).toEqual(seeded(4));
    expect(await list(`created_from=${startedAt}&operation=createCollection&status=2xx`)).toEqual(
      seeded(0, 4),
    );
    expect(await list(`created_to=${startedAt}`)).toEqual([]);
  });

  it.each([
    ['status=600', 'status'],
    ['status=4x', 'status'],
    ['status=', 'status'],
    ['method=FETCH', 'method'],
    ['path=v1/collect', 'path'],
    ['path=/v1/*/x', 'path'],
    ['operation=create-collection', 'operation'],
    ['source=browser', 'source'],
    ['created_from=yesterday', 'created_from'],
    ['ending_before=req_x!', 'ending_before'],
    ['limit=0', 'limit'],
  ])('refuses %s with 400 parameter_invalid', async (query, param) => {
    const res = await t.get(m, `/v1/requests?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param });
  });

  it('refuses starting_after with ending_before, and an unknown filter', async () => {
    const both = await t.get(m, `/v1/requests?starting_after=${ids[3]}&ending_before=${ids[1]}`);
    expect(both.status).toBe(400);
    expect(both.body.error).toMatchObject({ code: 'parameter_invalid', param: 'ending_before' });
    const unknown = await t.get(m, '/v1/requests?verb=GET');
    expect(unknown.body.error).toMatchObject({ code: 'parameter_unknown', param: 'verb' });
  });
});

describe('GET /v1/requests/{id}', () => {
  it('answers one request with its bodies; another merchant’s is a 404, as an unknown one', async () => {
    const one = await t.get(m, `/v1/requests/${ids[0]}`);
    expect(one.body).toMatchObject({ id: ids[0], object: 'request_log', operation: 'createCollection' });
    expect(JSON.parse(String(one.body.request_body))).toMatchObject({ reference: 'r-1' });
    const stranger = await t.merchant('Stranger');
    for (const res of [
      await t.get(stranger, `/v1/requests/${ids[0]}`),
      await t.get(m, '/v1/requests/req_0'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'resource_not_found' });
    }
    // The stranger's log holds only its own requests (the reads above are not logged: they read the log).
    expect((await t.get(stranger, '/v1/collections/r-1')).status).toBe(404);
    const own = (await t.get(stranger, '/v1/requests')).body.data as Json[];
    expect(own.map((row) => row.path)).toEqual(['/v1/collections/r-1']);
  });
});

describe('GraphQL', () => {
  it('requestLogs (a connection, with the same filters) and requestLog, node(id:) too', async () => {
    const res = await t.gql<Json>(
      `query ($status: String) {
        requestLogs(first: 10, status: $status, path: "/v1/collect") {
          edges { node { id method path operation statusCode errorCode source createdAt requestBody } }
        }
        requestLog(id: "${ids[0]}") { id responseBody }
        node(id: "${ids[1]}") { id ... on RequestLog { errorCode } }
      }`,
      { status: '4xx' },
      { key: m.secretKey },
    );
    expect(res.errors).toBeUndefined();
    const edges = (res.data.requestLogs as { edges: { node: Json }[] }).edges;
    expect(edges.map((edge) => edge.node)).toEqual([
      expect.objectContaining({ id: ids[1], statusCode: 400, errorCode: 'amount_invalid', source: 'api' }),
    ]);
    expect(res.data.requestLog).toMatchObject({ id: ids[0], responseBody: expect.stringContaining('"r-1"') });
    expect(res.data.node).toEqual({ id: ids[1], errorCode: 'amount_invalid' });
    const bad = await t.gql('{ requestLogs(status: "6xx") { edges { cursor } } }', {}, { key: m.secretKey });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid' });
  });
});
