import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collections } from '../../../src/modules/collections/collections.table.ts';
import { createMetrics } from '../../../src/observability.ts';
import { createTestApp, debugLogCapture, type TestApp, type TestMerchant } from '../../support/harness.ts';

/**
 * Chaos on GraphQL (docs/guide/chaos.md): the Sandbank-Chaos header and the merchant's setting fault
 * keyed HTTP queries and mutations before they execute, answered in GraphQL's shape with the HTTP
 * status and the Sandbank-Chaos-Injected header, and counted in /metrics.
 */

const metrics = createMetrics();
let t: TestApp;

/** What the server logged as errors: an unexpected 500 names its cause in the failure. */
const errors = debugLogCapture('error');
beforeAll(async () => {
  t = await createTestApp({ metrics, logger: errors.logger });
});

afterAll(async () => {
  await t?.close();
});

interface GqlAnswer {
  status: number;
  headers: Headers;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
  };
}

/** POST /graphql with the headers the test gives, the answer's headers kept. */
async function gql(
  m: TestMerchant | null,
  query: string,
  headers: Record<string, string> = {},
  variables: Record<string, unknown> = {},
): Promise<GqlAnswer> {
  const response = await t.app.request('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(m ? { authorization: `Bearer ${m.secretKey}` } : {}),
      ...headers,
    },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as never };
}

const chaos = (value: string) => ({ 'Sandbank-Chaos': value });
const CLOCK = '{ clock { frozen } }';
const CREATE = `mutation($input: CreateCollectionInput!, $key: String) {
  createCollection(input: $input, idempotencyKey: $key) {
    __typename
    ... on MutationCreateCollectionSuccess { data { id } }
  }
}`;

