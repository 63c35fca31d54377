/**
 * The request log's capture: every REST and GraphQL request of a merchant is logged — answered or
 * refused (a validation 400, a declined card's 402, an unknown route's 404) — with its operation,
 * status, error code, Idempotency-Key, latency, source and masked bodies, and is there at the next
 * read. A request that identifies no merchant, and the log's own reads, are not logged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

type Json = Record<string, unknown>;

let t: TestApp;
let m: TestMerchant;
beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant('Logged');
});
afterAll(() => t.close());

const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };

/** The merchant's requests, newest first (the list, without bodies). */
async function logged(merchant = m, query = 'limit=100'): Promise<Json[]> {
  const res = await t.get(merchant, `/v1/requests?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data as Json[];
}

/** One request with its bodies, by its Request-Id. */
async function entry(id: string | null, merchant = m): Promise<Json> {
  const res = await t.get(merchant, `/v1/requests/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('what is logged', () => {
  it('a request that succeeded, with its operation, bodies and latency, at the very next read', async () => {
    const res = await t.post(m, '/v1/collect', { amount: '12.50', currency: 'USD', reference: 'log-1' });
    expect(res.status).toBe(200);
    const id = res.headers.get('request-id');
    const [newest] = await logged();
    expect(newest).toEqual({
      id,
      object: 'request_log',
      method: 'POST',
      path: '/v1/collect',
      operation: 'createCollection',
      status_code: 200,
      error_code: null,
      idempotency_key: null,
      latency_ms: expect.any(Number),
      source: 'api',
      query: null,
      created_at: expect.any(String),
    });
    expect(Math.abs(Date.parse(String(newest?.created_at)) - Date.now())).toBeLessThan(60_000);
    const one = await entry(id);
    // The bodies as JSON text, exact digits kept.
    expect(JSON.parse(String(one.request_body))).toEqual({
      amount: '12.50',
      currency: 'USD',
      reference: 'log-1',
    });
    // The checkout link's secret is masked, the rest kept as answered.
    expect(one.response_body).toBe(res.text.replace(/\?secret=[^"]+/, '?secret=[redacted]'));
    expect(one.response_body).toContain('"amount":12.50');
  });

  it('refused requests: a validation 400, a declined card 402, an unknown id 404 and an unknown route 404', async () => {
    const invalid = await t.post(m, '/v1/collect', { amount: 'lots', currency: 'USD' });
    const declined = await t.post(m, '/v1/card_payments', {
      amount: '5.00',
      currency: 'USD',
      card: { ...CARD, number: '4000000000000002' },
    });
    const missing = await t.get(m, '/v1/collections/nothing-here');
    const noRoute = await t.get(m, '/v1/nowhere?x=1');
    expect([invalid.status, declined.status, missing.status, noRoute.status]).toEqual([400, 402, 404, 404]);
    const [route, id, card, amount] = await logged();
    expect(amount).toMatchObject({
      operation: 'createCollection',
      status_code: 400,
      error_code: 'amount_invalid',
    });
    expect(card).toMatchObject({
      operation: 'createCardPayment',
      status_code: 402,
      error_code: 'card_declined',
    });
    expect(id).toMatchObject({
      operation: 'getCollection',
      status_code: 404,
      error_code: 'resource_not_found',
    });
    expect(route).toMatchObject({
      operation: null,
      path: '/v1/nowhere',
      query: 'x=1',
      status_code: 404,
      error_code: 'route_not_found',
    });
    expect((await entry(String(card?.id))).response_body).toContain('"decline_code":"generic_decline"');
  });

  it('a body that is not JSON is kept as sent; a form body as the object it was read into', async () => {
    const broken = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      rawBody: '{"amount": 1, "card": {"number": "4242424242424242", "cvc": "999"',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    const [row] = await logged();
    expect(row).toMatchObject({ error_code: 'invalid_json', status_code: 400 });
    const text = String((await entry(String(row?.id))).request_body);
    expect(text).toContain('****4242');
    expect(text).not.toContain('4242424242424242');
    expect(text).not.toContain('999');

    const form = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      rawBody: 'amount=3&currency=usd&reference=log-form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(200);
    const [formRow] = await logged();
    expect(JSON.parse(String((await entry(String(formRow?.id))).request_body))).toMatchObject({
      amount: '3',
      reference: 'log-form',
    });
  });

  it('the Idempotency-Key, on the first request and on its replay (the same answer)', async () => {
    const body = { amount: '7.00', currency: 'USD', reference: 'log-idem' };
    const first = await t.post(m, '/v1/collect', body, { 'idempotency-key': 'log-key-1' });
    const replay = await t.post(m, '/v1/collect', body, { 'idempotency-key': 'log-key-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const rows = await logged(m, 'idempotency_key=log-key-1');
    expect(rows.map((row) => row.id)).toEqual([
      replay.headers.get('request-id'),
      first.headers.get('request-id'),
    ]);
    expect(rows.every((row) => row.operation === 'createCollection' && row.status_code === 200)).toBe(true);
    const [again, once] = [await entry(String(rows[0]?.id)), await entry(String(rows[1]?.id))];
    expect(again.response_body).toBe(once.response_body);
  });

  it('GraphQL: named operations by their name, unnamed ones by their first field, variables masked', async () => {
    const named = await t.gql('query ClockNow { clock { now } }', {}, { key: m.secretKey });
    expect(named.errors).toBeUndefined();
    const pay = await t.gql(
      'mutation ($card: CardInput!) { createCardPayment(amount: "4.00", currency: USD, card: $card) { __typename ... on SandbankError { code } } }',
      { card: { number: '4000000000000002', expMonth: 12, expYear: 2099, cvc: '321' } },
      { key: m.secretKey },
    );
    expect(pay.data).toEqual({ createCardPayment: { __typename: 'SandbankError', code: 'card_declined' } });
    const broken = await t.gql('{ clock { nope } }', {}, { key: m.secretKey });
    expect(broken.errors).toBeDefined();
    const [refused, mutation, query] = await logged(m, 'path=/graphql');
    expect(query).toMatchObject({
      method: 'POST',
      operation: 'ClockNow',
      status_code: 200,
      error_code: null,
    });
    expect(mutation).toMatchObject({ operation: 'createCardPayment', error_code: 'card_declined' });
    expect(refused).toMatchObject({ operation: 'clock', error_code: 'GRAPHQL_VALIDATION_FAILED' });
    const body = JSON.parse(String((await entry(String(mutation?.id))).request_body));
    expect(body.variables).toEqual({ card: { number: '****0002', expMonth: 12, expYear: 2099, cvc: '***' } });
    expect(body.query).toContain('createCardPayment');
  });

  it('masks card data in GraphQL literals, and secrets and keys anywhere', async () => {
    await t.gql(
      '{ cardPayments(first: 1) { edges { node { id } } } } # 4111111111111111',
      {},
      { key: m.secretKey },
    );
    const [row] = await logged(m, 'path=/graphql');
    expect(String((await entry(String(row?.id))).request_body)).toContain('****1111');
    const endpoint = await t.post(m, '/v1/webhook_endpoints', {
      url: 'http://127.0.0.1:9/hook',
      enabled_events: ['*'],
      description: 'sk_test_abcdefghijklmnop1234 and whsec_c2VjcmV0',
    });
    expect(endpoint.status).toBe(200);
    const [created] = await logged();
    const full = await entry(String(created?.id));
    const both = `${full.request_body} ${full.response_body}`;
    expect(both).not.toContain(String(endpoint.body.secret));
    expect(full.response_body).toContain('"secret":"[redacted]"');
    expect(both).toContain('sk_test_****1234');
    expect(both).not.toContain('abcdefghijklmnop');
    expect(both).toContain('whsec_****');

    const other = await t.merchant('Rolled');
    const rolled = await t.post(other, '/v1/keys/roll');
    expect(rolled.status).toBe(200);
    const fresh = { ...other, secretKey: String(rolled.body.secret_key) };
    const [roll] = await logged(fresh);
    const answer = String((await entry(String(roll?.id), fresh)).response_body);
    expect(answer).not.toContain(fresh.secretKey);
    expect(answer).toContain('"secret_key":"[redacted]"');
  });

  it('the source: the CLI and sandbank/testing by their User-Agent, else api; the public key is its merchant’s', async () => {
    const as = (agent: string) =>
      t.rest('GET', '/v1/clock', { key: m.secretKey, headers: { 'user-agent': agent } });
    await as('sandbank-cli/0.1.0');
    await as('sandbank-testing/0.1.0');
    await as('curl/8.0');
    const token = await t.rest('POST', '/v1/tokens', { key: m.publicKey, body: { card: CARD } });
    expect(token.status).toBe(200);
    const refused = await t.rest('GET', '/v1/clock', { key: m.publicKey });
    expect(refused.status).toBe(403);
    const [secretOnly, tokens, curl, testing, cli] = await logged();
    expect([cli?.source, testing?.source, curl?.source]).toEqual(['cli', 'testing', 'api']);
    expect(tokens).toMatchObject({ operation: 'createCardToken', status_code: 200 });
    expect(String((await entry(String(tokens?.id))).request_body)).toContain('"number":"****4242"');
    expect(secretOnly).toMatchObject({ operation: 'getClock', error_code: 'secret_key_required' });
  });

  it('leaves out requests that name no merchant, and the log’s own reads', async () => {
    const before = await logged();
    expect((await t.rest('GET', '/v1/clock', { key: 'sk_test_unknown00000000000000' })).status).toBe(401);
    expect((await t.rest('GET', '/v1/clock')).status).toBe(401);
    await t.get(m, '/v1/requests?limit=1');
    await t.get(m, `/v1/requests/${before[0]?.id}`);
    await t.gql('{ requestLogs(first: 1) { edges { node { id } } } }', {}, { key: m.secretKey });
    expect((await t.rest('GET', '/healthz')).status).toBe(200);
    expect(await logged()).toEqual(before);
  });
});
