import { GraphQLEnumType, getNamedType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../../src/api/graphql/schema.ts';
import { ERROR_CODES, ERROR_REGISTRY, type ErrorCode } from '../../../src/kernel/errors.ts';
import { cardPayments } from '../../../src/modules/card-payments/card-payments.table.ts';
import { collections } from '../../../src/modules/collections/collections.table.ts';
import { createTestApp, type TestApp, type TestMerchant, type TestResponse } from '../../support/harness.ts';

/** The cross-cutting conventions (idempotency, rate limits, request ids, discovery). */

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

interface ErrorBody {
  status: string;
  error: { type: string; code: string; message: string; param?: string; payment_id?: string };
  request_id: string;
}

const REQUEST_ID = /^req_[0-9A-Z]{26}$/;

function errorOf(res: TestResponse): ErrorBody['error'] {
  return (res.body as unknown as ErrorBody).error;
}

/** Asserts the error envelope and returns its error. */
function expectError(res: TestResponse, status: number, code: ErrorCode): ErrorBody['error'] {
  const body = res.body as unknown as ErrorBody;
  expect({ status: res.status, code: body?.error?.code }).toEqual({ status, code });
  expect(ERROR_REGISTRY[code].status).toBe(status);
  expect(body.status).toBe('error');
  expect(body.error.type).toBe(ERROR_REGISTRY[code].type);
  expect(body.request_id).toBe(res.headers.get('request-id'));
  return body.error;
}

function collect(merchant: TestMerchant, body: Record<string, unknown>, key?: string, path = '/v1/collect') {
  return t.rest('POST', path, {
    key: merchant.secretKey,
    body,
    ...(key !== undefined ? { headers: { 'idempotency-key': key } } : {}),
  });
}

const declinedCard = {
  method: 'card',
  card: { number: '4000000000000002', exp_month: 12, exp_year: 2099, cvc: '123' },
};

describe('idempotency over REST', () => {
  it('replays the stored response byte for byte for the same key and body', async () => {
    const m = await t.merchant();
    const body = { amount: '12.30', currency: 'USD', reference: 'idem-1' };
    const first = await collect(m, body, 'key-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await collect(m, body, 'key-1');
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(second.body.id).toBe(first.body.id);
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    expect(second.headers.get('request-id')).toMatch(REQUEST_ID);
    expect(second.headers.get('request-id')).not.toBe(first.headers.get('request-id'));
    expect(await t.countRows(collections, m.id)).toBe(1);
  });

  it('without a key the same body creates a second collection', async () => {
    const m = await t.merchant();
    const a = await collect(m, { amount: 1, currency: 'USD' });
    const b = await collect(m, { amount: 1, currency: 'USD' });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(await t.countRows(collections, m.id)).toBe(2);
  });

  it('answers 422 idempotency_key_reused for the same key with a different body', async () => {
    const m = await t.merchant();
    expect((await collect(m, { amount: 5, currency: 'USD' }, 'key-2')).status).toBe(200);
    const reused = await collect(m, { amount: 6, currency: 'USD' }, 'key-2');
    expectError(reused, 422, 'idempotency_key_reused');
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
    expect(await t.countRows(collections, m.id)).toBe(1);
  });

  it('answers 422 for the same key on a different path, and does not run the operation', async () => {
    const m = await t.merchant();
    const created = await collect(m, { amount: 5, currency: 'USD', reference: 'other-path' }, 'key-3');
    expect(created.status).toBe(200);
    const cancel = await t.rest('POST', '/v1/collections/other-path/cancel', {
      key: m.secretKey,
      headers: { 'idempotency-key': 'key-3' },
    });
    expectError(cancel, 422, 'idempotency_key_reused');
    const got = await t.rest('GET', '/v1/collections/other-path', { key: m.secretKey });
    expect(got.body.state).toBe('pending');
  });

  it('does not store a validation failure: the same key then succeeds with a fixed body', async () => {
    const m = await t.merchant();
    const failed = await collect(m, { amount: '1.234', currency: 'USD' }, 'key-4');
    expectError(failed, 400, 'amount_invalid');
    const again = await collect(m, { amount: '1.234', currency: 'USD' }, 'key-4');
    expectError(again, 400, 'amount_invalid');
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const fixed = await collect(m, { amount: '1.23', currency: 'USD' }, 'key-4');
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect(await t.countRows(collections, m.id)).toBe(1);
  });

  it('does not store a duplicate_reference conflict (nothing was written)', async () => {
    const m = await t.merchant();
    expect((await collect(m, { amount: 1, currency: 'USD', reference: 'dup' })).status).toBe(200);
    expectError(
      await collect(m, { amount: 2, currency: 'USD', reference: 'dup' }, 'key-dup'),
      409,
      'duplicate_reference',
    );
    const other = await collect(m, { amount: 2, currency: 'USD', reference: 'dup-2' }, 'key-dup');
    expect(other.status).toBe(200);
    expect(await t.countRows(collections, m.id)).toBe(2);
  });

  it('stores a 402 card decline: the replay has the same payment_id and one card payment exists', async () => {
    const m = await t.merchant();
    expect((await collect(m, { amount: 20, currency: 'USD', reference: 'declined' })).status).toBe(200);
    const pay = () =>
      t.rest('POST', '/v1/simulate/collections/declined/pay', {
        key: m.secretKey,
        body: declinedCard,
        headers: { 'idempotency-key': 'pay-1' },
      });
    const first = await pay();
    const error = expectError(first, 402, 'card_declined');
    expect(error.payment_id).toMatch(/^cp_/);
    const replay = await pay();
    expect(replay.status).toBe(402);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(errorOf(replay).payment_id).toBe(error.payment_id);
    expect(await t.countRows(cardPayments, m.id)).toBe(1);
    const got = await t.rest<{ state: string; payments: { id: string; state: string }[] }>(
      'GET',
      '/v1/collections/declined',
      { key: m.secretKey },
    );
    expect(got.body.state).toBe('pending');
    expect(got.body.payments).toEqual([expect.objectContaining({ id: error.payment_id, state: 'declined' })]);
  });

  it('scopes keys to the merchant: another merchant may use the same key', async () => {
    const a = await t.merchant('A');
    const b = await t.merchant('B');
    const ra = await collect(a, { amount: 1, currency: 'USD' }, 'shared-key');
    const rb = await collect(b, { amount: 2, currency: 'USD' }, 'shared-key');
    expect([ra.status, rb.status]).toEqual([200, 200]);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(rb.body.id).not.toBe(ra.body.id);
    expect(await t.countRows(collections, a.id)).toBe(1);
    expect(await t.countRows(collections, b.id)).toBe(1);
  });

  it('accepts keys of 1-255 printable characters and rejects others with 400 idempotency_key_invalid', async () => {
    const m = await t.merchant();
    const longest = await collect(m, { amount: 1, currency: 'USD' }, 'k'.repeat(255));
    expect(longest.status).toBe(200);
    const tooLong = await collect(m, { amount: 1, currency: 'USD' }, 'k'.repeat(256));
    expect(expectError(tooLong, 400, 'idempotency_key_invalid').param).toBe('Idempotency-Key');
    expectError(await collect(m, { amount: 1, currency: 'USD' }, ''), 400, 'idempotency_key_invalid');
    expectError(
      await collect(m, { amount: 1, currency: 'USD' }, 'tab\there'),
      400,
      'idempotency_key_invalid',
    );
    expect(await t.countRows(collections, m.id)).toBe(1);
  });

  it('treats a quoted key "abc" as the bare key abc', async () => {
    const m = await t.merchant();
    const quoted = await collect(m, { amount: 3, currency: 'USD' }, '"abc"');
    expect(quoted.status).toBe(200);
    const bare = await collect(m, { amount: 3, currency: 'USD' }, 'abc');
    expect(bare.status).toBe(200);
    expect(bare.headers.get('idempotent-replayed')).toBe('true');
    expect(bare.body.id).toBe(quoted.body.id);
    expect(await t.countRows(collections, m.id)).toBe(1);
  });

  it('two identical keyed requests at once never create two collections', async () => {
    const m = await t.merchant();
    const body = { amount: 7, currency: 'USD' };
    const results = await Promise.all([collect(m, body, 'race'), collect(m, body, 'race')]);
    const fresh = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    const other = results.find((r) => r !== fresh[0]);
    if (!other) throw new Error('expected two responses');
    if (other.status === 409) {
      expectError(other, 409, 'idempotency_key_in_use');
    } else {
      expect(other.status).toBe(200);
      expect(other.headers.get('idempotent-replayed')).toBe('true');
      expect(other.body.id).toBe(fresh[0]?.body.id);
    }
    expect(await t.countRows(collections, m.id)).toBe(1);
    const after = await collect(m, body, 'race');
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.body.id).toBe(fresh[0]?.body.id);
  });
});

const CREATE = `mutation($input: CreateCollectionInput!, $key: String) {
  createCollection(input: $input, idempotencyKey: $key) {
    __typename
    ... on MutationCreateCollectionSuccess { data { id reference } }
    ... on SandbankError { code type param httpStatus }
  }
}`;

interface CreateResult {
  createCollection: {
    __typename: string;
    data?: { id: string; reference: string };
    code?: string;
    type?: string;
    param?: string | null;
  };
}

describe('idempotency and conflicts over GraphQL', () => {
  it('createCollection with the same idempotencyKey returns the same collection once', async () => {
    const m = await t.merchant();
    const input = { amount: '4.20', currency: 'USD' };
    const first = await t.gql<CreateResult>(CREATE, { input, key: 'k1' }, { key: m.secretKey });
    const second = await t.gql<CreateResult>(CREATE, { input, key: 'k1' }, { key: m.secretKey });
    expect(first.errors).toBeUndefined();
    expect(second.errors).toBeUndefined();
    const id = first.data.createCollection.data?.id;
    expect(id).toMatch(/^col_/);
    expect(second.data.createCollection.data?.id).toBe(id);
    expect(await t.countRows(collections, m.id)).toBe(1);
    const reused = await t.gql<CreateResult>(
      CREATE,
      { input: { amount: '4.21', currency: 'USD' }, key: 'k1' },
      { key: m.secretKey },
    );
    expect(reused.data.createCollection).toMatchObject({
      __typename: 'SandbankError',
      code: 'idempotency_key_reused',
      type: 'invalid_request_error',
    });
    expect(await t.countRows(collections, m.id)).toBe(1);
  });

  it('takes the key from the Idempotency-Key header as well', async () => {
    const m = await t.merchant();
    const input = { amount: 9, currency: 'USD' };
    const options = { key: m.secretKey, headers: { 'idempotency-key': 'header-key' } };
    const first = await t.gql<CreateResult>(CREATE, { input }, options);
    const second = await t.gql<CreateResult>(CREATE, { input }, options);
    expect(first.data.createCollection.data?.id).toMatch(/^col_/);
    expect(second.data.createCollection.data?.id).toBe(first.data.createCollection.data?.id);
    expect(await t.countRows(collections, m.id)).toBe(1);
    const invalid = await t.gql<CreateResult>(
      CREATE,
      { input },
      {
        key: m.secretKey,
        headers: { 'idempotency-key': 'x'.repeat(256) },
      },
    );
    expect(invalid.data.createCollection).toMatchObject({ code: 'idempotency_key_invalid' });
  });

  it('a duplicate reference is the typed error duplicate_reference', async () => {
    const m = await t.merchant();
    const input = { amount: 1, currency: 'USD', reference: 'gql-dup' };
    const first = await t.gql<CreateResult>(CREATE, { input }, { key: m.secretKey });
    expect(first.data.createCollection.data?.reference).toBe('gql-dup');
    const second = await t.gql<CreateResult>(CREATE, { input }, { key: m.secretKey });
    expect(second.errors).toBeUndefined();
    expect(second.data.createCollection).toMatchObject({
      __typename: 'SandbankError',
      code: 'duplicate_reference',
      type: 'conflict_error',
      param: 'reference',
    });
    expect(await t.countRows(collections, m.id)).toBe(1);
  });
});

describe('rate limits', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ rateLimitPerSecond: 3 });
    // Warm the app (queries, caches) with another merchant: its bucket is its own.
    const warm = await limited.merchant('Warm-up');
    expect((await limited.rest('GET', '/v1/collections', { key: warm.secretKey })).status).toBe(200);
  });
  afterAll(async () => {
    await limited.close();
  });

  it('lets the first 3 quick requests through and answers the 4th with 429 rate_limited', async () => {
    const m = await limited.merchant();
    // Sent together, so the four take their tokens within milliseconds of each other (a refill
    // needs a third of a second): exactly one of them finds the bucket empty.
    const all = await Promise.all(
      Array.from({ length: 4 }, () => limited.rest('GET', '/v1/collections', { key: m.secretKey })),
    );
    const responses = [...all.filter((r) => r.status === 200), ...all.filter((r) => r.status !== 200)];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    for (const res of responses) {
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    }
    expect(
      responses
        .slice(0, 3)
        .map((r) => r.headers.get('ratelimit-remaining'))
        .sort(),
    ).toEqual(['0', '1', '2']);
    const limitedRes = responses[3] as TestResponse;
    expectError(limitedRes, 429, 'rate_limited');
    expect(Number(limitedRes.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limitedRes.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('counts each key on its own', async () => {
    const a = await limited.merchant('A');
    const b = await limited.merchant('B');
    for (let i = 0; i < 3; i++) await limited.rest('GET', '/v1/collections', { key: a.secretKey });
    const other = await limited.rest('GET', '/v1/collections', { key: b.secretKey });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('2');
  });

  it('sends no RateLimit headers when disabled (the default, 0)', async () => {
    const m = await t.merchant();
    for (let i = 0; i < 5; i++) {
      const res = await t.rest('GET', '/v1/collections', { key: m.secretKey });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
      expect(res.headers.get('ratelimit-remaining')).toBeNull();
      expect(res.headers.get('retry-after')).toBeNull();
    }
  });
});

async function raw(path: string, init: RequestInit = {}): Promise<TestResponse> {
  const response = await t.app.request(path, init);
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, body: body as Record<string, unknown>, text };
}

describe('request ids and error hygiene', () => {
  it('every response carries Request-Id: req_..., and error bodies repeat it', async () => {
    const m = await t.merchant();
    const responses: Record<string, TestResponse> = {
      'REST success': await collect(m, { amount: 1, currency: 'USD' }),
      'REST list': await t.rest('GET', '/v1/collections', { key: m.secretKey }),
      'REST 400': await collect(m, { amount: 0, currency: 'USD' }),
      'REST 401': await t.rest('GET', '/v1/collections'),
      'REST 404 route': await t.rest('GET', '/v1/nope', { key: m.secretKey }),
      'REST 415': await t.rest('POST', '/v1/collect', {
        key: m.secretKey,
        rawBody: 'x',
        headers: { 'content-type': 'text/plain' },
      }),
      'GraphQL success': await raw('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${m.secretKey}` },
        body: JSON.stringify({ query: '{ collections { edges { node { id } } } }' }),
      }),
      'GraphQL error': await raw('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ ' }),
      }),
      healthz: await raw('/healthz'),
      readyz: await raw('/readyz'),
      'OpenAPI document': await raw('/v1/openapi.json'),
      'SDL document': await raw('/graphql/schema.graphql'),
    };
    const ids = new Set<string>();
    for (const [name, res] of Object.entries(responses)) {
      const id = res.headers.get('request-id');
      expect(id, name).toMatch(REQUEST_ID);
      ids.add(String(id));
      if (name.startsWith('REST') && res.status >= 400) {
        expect((res.body as unknown as ErrorBody).request_id, name).toBe(id);
      }
    }
    expect(ids.size).toBe(Object.keys(responses).length);
  });

  it('an unknown route is 404 route_not_found in the envelope', async () => {
    const m = await t.merchant();
    const res = await t.rest('GET', '/v1/nope', { key: m.secretKey });
    expect(expectError(res, 404, 'route_not_found').message).toContain('/v1/nope');
    const post = await t.rest('POST', '/v1/nope', { key: m.secretKey, body: {} });
    expectError(post, 404, 'route_not_found');
  });

  it('an unknown collection is 404 resource_not_found, also for a reference holding U+0000', async () => {
    const m = await t.merchant();
    expectError(
      await t.rest('GET', '/v1/collections/none-such', { key: m.secretKey }),
      404,
      'resource_not_found',
    );
    expectError(
      await t.rest('GET', '/v1/collections/a%00b', { key: m.secretKey }),
      404,
      'resource_not_found',
    );
  });

  it('no error body leaks a stack trace, SQL or a source path', async () => {
    const m = await t.merchant();
    const texts = [
      (
        await t.rest('POST', '/v1/collect', {
          key: m.secretKey,
          rawBody: '{"amount":',
          headers: { 'content-type': 'application/json' },
        })
      ).text,
      (await collect(m, { amount: 'abc', currency: 'USD' })).text,
      (await collect(m, { amount: 1, currency: 'USD', description: 'nul\u0000' })).text,
      (await t.rest('GET', '/v1/collections/a%00b', { key: m.secretKey })).text,
      (await t.rest('GET', '/v1/collections?limit=0', { key: m.secretKey })).text,
      (await t.rest('GET', '/v1/nope', { key: m.secretKey })).text,
      (await t.rest('GET', '/v1/collections', { key: `sk_test_${'Q'.repeat(32)}` })).text,
      (
        await raw('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"query": "{ nope }"}',
        })
      ).text,
      (await raw('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }))
        .text,
    ];
    for (const text of texts) {
      expect(text.length).toBeGreaterThan(0);
      expect(text).not.toMatch(/\n\s+at |\bat [\w.<>]+ \(/);
      expect(text).not.toMatch(/\bSELECT\b|\bINSERT\b|\bUPDATE\b|pg_|drizzle/i);
      expect(text).not.toMatch(/\.ts:\d+|node_modules|\/work\//);
    }
  });
});

describe('discovery', () => {
  it('serves the OpenAPI 3.1 document with the collection routes and the collect body', async () => {
    const res = await raw('/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as {
      openapi: string;
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >;
    };
    expect(doc.openapi).toMatch(/^3\.1\./);
    for (const path of [
      '/collect',
      '/collections',
      '/collections/{reference}',
      '/collections/{reference}/cancel',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    const schemaOf = doc.paths['/collect']?.post?.requestBody?.content['application/json']?.schema as {
      properties: Record<string, unknown>;
      required?: string[];
    };
    expect(Object.keys(schemaOf.properties)).toEqual(
      expect.arrayContaining(['amount', 'currency', 'email', 'reference']),
    );
    expect(schemaOf.required).toEqual(expect.arrayContaining(['amount', 'currency']));
    expect(schemaOf.required).not.toContain('email');
  });

  it('/docs renders the reference from local assets', async () => {
    const page = await raw('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // Swagger UI starts from a served script (the page's CSP allows no inline one).
    expect(page.text).toContain('<script src="/docs/assets/docs.js">');
    expect(await (await t.app.request('/docs/assets/docs.js')).text()).toContain('/v1/openapi.json');
    const bundle = await t.app.request('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    expect((await t.app.request('/docs/assets/..%2Fpackage.json')).status).toBe(404);
  });

  it('GET /graphql in a browser is GraphiQL served without a CDN', async () => {
    const res = await t.app.request('/graphql', { headers: { accept: 'text/html' } });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toMatch(/graphiql/i);
    expect(html).not.toContain('https://unpkg.com');
    expect(html).not.toContain('cdn.jsdelivr');
    expect(html).not.toMatch(/<script[^>]+src=["']https?:/i);
    expect(html).not.toMatch(/<link[^>]+href=["']https?:/i);
  });

  it('/healthz and /readyz answer 200, /readyz with the driver', async () => {
    const health = await raw('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'success' });
    const ready = await raw('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'success', database: t.database.driver });
    expect(['pglite', 'postgres']).toContain(ready.body.database);
  });

  it('GET /graphql/schema.graphql returns the SDL', async () => {
    const res = await raw('/graphql/schema.graphql');
    expect(res.status).toBe(200);
    expect(res.text).toContain('type Collection ');
    expect(res.text).toContain('enum ErrorCode');
  });
});

const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'conflict_error',
  'card_error',
  'rate_limit_error',
  'api_error',
];

describe('error registry (house rule: one error registry, docs/internals/house-rules.md)', () => {
  it('gives every code an HTTP status in 400-599 and an allowed type', () => {
    expect(ERROR_CODES.length).toBeGreaterThan(20);
    for (const code of ERROR_CODES) {
      const spec = ERROR_REGISTRY[code];
      expect(code).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
      expect(spec.status, code).toBeGreaterThanOrEqual(400);
      expect(spec.status, code).toBeLessThanOrEqual(599);
      expect(ERROR_TYPES, code).toContain(spec.type);
      expect(spec.message.length, code).toBeGreaterThan(0);
    }
  });

  it('puts every code in the GraphQL ErrorCode enum, and nothing else', async () => {
    const res = await t.gql<{ __type: { kind: string; enumValues: { name: string }[] } | null }>(
      '{ __type(name: "ErrorCode") { kind enumValues { name } } }',
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.__type?.kind).toBe('ENUM');
    const names = res.data.__type?.enumValues.map((v) => v.name) ?? [];
    expect([...names].sort()).toEqual([...ERROR_CODES].sort());
    const type = schema.getType('ErrorCode');
    expect(type).toBeInstanceOf(GraphQLEnumType);
    expect(getNamedType(type)?.name).toBe('ErrorCode');
    expect(
      (type as GraphQLEnumType)
        .getValues()
        .map((v) => v.value)
        .sort(),
    ).toEqual([...ERROR_CODES].sort());
  });
});

describe('GraphQL abuse limits and auth', () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await t.merchant();
  });

  function rejectedBeforeExecution(
    res: { data: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] },
    pattern: RegExp,
  ) {
    expect(res.data ?? null).toBeNull();
    expect(res.errors?.length).toBeGreaterThan(0);
    expect(res.errors?.[0]?.extensions?.code).toBe('query_rejected');
    expect(res.errors?.map((e) => e.message).join('\n')).toMatch(pattern);
  }

  it('rejects a document nested deeper than the limit', async () => {
    let selection = '__typename';
    for (let i = 0; i < 12; i++) selection = `... on Query { ${selection} }`;
    rejectedBeforeExecution(await t.gql(`{ ${selection} }`, {}, { key: m.secretKey }), /depth limit/i);
    const fields = await t.gql(
      '{ collections { edges { node { paymentAttempts { amount { currency } } } } } }',
      {},
      { key: m.secretKey },
    );
    expect(fields.errors).toBeUndefined();
  });

  it('rejects a document with more than 15 aliases', async () => {
    const aliases = Array.from({ length: 20 }, (_, i) => `c${i}: collection(reference: "r${i}") { id }`);
    rejectedBeforeExecution(
      await t.gql(`{ ${aliases.join(' ')} }`, {}, { key: m.secretKey }),
      /aliases limit/i,
    );
    const few = await t.gql(`{ ${aliases.slice(0, 5).join(' ')} }`, {}, { key: m.secretKey });
    expect(few.errors).toBeUndefined();
  });

  it('rejects a document with a huge token count', async () => {
    const query = `{ ${Array.from({ length: 800 }, (_, i) => `collection(reference: "r${i}") { id }`).join(' ')} }`;
    rejectedBeforeExecution(await t.gql(query, {}, { key: m.secretKey }), /token limit/i);
  });

  it('a field needing a key answers api_key_missing without one and secret_key_required with pk', async () => {
    const query = '{ collections { edges { node { id } } } }';
    const none = await t.gql(query);
    expect(none.data ?? null).toBeNull();
    expect(none.errors?.[0]?.extensions).toMatchObject({
      code: 'api_key_missing',
      type: 'authentication_error',
      status: 401,
    });
    const pk = await t.gql(query, {}, { key: m.publicKey });
    expect(pk.errors?.[0]?.extensions).toMatchObject({
      code: 'secret_key_required',
      type: 'permission_error',
      status: 403,
    });
    const invalid = await t.gql(query, {}, { key: `sk_test_${'W'.repeat(32)}` });
    expect(invalid.errors?.[0]?.extensions).toMatchObject({ code: 'api_key_invalid' });
    const ok = await t.gql(query, {}, { key: m.secretKey });
    expect(ok.errors).toBeUndefined();
  });

  it('a mutation without a key is the typed error api_key_missing and writes nothing', async () => {
    const res = await t.gql<CreateResult>(CREATE, { input: { amount: 1, currency: 'USD' } });
    expect(res.data.createCollection).toMatchObject({ __typename: 'SandbankError', code: 'api_key_missing' });
    const pk = await t.gql<CreateResult>(
      CREATE,
      { input: { amount: 1, currency: 'USD' } },
      { key: m.publicKey },
    );
    expect(pk.data.createCollection).toMatchObject({ code: 'secret_key_required' });
    expect(await t.countRows(collections, m.id)).toBe(0);
  });
});

describe('sign-up', () => {
  it('POST /v1/merchants without a key returns working keys once', async () => {
    const res = await t.rest<{
      status: string;
      id: string;
      name: string;
      secret_key: string;
      public_key: string;
    }>('POST', '/v1/merchants', { body: { name: 'Acme' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'success', name: 'Acme' });
    expect(res.body.id).toMatch(/^mch_/);
    expect(res.body.secret_key).toMatch(/^sk_test_[A-Za-z0-9]{20,}$/);
    expect(res.body.public_key).toMatch(/^pk_test_[A-Za-z0-9]{20,}$/);
    const created = await t.rest('POST', '/v1/collect', {
      key: res.body.secret_key,
      body: { amount: 100, currency: 'USD' },
    });
    expect(created.status).toBe(200);
    const withPublic = await t.rest('POST', '/v1/collect', {
      key: res.body.public_key,
      body: { amount: 100, currency: 'USD' },
    });
    expectError(withPublic, 403, 'secret_key_required');
    expect(await t.countRows(collections, res.body.id)).toBe(1);
  });

  it('rejects a sign-up without a name or with unknown fields', async () => {
    expectError(await t.rest('POST', '/v1/merchants', { body: {} }), 400, 'parameter_missing');
    expectError(await t.rest('POST', '/v1/merchants', { body: { name: '' } }), 400, 'parameter_invalid');
    expectError(
      await t.rest('POST', '/v1/merchants', { body: { name: 'A', plan: 'pro' } }),
      400,
      'parameter_unknown',
    );
  });
});
