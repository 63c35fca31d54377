import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chaosSettings } from '../../../src/modules/chaos/chaos.table.ts';
import { collections } from '../../../src/modules/collections/collections.table.ts';
import { createMetrics } from '../../../src/observability.ts';
import { signedIn } from '../../support/dashboard.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { listenOnLoopback } from '../fuzz/http-client.ts';

/**
 * Chaos (docs/guide/chaos.md): faults asked for by the Sandbank-Chaos header or the merchant's setting,
 * injected before the operation runs, visible in the answer and counted in /metrics.
 */

const metrics = createMetrics();
let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ metrics });
  m = await t.merchant('Chaos Shop');
});

afterAll(async () => {
  await t?.close();
});

const chaos = (value: string) => ({ 'Sandbank-Chaos': value });

type ErrorBody = { error: { code: string; message: string; param?: string } };

describe('the Sandbank-Chaos header', () => {
  it('answers an error fault with its status, the chaos_injected code and the Sandbank-Chaos-Injected header', async () => {
    for (const status of [500, 502, 503, 504]) {
      const res = await t.rest<ErrorBody>('GET', '/v1/clock', {
        key: m.secretKey,
        headers: chaos(`error=1; status=${status}`),
      });
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe('chaos_injected');
      expect(res.body.error.message).toContain(`Simulated ${status} error`);
      expect(res.headers.get('Sandbank-Chaos-Injected')).toBe(`error=${status}`);
    }
    const defaulted = await t.rest('GET', '/v1/clock', { key: m.secretKey, headers: chaos('error=1') });
    expect(defaulted.status).toBe(503);
  });

  it('answers a rate_limit fault 429 with Retry-After', async () => {
    const res = await t.rest<ErrorBody>('GET', '/v1/clock', {
      key: m.secretKey,
      headers: chaos('rate_limit=1; retry_after=7'),
    });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('chaos_injected');
    expect(res.headers.get('Retry-After')).toBe('7');
    expect(res.headers.get('Sandbank-Chaos-Injected')).toBe('rate_limit=429; retry_after=7');
  });

  it('delays by the latency it reports, then runs the operation', async () => {
    const started = performance.now();
    const res = await t.rest('GET', '/v1/clock', { key: m.secretKey, headers: chaos('latency=120ms') });
    expect(res.status).toBe(200);
    expect(res.headers.get('Sandbank-Chaos-Injected')).toBe('latency=120ms');
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);

    const ranged = await t.rest('GET', '/v1/clock', {
      key: m.secretKey,
      headers: chaos('latency=10ms-40ms'),
    });
    const delay = Number(/^latency=(\d+)ms$/.exec(ranged.headers.get('Sandbank-Chaos-Injected') ?? '')?.[1]);
    expect(delay).toBeGreaterThanOrEqual(10);
    expect(delay).toBeLessThanOrEqual(40);
  });

  it('holds a timeout fault for timeout_after, then answers 504', async () => {
    const started = performance.now();
    const res = await t.rest<ErrorBody>('GET', '/v1/clock', {
      key: m.secretKey,
      headers: chaos('timeout=1; timeout_after=150ms'),
    });
    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe('chaos_injected');
    expect(res.headers.get('Sandbank-Chaos-Injected')).toBe('timeout=504; held=150ms');
    expect(performance.now() - started).toBeGreaterThanOrEqual(130);
  });

  it('injects every fault kind over a real socket too', async () => {
    const server = await listenOnLoopback(t.app);
    try {
      const send = (value: string) =>
        server.send({
          method: 'GET',
          path: '/v1/clock',
          headers: { authorization: `Bearer ${m.secretKey}`, 'sandbank-chaos': value },
        });
      const latency = await send('latency=30ms');
      expect([latency.status, latency.headers['sandbank-chaos-injected']]).toEqual([200, 'latency=30ms']);
      const error = await send('error=1; status=502');
      expect([error.status, JSON.parse(error.text).error.code]).toEqual([502, 'chaos_injected']);
      const limited = await send('rate_limit=1');
      expect([limited.status, limited.headers['retry-after']]).toEqual([429, '1']);
      const timeout = await send('timeout=1; timeout_after=50ms');
      expect([timeout.status, timeout.headers['sandbank-chaos-injected']]).toEqual([
        504,
        'timeout=504; held=50ms',
      ]);
    } finally {
      await server.close();
    }
  });

  it('gives the same faults for the same seed and request sequence', async () => {
    const run = async (merchant: TestMerchant, seed: number) => {
      const outcomes: string[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await t.rest('GET', '/v1/clock', {
          key: merchant.secretKey,
          headers: chaos(`latency=0ms-5ms; error=0.3; rate_limit=0.2; seed=${seed}`),
        });
        outcomes.push(`${res.status} ${res.headers.get('Sandbank-Chaos-Injected')}`);
      }
      return outcomes;
    };
    const first = await run(await t.merchant('Seed A'), 42);
    const second = await run(await t.merchant('Seed B'), 42);
    expect(second).toEqual(first);
    // Not all alike: the draws vary along the sequence, and with the seed.
    expect(new Set(first.map((o) => o.split(' ')[0])).size).toBeGreaterThan(1);
    expect(await run(await t.merchant('Seed C'), 7)).not.toEqual(first);
  });

  it('keeps a merchant’s seeded sequence while another merchant sends 10,000 seeds', async () => {
    const seeded = 'error=0.3; rate_limit=0.2; seed=42';
    const draw = async (merchant: TestMerchant, value: string) => {
      const res = await t.rest('GET', '/v1/clock', { key: merchant.secretKey, headers: chaos(value) });
      return `${res.status} ${res.headers.get('Sandbank-Chaos-Injected')}`;
    };
    const draws = async (merchant: TestMerchant, count: number) => {
      const outcomes: string[] = [];
      for (let i = 0; i < count; i++) outcomes.push(await draw(merchant, seeded));
      return outcomes;
    };
    // What seed 42 gives from its start: a fresh merchant's run.
    const replay = await draws(await t.merchant('Seed replay'), 12);
    // Starting over would not look like going on: the test can tell the two apart.
    expect(replay.slice(4)).not.toEqual(replay.slice(0, 8));

    const b = await t.merchant('Seed keeper');
    const a = await t.merchant('Seed flooder');
    const before = await draws(b, 4);
    expect(before).toEqual(replay.slice(0, 4));
    const flood = 10_000;
    for (let start = 0; start < flood; start += 100) {
      const batch = Array.from({ length: 100 }, (_, i) =>
        t.app.request('/v1/clock', {
          headers: {
            authorization: `Bearer ${a.secretKey}`,
            'Sandbank-Chaos': `error=0; seed=${1000 + start + i}`,
          },
        }),
      );
      for (const res of await Promise.all(batch)) expect(res.status).toBe(200);
    }
    // The flooder's seeds cost only the flooder; B goes on where it was.
    expect(await draws(b, 8)).toEqual(replay.slice(4));
  });

  it('leaves a faulted POST unwritten, so its retry with the same Idempotency-Key runs normally', async () => {
    const shop = await t.merchant('Retry Shop');
    const request = { key: shop.secretKey, body: { amount: 10, currency: 'USD', reference: 'retry-1' } };
    const idempotency = { 'Idempotency-Key': 'chaos-retry-1' };
    for (const fault of ['error=1; status=500', 'rate_limit=1', 'timeout=1; timeout_after=10ms']) {
      const faulted = await t.rest('POST', '/v1/collect', {
        ...request,
        headers: { ...idempotency, ...chaos(fault) },
      });
      expect(faulted.status).toBeGreaterThanOrEqual(429);
      expect(await t.countRows(collections, shop.id)).toBe(0);
    }
    const retry = await t.rest<{ id: string }>('POST', '/v1/collect', { ...request, headers: idempotency });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('Idempotent-Replayed')).not.toBe('true');
    expect(retry.headers.get('Sandbank-Chaos-Injected')).toBeNull();
    expect(await t.countRows(collections, shop.id)).toBe(1);
    const replay = await t.rest<{ id: string }>('POST', '/v1/collect', { ...request, headers: idempotency });
    expect(replay.body.id).toBe(retry.body.id);
  });

  it('refuses a malformed header with a 400 naming it', async () => {
    for (const bad of [
      '',
      'error=2',
      'error=0.3; status=418',
      'latency=31s',
      'latency=2s-1s',
      'boom=1',
      'status=503',
      'error=0.6; rate_limit=0.6',
      'seed=-1',
      'error=0.1; error=0.2',
      'none; error=1',
      'latency',
    ]) {
      const res = await t.rest<ErrorBody>('GET', '/v1/clock', { key: m.secretKey, headers: chaos(bad) });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code, bad).toBe('parameter_invalid');
      expect(res.body.error.param, bad).toBe('Sandbank-Chaos');
      expect(res.body.error.message, bad).toContain('Sandbank-Chaos:');
    }
  });

  it('never applies to keyless routes nor to the chaos setting itself', async () => {
    const signup = await t.rest('POST', '/v1/merchants', {
      body: { name: 'Calm' },
      headers: chaos('error=1'),
    });
    expect(signup.status).toBe(201);
    const read = await t.rest('GET', '/v1/simulate/chaos', { key: m.secretKey, headers: chaos('error=1') });
    expect(read.status).toBe(200);
    expect(read.headers.get('Sandbank-Chaos-Injected')).toBeNull();
  });
});