async function count(labels: string): Promise<number> {
  const text = await (await t.app.request('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`sandbank_chaos_injected_total{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('chaos on GraphQL', () => {
  it('answers an error fault in GraphQL shape: the status, extensions.code chaos_injected and the header', async () => {
    const m = await t.merchant();
    const before = await count('fault="error",status="502"');
    const res = await gql(m, CLOCK, chaos('error=1; status=502'));
    expect(res.status).toBe(502);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors?.[0]?.extensions).toMatchObject({
      code: 'chaos_injected',
      status: 502,
      type: 'api_error',
    });
    expect(res.body.errors?.[0]?.extensions?.http).toBeUndefined();
    expect(res.body.errors?.[0]?.message).toContain('Simulated 502 error');
    expect(res.headers.get('Sandbank-Chaos-Injected')).toBe('error=502');
    expect(await count('fault="error",status="502"')).toBe(before + 1);
    // Without the header, the same query runs.
    const plain = await gql(m, CLOCK);
    expect(plain.status).toBe(200);
    expect(plain.body.data).toEqual({ clock: { frozen: false } });
    expect(plain.headers.get('Sandbank-Chaos-Injected')).toBeNull();
  });

  it('answers a rate limit 429 with Retry-After, a timeout 504 after its hold, and latency before a normal answer', async () => {
    const m = await t.merchant();
    const limited = await gql(m, CLOCK, chaos('rate_limit=1; retry_after=4'));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Retry-After')).toBe('4');
    expect(limited.headers.get('Sandbank-Chaos-Injected')).toBe('rate_limit=429; retry_after=4');
    expect(limited.body.errors?.[0]?.extensions?.code).toBe('chaos_injected');

    let started = performance.now();
    const timedOut = await gql(m, CLOCK, chaos('timeout=1; timeout_after=80ms'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    expect(timedOut.status).toBe(504);
    expect(timedOut.headers.get('Sandbank-Chaos-Injected')).toBe('timeout=504; held=80ms');
    expect(timedOut.body.errors?.[0]?.extensions?.code).toBe('chaos_injected');

    const latencyBefore = await count('fault="latency",status="200"');
    started = performance.now();
    const slow = await gql(m, CLOCK, chaos('latency=60ms'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(slow.status).toBe(200);
    expect(slow.body.data).toEqual({ clock: { frozen: false } });
    expect(slow.headers.get('Sandbank-Chaos-Injected')).toBe('latency=60ms');
    expect(await count('fault="latency",status="200"')).toBe(latencyBefore + 1);
  });

  it('faults a mutation before it runs: nothing is written and its retry with the same idempotency key runs', async () => {
    const m = await t.merchant();
    const input = { input: { amount: '12.00', currency: 'USD' }, key: 'gql-chaos-1' };
    for (const header of ['error=1; status=500', 'rate_limit=1', 'timeout=1; timeout_after=1ms']) {
      const faulted = await gql(m, CREATE, chaos(header), input);
      expect(faulted.status, header).toBeGreaterThanOrEqual(429);
      expect(faulted.body.errors?.[0]?.extensions?.code, header).toBe('chaos_injected');
      expect(await t.countRows(collections, m.id), header).toBe(0);
    }
    const retried = await gql(m, CREATE, {}, input);
    expect(retried.status).toBe(200);
    const created = retried.body.data?.createCollection as { __typename: string; data: { id: string } };
    expect(created.__typename).toBe('MutationCreateCollectionSuccess');
    expect(await t.countRows(collections, m.id)).toBe(1);
    // The key now replays the stored outcome: the same collection, no second row.
    const replayed = await gql(m, CREATE, {}, input);
    expect(replayed.body.data?.createCollection).toMatchObject({ data: { id: created.data.id } });
    expect(await t.countRows(collections, m.id)).toBe(1);
  });

  it("applies the merchant's setting; the setting itself, introspection and keyless requests are never faulted", async () => {
    const m = await t.merchant();
    const set = await gql(m, 'mutation { setChaos(faults: "error=1; status=503") { __typename } }');
    expect(set.status).toBe(200);
    const faulted = await gql(m, CLOCK);
    expect(faulted.status).toBe(503);
    expect(faulted.body.errors?.[0]?.extensions?.code).toBe('chaos_injected');
    // Sandbank-Chaos: none opts one request out.
    expect((await gql(m, CLOCK, chaos('none'))).status).toBe(200);
    // Reading and clearing the setting, and introspection, go through.
    const read = await gql(m, '{ chaos { faults } __typename }');
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ chaos: { faults: 'error=1; status=503' } });
    expect((await gql(m, '{ __schema { queryType { name } } }')).status).toBe(200);
    // A request without a key is not faulted: it gets the authentication error.
    const keyless = await gql(null, CLOCK, chaos('error=1'));
    expect(keyless.body.errors?.[0]?.extensions?.code).not.toBe('chaos_injected');
    expect(keyless.headers.get('Sandbank-Chaos-Injected')).toBeNull();
    const cleared = await gql(m, 'mutation { setChaos(faults: "") { __typename } }');
    expect(cleared.status).toBe(200);
    expect((await gql(m, CLOCK)).status).toBe(200);
    // The REST setting applies to GraphQL and REST alike: one setting.
    expect((await t.rest('GET', '/v1/simulate/chaos', { key: m.secretKey })).body).toMatchObject({
      faults: null,
    });
  });

  it('refuses a malformed header with a 400 parameter_invalid in GraphQL shape', async () => {
    const m = await t.merchant();
    const res = await gql(m, CLOCK, chaos('error=lots'));
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions).toMatchObject({
      code: 'parameter_invalid',
      param: 'Sandbank-Chaos',
    });
  });

  it('gives the same faults for the same seed, in one sequence with REST', async () => {
    const m = await t.merchant();
    const run = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        statuses.push(
          i % 2 === 0
            ? (await gql(m, CLOCK, chaos('error=0.5; seed=77'))).status
            : (await t.rest('GET', '/v1/clock', { key: m.secretKey, headers: chaos('error=0.5; seed=77') }))
                .status,
        );
      }
      return statuses;
    };
    const first = await run();
    expect(first).toContain(503);
    expect(first).toContain(200);
    // Setting the merchant's chaos restarts its sequences: the same run gives the same faults.
    await t.rest('POST', '/v1/simulate/chaos', { key: m.secretKey, body: { faults: null } });
    expect(await run(), errors.text()).toEqual(first);
  });
});