describe("a merchant's chaos setting", () => {
  it('is set, applied to every request, read and cleared over REST, and spares other merchants', async () => {
    const shop = await t.merchant('Flaky Shop');
    const other = await t.merchant('Calm Shop');
    const set = await t.rest('POST', '/v1/simulate/chaos', {
      key: shop.secretKey,
      body: { faults: ' error = 1 ;STATUS=502; seed=9 ' },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ object: 'chaos', faults: 'error=1; status=502; seed=9' });

    const faulted = await t.rest<ErrorBody>('GET', '/v1/clock', { key: shop.secretKey });
    expect(faulted.status).toBe(502);
    expect(faulted.headers.get('Sandbank-Chaos-Injected')).toBe('error=502');
    expect((await t.rest('GET', '/v1/clock', { key: other.secretKey })).status).toBe(200);
    // A request's own header wins over the setting; "none" opts it out.
    expect((await t.rest('GET', '/v1/clock', { key: shop.secretKey, headers: chaos('none') })).status).toBe(
      200,
    );

    const read = await t.rest('GET', '/v1/simulate/chaos', { key: shop.secretKey });
    expect(read.body).toMatchObject({ faults: 'error=1; status=502; seed=9' });
    expect(typeof read.body.updated_at).toBe('string');

    const cleared = await t.rest('POST', '/v1/simulate/chaos', {
      key: shop.secretKey,
      body: { faults: null },
    });
    expect(cleared.body).toMatchObject({ faults: null, updated_at: null });
    expect((await t.rest('GET', '/v1/clock', { key: shop.secretKey })).status).toBe(200);
  });

  it('is stored in the database, in its canonical text', async () => {
    const shop = await t.merchant('Stored Shop');
    await t.rest('POST', '/v1/simulate/chaos', { key: shop.secretKey, body: { faults: 'rate_limit=1' } });
    const rows = await t.database.db
      .select({ faults: chaosSettings.faults })
      .from(chaosSettings)
      .where(eq(chaosSettings.merchantId, shop.id));
    expect(rows).toEqual([{ faults: 'rate_limit=1; retry_after=1' }]);
  });

  it('refuses malformed faults with a 400 on faults', async () => {
    const res = await t.rest<ErrorBody>('POST', '/v1/simulate/chaos', {
      key: m.secretKey,
      body: { faults: 'error=lots' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'faults' });
  });

  it('is set, read and cleared over GraphQL', async () => {
    const shop = await t.merchant('GraphQL Chaos');
    const set = await t.gql<{ setChaos: { data: { faults: string } } }>(
      'mutation { setChaos(faults: "latency=5ms; timeout=0.5; timeout_after=20ms") { ... on MutationSetChaosSuccess { data { faults } } } }',
      {},
      { key: shop.secretKey },
    );
    expect(set.errors).toBeUndefined();
    expect(set.data.setChaos.data.faults).toBe('latency=5ms; timeout=0.5; timeout_after=20ms');
    const rest = await t.rest('GET', '/v1/simulate/chaos', { key: shop.secretKey });
    expect(rest.body.faults).toBe('latency=5ms; timeout=0.5; timeout_after=20ms');
    const read = await t.gql<{ chaos: { faults: string | null } }>(
      '{ chaos { faults updatedAt } }',
      {},
      { key: shop.secretKey },
    );
    expect(read.data.chaos.faults).toBe('latency=5ms; timeout=0.5; timeout_after=20ms');

    const bad = await t.gql<{ setChaos: { __typename: string; code?: string } }>(
      'mutation { setChaos(faults: "timeout=3") { __typename ... on SandbankError { code } } }',
      {},
      { key: shop.secretKey },
    );
    expect(bad.data.setChaos).toMatchObject({ code: 'parameter_invalid' });

    await t.gql('mutation { setChaos(faults: "") { __typename } }', {}, { key: shop.secretKey });
    const after = await t.gql<{ chaos: { faults: string | null } }>(
      '{ chaos { faults } }',
      {},
      { key: shop.secretKey },
    );
    expect(after.data.chaos.faults).toBeNull();
  });
});

describe('the dashboard form', () => {
  it("sets and clears the merchant's chaos from the keys page, with the CSRF token", async () => {
    const shop = await t.merchant('Dashboard Chaos');
    const browser = await signedIn(() => t, shop);
    const page = await browser.get('/dashboard/keys');
    expect(page.html).toMatch(
      /<form method="post" action="\/dashboard\/chaos"><input type="hidden" name="_csrf"/,
    );
    expect(page.html).toContain('No chaos: requests run normally.');
    expect((await browser.post('/dashboard/chaos', { _csrf: 'forged', faults: 'error=1' })).status).toBe(403);

    const set = await browser.post('/dashboard/chaos', { faults: 'error=1; status=500' });
    expect(set.status).toBe(303);
    expect((await t.rest('GET', '/v1/clock', { key: shop.secretKey })).status).toBe(500);
    const shown = await browser.get('/dashboard/keys');
    expect(shown.html).toContain('value="error=1; status=500"');
    expect(shown.html).toContain('Chaos set: error=1; status=500.');

    await browser.post('/dashboard/chaos', { faults: 'error=9' });
    expect((await browser.get('/dashboard/keys')).html).toContain(
      'Chaos not changed: faults: error must be a probability',
    );
    expect((await t.rest('GET', '/v1/simulate/chaos', { key: shop.secretKey })).body.faults).toBe(
      'error=1; status=500',
    );

    await browser.post('/dashboard/chaos', { faults: '' });
    expect((await t.rest('GET', '/v1/clock', { key: shop.secretKey })).status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('lists chaos_injected under 429, 500, 502, 503 and 504 and the Sandbank-Chaos header on keyed operations only', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the document's JSON
    const doc: any = await (await t.app.request('/v1/openapi.json')).json();
    const clock = doc.paths['/clock'].get;
    for (const status of ['429', '500', '502', '503', '504']) {
      expect(clock.responses[status]['x-error-codes'], status).toContain('chaos_injected');
      expect(clock.responses[status].headers['Sandbank-Chaos-Injected'], status).toBeDefined();
    }
    expect(clock.parameters).toContainEqual({ $ref: '#/components/parameters/SandbankChaos' });
    for (const op of [
      doc.paths['/simulate/chaos'].post,
      doc.paths['/simulate/chaos'].get,
      doc.paths['/merchants'].post,
    ]) {
      expect(JSON.stringify(op)).not.toContain('chaos_injected');
      expect(op.parameters ?? []).not.toContainEqual({ $ref: '#/components/parameters/SandbankChaos' });
    }
  });
});

describe('/metrics', () => {
  it('counts injected faults by kind and status', async () => {
    const count = async (labels: string) => {
      const text = await (await t.app.request('/metrics')).text();
      const line = text.split('\n').find((l) => l.startsWith(`sandbank_chaos_injected_total{${labels}}`));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const before = await count('fault="error",status="503"');
    const latencyBefore = await count('fault="latency",status="200"');
    await t.rest('GET', '/v1/clock', { key: m.secretKey, headers: chaos('error=1') });
    await t.rest('GET', '/v1/clock', { key: m.secretKey, headers: chaos('error=1; status=503') });
    await t.rest('GET', '/v1/clock', { key: m.secretKey, headers: chaos('latency=1ms') });
    expect(await count('fault="error",status="503"')).toBe(before + 2);
    expect(await count('fault="latency",status="200"')).toBe(latencyBefore + 1);
  });
});
